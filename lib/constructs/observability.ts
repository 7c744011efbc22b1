// Alarms and the dashboard (issue 32). Every alarm notifies one SNS topic (KMS-encrypted, TLS only),
// which mails the operator when `-c alarmEmail=…` names an address. What is watched: the queues'
// dead letters and the age of their oldest message, each function's errors and throttles, the HTTP
// API's 5xx share and p99 latency, and SES's account-wide bounce and complaint rates.
//
// CloudFormation's budget: the stack keeps within STACK_RESOURCE_BUDGET (lib/app-stack.ts), and
// one alarm per function and metric would be 74 alarms. So each kind of failure is one alarm over
// metric math across its members, at most 10 metrics per alarm (CloudWatch's hard limit): the
// functions' errors and throttles in groups of 10, every DLQ in one, every queue's age in one.
// Which member fired is on the dashboard (./dashboard.ts), which graphs each member on its own.
import { ArnFormat, Duration, RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as actions from 'aws-cdk-lib/aws-cloudwatch-actions';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as subscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import type { QueueDef } from '../../shared/platform';
import type { Api } from './api';
import { Dashboard } from './dashboard';
import type { Queues } from './queues';

/**
 * CDK context key of the address alarms are mailed to (`cdk deploy -c alarmEmail=ops@example.com`,
 * or cdk.json). SNS mails the address a link to confirm first; without it, no subscription is made
 * and the topic (output AlarmTopic) takes whatever the operator subscribes.
 */
export const ALARM_EMAIL_CONTEXT = 'alarmEmail';

/** CloudWatch's hard limit on the metrics one metric-math alarm may read. */
export const MAX_METRICS_PER_ALARM = 10;
const PERIOD = Duration.minutes(5);

/**
 * The levels, chosen once here. SES reviews an account at a 5% bounce or 0.1% complaint rate; the
 * alarms ring below, at the levels at which shared/billing/reputation warns a single tenant (4%, 0.08%).
 */
export const thresholds = {
  sesBounceRate: 0.04,
  sesComplaintRate: 0.0008,
  /** Percent of the API's requests answered 5xx in five minutes, once it served at least `apiMinRequests`. */
  api5xxPercent: 5,
  apiMinRequests: 20,
  /** p99 of the API's latency, for three five-minute periods in a row. */
  apiP99LatencyMs: 3000,
} as const;

/**
 * How old a queue's oldest message may grow: the time a message can spend being retried before it
 * is dead-lettered (visibility timeout × receives). Older than that, it is not retrying; it waits
 * for a consumer that does not come, or behind a backlog the consumers do not clear.
 */
export const queueAgeLimitSeconds = (def: QueueDef): number => def.visibilityTimeoutSeconds * def.maxReceiveCount;

export interface ObservabilityProps {
  stage: string;
  queues: Queues;
  /** Manifest name → the function. */
  functions: ReadonlyArray<{ name: string; fn: lambda.IFunction }>;
  api: Api;
}

export class Observability extends Construct {
  readonly topic: sns.Topic;
  readonly alarms: cloudwatch.Alarm[] = [];
  readonly dashboard: Dashboard;
  private readonly action: actions.SnsAction;

  constructor(scope: Construct, id: string, props: ObservabilityProps) {
    super(scope, id);
    this.topic = alarmTopic(this);
    const email = alarmEmailFromContext(this);
    if (email) this.topic.addSubscription(new subscriptions.EmailSubscription(email));
    this.action = new actions.SnsAction(this.topic);

    this.watchQueues(props.queues);
    this.watchFunctions(props.functions);
    this.watchApi(props.api);
    this.watchSes();
    this.dashboard = new Dashboard(this, 'Dashboard', { stage: props.stage, queues: props.queues, api: props.api, alarms: this.alarms });
  }

  private watchQueues(queues: Queues): void {
    const entries = queues.entries();
    const dlqs = entries.map(([name, queue]) => ({ name, queue: deadLetterQueueOf(name, queue) }));
    for (const [i, group] of groupsOf(dlqs).entries()) {
      const metrics = group.map(({ queue }) => queue.metricApproximateNumberOfMessagesVisible({ statistic: 'Maximum', period: PERIOD }));
      this.alarm(`DeadLetters${suffix(i)}`, {
        metric: overAll('MAX', metrics, 'messages in the fullest dead-letter queue'),
        threshold: 0,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        alarmDescription: `A dead-letter queue holds messages (the DLQ of ${names(group)}): work that failed every retry, waiting to be looked at and replayed.`,
      });
    }
    const aged = entries.map(([name, queue]) => ({ name, queue, limit: queueAgeLimitSeconds(queues.definition(name)) }));
    for (const [i, group] of groupsOf(aged).entries()) {
      const usingMetrics = Object.fromEntries(group.map(({ queue }, j) => [`m${j}`, queue.metricApproximateAgeOfOldestMessage({ statistic: 'Maximum', period: PERIOD })]));
      this.alarm(`QueueAge${suffix(i)}`, {
        metric: new cloudwatch.MathExpression({
          expression: `MAX([${group.map(({ limit }, j) => `m${j} / ${limit}`).join(', ')}])`,
          usingMetrics,
          label: "oldest message's age ÷ its queue's limit",
          period: PERIOD,
        }),
        threshold: 1,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        alarmDescription: `A queue's oldest message is older than the queue's limit (${group.map(({ name, limit }) => `${name} ${limit / 60} min`).join(', ')}): its consumer is not keeping up or not running.`,
      });
    }
  }

  private watchFunctions(functions: ObservabilityProps['functions']): void {
    const kinds = [
      { id: 'FunctionErrors', what: 'errors', metric: (fn: lambda.IFunction) => fn.metricErrors({ statistic: 'Sum', period: PERIOD }), why: 'an invocation failed (an uncaught error or a timeout)' },
      { id: 'FunctionThrottles', what: 'throttles', metric: (fn: lambda.IFunction) => fn.metricThrottles({ statistic: 'Sum', period: PERIOD }), why: 'Lambda refused an invocation for want of concurrency' },
    ];
    for (const kind of kinds) {
      for (const [i, group] of groupsOf(functions).entries()) {
        this.alarm(`${kind.id}${i + 1}`, {
          metric: overAll('SUM', group.map(({ fn }) => kind.metric(fn)), `${kind.what} of ${group.length} functions`),
          threshold: 1,
          comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
          alarmDescription: `Function ${kind.what}: ${kind.why} in one of ${names(group)}.`,
        });
      }
    }
  }

  private watchApi(api: Api): void {
    this.alarm('Api5xx', {
      metric: new cloudwatch.MathExpression({
        expression: `IF(requests >= ${thresholds.apiMinRequests}, 100 * errors / requests, 0)`,
        usingMetrics: { errors: api.stage.metricServerError({ statistic: 'Sum', period: PERIOD }), requests: api.stage.metricCount({ statistic: 'Sum', period: PERIOD }) },
        label: '5xx answers, % of requests',
        period: PERIOD,
      }),
      threshold: thresholds.api5xxPercent,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      alarmDescription: `The HTTP API answered ${thresholds.api5xxPercent}% or more of its requests with a 5xx in five minutes (with at least ${thresholds.apiMinRequests} requests).`,
    });
    this.alarm('ApiLatency', {
      metric: api.stage.metricLatency({ statistic: 'p99', period: PERIOD }),
      threshold: thresholds.apiP99LatencyMs,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 3,
      alarmDescription: `The HTTP API's p99 latency stayed at ${thresholds.apiP99LatencyMs} ms or more for 15 minutes.`,
    });
  }

  /** Account-wide: every tenant sends through the one SES account, which SES judges as a whole. */
  private watchSes(): void {
    const rates = [
      { id: 'SesBounceRate', metricName: 'Reputation.BounceRate', threshold: thresholds.sesBounceRate, what: 'bounce', review: '5%' },
      { id: 'SesComplaintRate', metricName: 'Reputation.ComplaintRate', threshold: thresholds.sesComplaintRate, what: 'complaint', review: '0.1%' },
    ];
    for (const rate of rates) {
      this.alarm(rate.id, {
        metric: new cloudwatch.Metric({ namespace: 'AWS/SES', metricName: rate.metricName, statistic: 'Maximum', period: Duration.hours(1) }),
        threshold: rate.threshold,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        alarmDescription: `SES's ${rate.what} rate for the account reached ${rate.threshold * 100}%; SES reviews the account at ${rate.review}. See GET /v1/admin/reputation for the tenants behind it.`,
      });
    }
  }

  private alarm(id: string, props: Omit<cloudwatch.AlarmProps, 'evaluationPeriods'> & { evaluationPeriods?: number }): void {
    const alarm = new cloudwatch.Alarm(this, id, {
      evaluationPeriods: 1,
      // No data is no trouble: an idle queue, function or API publishes nothing.
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      ...props,
    });
    alarm.addAlarmAction(this.action);
    alarm.addOkAction(this.action);
    this.alarms.push(alarm);
  }
}

/** The alarms' topic: encrypted with a key of its own, which CloudWatch may use to publish. */
function alarmTopic(scope: Construct): sns.Topic {
  const stack = Stack.of(scope);
  // Destroyed with the stack (after KMS's waiting period): it encrypts nothing kept, only notifications in flight.
  const key = new kms.Key(scope, 'TopicKey', { description: `Postbox alarms topic (${stack.stackName})`, enableKeyRotation: true, removalPolicy: RemovalPolicy.DESTROY });
  // SNS's AWS-managed key cannot be used by CloudWatch; this key's policy lets it encrypt what it publishes.
  key.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowCloudWatchAlarmsToPublish',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
      resources: ['*'],
    }),
  );
  const topic = new sns.Topic(scope, 'Topic', { displayName: `Postbox alarms (${stack.stackName})`, masterKey: key, enforceSSL: true });
  topic.addToResourcePolicy(
    new iam.PolicyStatement({
      sid: 'AllowThisAccountsAlarms',
      principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
      actions: ['sns:Publish'],
      resources: [topic.topicArn],
      conditions: {
        StringEquals: { 'aws:SourceAccount': stack.account },
        ArnLike: { 'aws:SourceArn': stack.formatArn({ service: 'cloudwatch', resource: 'alarm', resourceName: '*', arnFormat: ArnFormat.COLON_RESOURCE_NAME }) },
      },
    }),
  );
  return topic;
}

