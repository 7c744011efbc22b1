// Alarms and the dashboard in the stack (issue 32): each alarm with its metric, threshold and the
// alarms topic as its action; every DLQ, queue and function covered; the topic encrypted and
// TLS-only; the email subscription only with `-c alarmEmail`; the dashboard's funnel; and the
// stack still inside its resource budget with everything optional switched on.
import { CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { AppStack, STACK_RESOURCE_BUDGET } from '../../lib/app-stack';
import { FUNNEL, WEBHOOK_OUTCOMES } from '../../lib/constructs/dashboard';
import { ALARM_EMAIL_CONTEXT, MAX_METRICS_PER_ALARM, queueAgeLimitSeconds, thresholds } from '../../lib/constructs/observability';
import { defaultPolicy } from '../../shared/billing/reputation/policy';
import { queues } from '../../shared/platform';
import { testApp } from '../support/cdk';

type Resource = { Type: string; Properties: Record<string, any> };
interface WatchedMetric {
  namespace: string;
  name: string;
  dimensions: Record<string, unknown>;
  stat?: string;
}

let stack: AppStack;
let resources: Record<string, Resource>;
let alarms: Resource[];

function synth(context: Record<string, unknown> = {}, props: { inbound?: boolean } = {}): AppStack {
  const app = testApp();
  for (const [key, value] of Object.entries(context)) app.node.setContext(key, value);
  return new AppStack(app, 'Postbox-obs', { stage: 'test', ...props });
}

beforeAll(() => {
  stack = synth();
  resources = Template.fromStack(stack).toJSON().Resources as Record<string, Resource>;
  alarms = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Alarm');
});

const logicalId = (construct: IConstruct): string => Stack.of(construct).getLogicalId((CfnResource.isCfnResource(construct) ? construct : construct.node.defaultChild) as CfnResource);
const topicId = (): string => logicalId(stack.observability.topic);

/** The metrics an alarm reads: its one metric, or each MetricStat of its metric math. */
function watched(alarm: Resource): WatchedMetric[] {
  const p = alarm.Properties;
  const dims = (list: Array<{ Name: string; Value: unknown }> = []) => Object.fromEntries(list.map((d) => [d.Name, d.Value]));
  if (p.MetricName) return [{ namespace: p.Namespace, name: p.MetricName, dimensions: dims(p.Dimensions), stat: p.Statistic ?? p.ExtendedStatistic }];
  return (p.Metrics as Array<{ MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions?: Array<{ Name: string; Value: unknown }> }; Stat: string } }>)
    .filter((m) => m.MetricStat)
    .map(({ MetricStat: s }) => ({ namespace: s!.Metric.Namespace, name: s!.Metric.MetricName, dimensions: dims(s!.Metric.Dimensions), stat: s!.Stat }));
}
const expressionOf = (alarm: Resource): string | undefined => (alarm.Properties.Metrics as Array<{ Expression?: string; ReturnData?: boolean }> | undefined)?.find((m) => m.ReturnData)?.Expression;
/** The alarms reading `name` with a dimension that refers to `id`. */
const alarmsOn = (name: string, dimension: string, id: string): Resource[] =>
  alarms.filter((a) => watched(a).some((m) => m.name === name && JSON.stringify(m.dimensions[dimension]).includes(`"${id}"`)));
const alarmsReading = (namespace: string, name: string): Resource[] => alarms.filter((a) => watched(a).some((m) => m.namespace === namespace && m.name === name));

describe('every alarm', () => {
  it('notifies the alarms topic when it fires and when it clears, and counts no data as no trouble', () => {
    expect(alarms.length).toBeGreaterThan(0);
    for (const alarm of alarms) {
      expect(alarm.Properties.AlarmActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.Properties.OKActions).toEqual([{ Ref: topicId() }]);
      expect(alarm.Properties.TreatMissingData).toBe('notBreaching');
      expect(alarm.Properties.AlarmDescription).toEqual(expect.any(String));
      expect(watched(alarm).length).toBeLessThanOrEqual(MAX_METRICS_PER_ALARM);
    }
  });
});

