// SES receiving in the stack: with `inbound` and an inbound queue, a receipt rule set whose rule
// stores each message in the data bucket (bucket policy: SES may put under the prefix, for this
// account only) and notifies the inbound queue through SNS; without the flag, or before the
// inbound queue exists, none of it. cdk-nag stays clean with it.
import { Template, Match } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { describe, expect, it } from 'vitest';
import { AppStack } from '../../lib/app-stack';
import { INBOUND_RAW_PREFIX } from '../../lib/constructs/inbound';
import { queues, type QueueDef, type QueueName } from '../../shared/platform';
import { testApp } from '../support/cdk';

// The inbound worker's queue: shared/platform.ts's once it is defined there; until then a stand-in
// (cast, as the name is not a QueueName yet).
const isInbound = (q: QueueDef): boolean => (q.name as string) === 'inbound';
const withInbound: readonly QueueDef[] = queues.some(isInbound) ? queues : [...queues, { ...queues[0]!, name: 'inbound' as QueueName, summary: 'received mail' }];
const withoutInbound: readonly QueueDef[] = queues.filter((q) => !isInbound(q));

function synth(props: { inbound?: boolean; withQueue?: boolean }): { stack: AppStack; template: Template } {
  const app = testApp();
  const stack = new AppStack(app, 'Postbox-inbound', { stage: 'test', inbound: props.inbound, queues: props.withQueue ? withInbound : withoutInbound });
  return { stack, template: Template.fromStack(stack) };
}

const functionEnvs = (template: Template): Array<Record<string, unknown>> =>
  Object.values(template.findResources('AWS::Lambda::Function')).map((f) => (f.Properties.Environment?.Variables ?? {}) as Record<string, unknown>);

describe('inbound mail (CDK)', () => {
  const { stack, template } = synth({ inbound: true, withQueue: true });

  it('makes a receipt rule set with one rule storing to S3 under the prefix and notifying SNS', () => {
    template.resourceCountIs('AWS::SES::ReceiptRuleSet', 1);
    template.resourceCountIs('AWS::SES::ReceiptRule', 1);
    template.hasResourceProperties('AWS::SES::ReceiptRule', {
      Rule: Match.objectLike({
        Enabled: true,
        ScanEnabled: true,
        Actions: [
          {
            S3Action: {
              BucketName: { Ref: stack.getLogicalId(stack.shared.storage.bucket.node.defaultChild as never) },
              ObjectKeyPrefix: INBOUND_RAW_PREFIX,
              TopicArn: { Ref: stack.getLogicalId(stack.inbound!.topic.node.defaultChild as never) },
            },
          },
        ],
      }),
    });
  });

  it('lets SES put objects under the prefix only, for this account only', () => {
    const policies = Object.values(template.findResources('AWS::S3::BucketPolicy')).flatMap((p) => p.Properties.PolicyDocument.Statement as Array<Record<string, any>>);
    const ses = policies.filter((s) => JSON.stringify(s.Principal ?? {}).includes('ses.amazonaws.com'));
    expect(ses).toHaveLength(1);
    expect(ses[0]).toMatchObject({ Effect: 'Allow', Action: 's3:PutObject', Condition: { StringEquals: { 'aws:SourceAccount': { Ref: 'AWS::AccountId' } } } });
    expect(JSON.stringify(ses[0]!.Resource)).toContain(`/${INBOUND_RAW_PREFIX}*`);
  });

  it("subscribes the inbound queue to the topic, which only this account's SES may publish to", () => {
    const queueId = stack.getLogicalId(stack.shared.queues.queue('inbound' as QueueName).node.defaultChild as never);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'sqs', Endpoint: { 'Fn::GetAtt': [queueId, 'Arn'] }, TopicArn: { Ref: stack.getLogicalId(stack.inbound!.topic.node.defaultChild as never) } });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: Match.objectLike({
        Statement: Match.arrayWith([Match.objectLike({ Sid: 'AllowSesReceiptNotifications', Principal: { Service: 'ses.amazonaws.com' }, Condition: { StringEquals: { 'AWS:SourceAccount': { Ref: 'AWS::AccountId' } } } })]),
      }),
    });
  });

  it('turns the inbound routes on in the functions', () => {
    expect(functionEnvs(template).every((env) => env.INBOUND_ENABLED === 'true')).toBe(true);
  });

  it('passes cdk-nag AwsSolutions', () => {
    const report = new AwsSolutionsChecks(stack.node.root as never).validateScope(stack);
    expect(report.violations.map((v) => `${v.ruleName} @ ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
  });

  // The inbound worker consumes the inbound queue, so a stack always has it now: only the flag decides.
  it('makes no receipt rules without the flag', () => {
    for (const props of [{ inbound: false, withQueue: true }, { withQueue: true }]) {
      const { stack: other, template: t } = synth(props);
      t.resourceCountIs('AWS::SES::ReceiptRuleSet', 0);
      t.resourceCountIs('AWS::SES::ReceiptRule', 0);
      expect(other.inbound).toBeUndefined();
      expect(functionEnvs(t).some((env) => 'INBOUND_ENABLED' in env)).toBe(false);
    }
  });
});