/** The `alarmEmail` context: undefined when unset or empty; a synth error when it is no address. */
function alarmEmailFromContext(scope: Construct): string | undefined {
  const raw: unknown = scope.node.tryGetContext(ALARM_EMAIL_CONTEXT);
  if (raw === undefined || raw === '') return undefined;
  if (typeof raw !== 'string' || !/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(raw)) throw new Error(`context ${ALARM_EMAIL_CONTEXT} must be an email address; got ${String(raw)}`);
  return raw;
}

function deadLetterQueueOf(name: string, queue: sqs.Queue): sqs.IQueue {
  const dlq = queue.deadLetterQueue?.queue;
  if (!dlq) throw new Error(`Queue "${name}" has no dead-letter queue to watch`);
  return dlq;
}

/** One metric-math series over several metrics: their SUM or their MAX, period by period. */
function overAll(kind: 'SUM' | 'MAX', metrics: readonly cloudwatch.IMetric[], label: string): cloudwatch.MathExpression {
  const usingMetrics = Object.fromEntries(metrics.map((metric, i) => [`m${i}`, metric]));
  return new cloudwatch.MathExpression({ expression: `${kind}([${Object.keys(usingMetrics).join(', ')}])`, usingMetrics, label, period: PERIOD });
}

/** Members in groups one alarm can read. */
export function groupsOf<T>(items: readonly T[], size = MAX_METRICS_PER_ALARM): T[][] {
  const groups: T[][] = [];
  for (let i = 0; i < items.length; i += size) groups.push(items.slice(i, i + size));
  return groups;
}

const names = (group: ReadonlyArray<{ name: string }>): string => group.map(({ name }) => name).join(', ');
/** The first group's alarm keeps the plain id; while there are 10 queues or fewer, there is one. */
const suffix = (i: number): string => (i === 0 ? '' : String(i + 1));