describe('queues', () => {
  it('alarms on every DLQ holding a message (the largest of them above 0)', () => {
    for (const [name, queue] of stack.shared.queues.entries()) {
      const dlq = queue.deadLetterQueue!.queue;
      const found = alarmsOn('ApproximateNumberOfMessagesVisible', 'QueueName', logicalId(dlq));
      expect(found, `${name} DLQ`).toHaveLength(1);
      const [alarm] = found;
      expect(watched(alarm!).every((m) => m.namespace === 'AWS/SQS' && m.stat === 'Maximum')).toBe(true);
      expect(expressionOf(alarm!)).toMatch(/^MAX\(\[/);
      expect(alarm!.Properties).toMatchObject({ Threshold: 0, ComparisonOperator: 'GreaterThanThreshold', EvaluationPeriods: 1 });
    }
  });

  it('alarms on each queue\'s oldest message passing the queue\'s limit (visibility timeout × receives)', () => {
    for (const [name, queue] of stack.shared.queues.entries()) {
      const found = alarmsOn('ApproximateAgeOfOldestMessage', 'QueueName', logicalId(queue));
      expect(found, name).toHaveLength(1);
      const index = watched(found[0]!).findIndex((m) => JSON.stringify(m.dimensions.QueueName).includes(logicalId(queue)));
      expect(expressionOf(found[0]!)).toContain(`m${index} / ${queueAgeLimitSeconds(stack.shared.queues.definition(name))}`);
      expect(found[0]!.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
    }
    expect(queueAgeLimitSeconds(queues.find((q) => q.name === 'send')!)).toBe(15 * 60);
  });
});

describe('functions', () => {
  it.each([['Errors'], ['Throttles']])('covers every function\'s %s in summed alarms of at most 10 functions, firing at 1', (metric) => {
    for (const def of functions) {
      const found = alarmsOn(metric, 'FunctionName', logicalId(stack.functions.get(def.name)!.fn));
      expect(found, def.name).toHaveLength(1);
      expect(expressionOf(found[0]!)).toMatch(/^SUM\(\[/);
      expect(found[0]!.Properties).toMatchObject({ Threshold: 1, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
      expect(found[0]!.Properties.AlarmDescription).toContain(def.name);
    }
    expect(alarmsReading('AWS/Lambda', metric)).toHaveLength(Math.ceil(functions.length / MAX_METRICS_PER_ALARM));
  });
});

describe('the HTTP API', () => {
  const stageDimensions = () => ({ ApiId: { Ref: logicalId(stack.api.httpApi) }, Stage: '$default' });

  it('alarms when 5% of at least 20 requests in five minutes answer 5xx', () => {
    const [alarm, ...others] = alarmsReading('AWS/ApiGateway', '5xx');
    expect(others).toEqual([]);
    expect(watched(alarm!)).toEqual([
      { namespace: 'AWS/ApiGateway', name: '5xx', dimensions: stageDimensions(), stat: 'Sum' },
      { namespace: 'AWS/ApiGateway', name: 'Count', dimensions: stageDimensions(), stat: 'Sum' },
    ]);
    expect(expressionOf(alarm!)).toBe('IF(requests >= 20, 100 * errors / requests, 0)');
    expect(alarm!.Properties).toMatchObject({ Threshold: 5, ComparisonOperator: 'GreaterThanOrEqualToThreshold' });
  });

  it('alarms when the p99 latency stays at 3 s or more for three periods', () => {
    const [alarm, ...others] = alarmsReading('AWS/ApiGateway', 'Latency');
    expect(others).toEqual([]);
    expect(watched(alarm!)).toEqual([{ namespace: 'AWS/ApiGateway', name: 'Latency', dimensions: stageDimensions(), stat: 'p99' }]);
    expect(alarm!.Properties).toMatchObject({ Threshold: thresholds.apiP99LatencyMs, EvaluationPeriods: 3, Period: 300 });
  });
});

describe('SES reputation', () => {
  it.each([
    ['Reputation.BounceRate', 0.05, defaultPolicy.warnBounceRate],
    ['Reputation.ComplaintRate', 0.001, defaultPolicy.warnComplaintRate],
  ])('alarms on the account\'s %s below SES\'s review level (%s), where a tenant is warned', (metric, review, warn) => {
    const [alarm, ...others] = alarmsReading('AWS/SES', metric);
    expect(others).toEqual([]);
    expect(watched(alarm!)).toEqual([{ namespace: 'AWS/SES', name: metric, dimensions: {}, stat: 'Maximum' }]);
    expect(alarm!.Properties.Threshold).toBe(warn);
    expect(alarm!.Properties.Threshold).toBeLessThan(review);
    expect(alarm!.Properties.ComparisonOperator).toBe('GreaterThanOrEqualToThreshold');
  });
});

describe('the alarms topic', () => {
  it('is encrypted with a rotating key of its own, which CloudWatch may use', () => {
    const topic = resources[topicId()]!;
    const keyId = topic.Properties.KmsMasterKeyId['Fn::GetAtt'][0] as string;
    const key = resources[keyId]!;
    expect(key.Type).toBe('AWS::KMS::Key');
    expect(key.Properties.EnableKeyRotation).toBe(true);
    expect(key.Properties.KeyPolicy.Statement).toContainEqual(
      expect.objectContaining({ Effect: 'Allow', Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: ['kms:Decrypt', 'kms:GenerateDataKey*'] }),
    );
  });

  it('takes only TLS, and lets only this account\'s alarms publish', () => {
    const policy = Object.values(resources).find((r) => r.Type === 'AWS::SNS::TopicPolicy' && JSON.stringify(r.Properties.Topics) === JSON.stringify([{ Ref: topicId() }]))!;
    const statements = policy.Properties.PolicyDocument.Statement as Array<Record<string, any>>;
    expect(statements).toContainEqual(expect.objectContaining({ Effect: 'Deny', Action: 'sns:Publish', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }));
    const allow = statements.find((s) => s.Effect === 'Allow')!;
    expect(allow).toMatchObject({ Principal: { Service: 'cloudwatch.amazonaws.com' }, Action: 'sns:Publish', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } });
    expect(JSON.stringify(allow.Condition.ArnLike['aws:SourceArn'])).toContain(':alarm:*');
  });

  it('mails nobody without the alarmEmail context', () => {
    const subscriptions = Object.values(resources).filter((r) => r.Type === 'AWS::SNS::Subscription' && JSON.stringify(r.Properties.TopicArn) === JSON.stringify({ Ref: topicId() }));
    expect(subscriptions).toEqual([]);
  });

  it('mails the address -c alarmEmail names, and refuses a value that is no address', () => {
    const withEmail = synth({ [ALARM_EMAIL_CONTEXT]: 'ops@example.com' });
    const template = Template.fromStack(withEmail);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'ops@example.com', TopicArn: { Ref: logicalId(withEmail.observability.topic) } });
    expect(() => synth({ [ALARM_EMAIL_CONTEXT]: 'ops at example' })).toThrow(/context alarmEmail must be an email address/);
  });
});

describe('the dashboard', () => {
  it('graphs the send funnel and webhook outcomes from the Postbox metrics of this stage, and each queue\'s age and depth', () => {
    const dashboards = Object.values(resources).filter((r) => r.Type === 'AWS::CloudWatch::Dashboard');
    expect(dashboards).toHaveLength(1);
    // Named account-wide: the stack's name and its region.
    expect(dashboards[0]!.Properties.DashboardName).toEqual({ 'Fn::Join': ['', ['Postbox-obs-', { Ref: 'AWS::Region' }]] });
    const body = JSON.stringify(dashboards[0]!.Properties.DashboardBody);
    for (const name of [...FUNNEL, ...WEBHOOK_OUTCOMES]) expect(body, name).toMatch(new RegExp(`\\[\\\\"Postbox\\\\",\\\\"${name}\\\\",\\\\"Stage\\\\",\\\\"test\\\\"`));
    expect(FUNNEL).toEqual(['MessagesAccepted', 'MessagesSent', 'MessagesDelivered', 'MessagesBounced', 'MessagesComplained']);
    expect(body).toContain('ApproximateAgeOfOldestMessage');
    expect(body).toContain('ApproximateNumberOfMessagesVisible');
    for (const [name] of stack.shared.queues.entries()) expect(body).toContain(`\\"label\\":\\"${name}\\"`);
  });

  it('is how the functions learn their stage: STAGE, the metrics\' dimension', () => {
    for (const fn of Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function')) expect(fn.Properties.Environment.Variables.STAGE).toBe('test');
  });
});

describe('the resource budget', () => {
  it(`stays within ${STACK_RESOURCE_BUDGET} resources with SES receiving and an alarm email, the most the stack makes`, () => {
    const full = Template.fromStack(synth({ [ALARM_EMAIL_CONTEXT]: 'ops@example.com' }, { inbound: true })).toJSON();
    expect(Object.keys(full.Resources).length).toBeLessThanOrEqual(STACK_RESOURCE_BUDGET);
  });
});

describe('traces', () => {
  it('traces every function with X-Ray, and grants "*" only to X-Ray’s two write actions, which take no other resource', () => {
    const fns = Object.values(resources).filter((r) => r.Type === 'AWS::Lambda::Function');
    expect(fns.length).toBeGreaterThan(0);
    for (const fn of fns) expect(fn.Properties.TracingConfig).toEqual({ Mode: 'Active' });
    const wildcard = Object.values(resources)
      .filter((r) => r.Type === 'AWS::IAM::Policy')
      .flatMap((p) => (p.Properties.PolicyDocument.Statement as Array<{ Action: string | string[]; Resource: unknown }>).filter((s) => s.Resource === '*'))
      .flatMap((s) => (Array.isArray(s.Action) ? s.Action : [s.Action]));
    expect(new Set(wildcard)).toEqual(new Set(['xray:PutTraceSegments', 'xray:PutTelemetryRecords']));
  });
});
