// Queue consumers and the needs the current manifest does not use yet (SES, scheduler, bucket,
// sendTo): the stack is built from the manifest plus consumer entries shaped like the ones later
// issues add, so these paths are proven before the real consumers land.
import { App, CfnResource, Stack } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import type { IConstruct } from 'constructs';
import { AwsSolutionsChecks } from 'cdk-nag';
import { beforeAll, describe, expect, it } from 'vitest';
import { testApp } from '../support/cdk';
import { functions } from '../../functions/manifest';
import { queues, type FunctionDef } from '../../shared/platform';
import { AppStack } from '../../lib/app-stack';
import { envNames } from '../../shared/runtime/env-names';

// Entries must point at an existing file even when bundling is skipped; reuse a manifest entry.
const existingEntry = functions[0]!.entry;

const sender: FunctionDef = {
  name: 'send-message',
  entry: existingEntry,
  handler: 'handler',
  queue: 'send',
  needs: { table: 'readwrite', sendTo: ['webhooks'], sesSend: true, scheduler: true, bucket: 'readwrite' },
  memoryMb: 512,
  timeoutSeconds: 30,
};
const ingester: FunctionDef = {
  name: 'ingest-ses-event',
  entry: existingEntry,
  handler: 'handler',
  queue: 'ses-events',
  needs: { table: 'read', bucket: 'read' },
  memoryMb: 256,
  timeoutSeconds: 30,
};

function build(defs: readonly FunctionDef[]) {
  const app = testApp();
  const stack = new AppStack(app, 'Postbox-consumers', { stage: 'test', functions: defs });
  return { app, stack };
}

let stack: AppStack;
let template: Template;

beforeAll(() => {
  ({ stack } = build([...functions, sender, ingester]));
  template = Template.fromStack(stack);
});

const logicalId = (construct: IConstruct): string =>
  Stack.of(stack).getLogicalId((CfnResource.isCfnResource(construct) ? construct : construct.node.defaultChild) as CfnResource);

function statementsOf(name: string): Array<{ Action: string | string[]; Resource: unknown }> {
  const roleId = logicalId(stack.functions.get(name)!.role);
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .filter((policy) => JSON.stringify(policy.Properties.Roles).includes(`"${roleId}"`))
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

const actionsOf = (name: string): string[] => statementsOf(name).flatMap((statement) => [statement.Action].flat());

describe('queue consumers', () => {
  it.each([sender, ingester].map((def) => [def.name, def] as const))(
    '%s consumes its queue with the manifest batch settings and partial batch failures',
    (_, def) => {
      // Prepare
      const queueDef = queues.find((candidate) => candidate.name === def.queue)!;

      // Act
      const mappings = Object.values(
        template.findResources('AWS::Lambda::EventSourceMapping', {
          Properties: { FunctionName: { Ref: logicalId(stack.functions.get(def.name)!.fn) } },
        }),
      );

      // Assess
      expect(mappings).toHaveLength(1);
      expect(mappings[0]!.Properties).toMatchObject({
        EventSourceArn: { 'Fn::GetAtt': [logicalId(stack.shared.queues.queue(def.queue!)), 'Arn'] },
        BatchSize: queueDef.batchSize,
        FunctionResponseTypes: ['ReportBatchItemFailures'],
      });
      expect(mappings[0]!.Properties.MaximumBatchingWindowInSeconds ?? 0).toBe(queueDef.maxBatchingWindowSeconds);
      expect(actionsOf(def.name)).toEqual(expect.arrayContaining(['sqs:ReceiveMessage', 'sqs:DeleteMessage']));
    },
  );

  it('reports batch item failures on every event source mapping', () => {
    template.allResourcesProperties('AWS::Lambda::EventSourceMapping', { FunctionResponseTypes: ['ReportBatchItemFailures'] });
    template.resourceCountIs('AWS::Lambda::EventSourceMapping', functions.filter((f) => f.queue).length + 2);
  });

  it('refuses a consumer that may run longer than its queue hides a message', () => {
    // Prepare
    const slow: FunctionDef = { ...ingester, name: 'slow', timeoutSeconds: 900 };

    // Act
    const act = () => build([slow]);

    // Assess
    expect(act).toThrow(/visibility timeout/);
  });
});

describe('needs beyond the current manifest', () => {
  it('gives a sender SES, scheduler, queue and bucket access with the matching environment', () => {
    // Act
    const env = template.findResources('AWS::Lambda::Function')[logicalId(stack.functions.get(sender.name)!.fn)]!
      .Properties.Environment.Variables;
    const actions = actionsOf(sender.name);

    // Assess
    expect(actions).toEqual(
      expect.arrayContaining([
        'ses:SendEmail',
        'ses:SendRawEmail',
        'scheduler:CreateSchedule',
        'scheduler:DeleteSchedule',
        'iam:PassRole',
        'sqs:SendMessage',
        's3:GetObject',
        's3:PutObject',
        'dynamodb:PutItem',
      ]),
    );
    expect(env).toHaveProperty(envNames.sesConfigurationSet);
    expect(env).toHaveProperty(envNames.schedulerGroup);
    expect(env).toHaveProperty(envNames.schedulerRoleArn);
    expect(env).toHaveProperty(envNames.bucketName);
    expect(env).toHaveProperty(envNames.queueUrl('webhooks'));
    for (const queue of queues) expect(env).toHaveProperty(envNames.queueArn(queue.name));
  });

  it('passes only the scheduler role, and only to schedules of its own group', () => {
    // Act
    const statements = statementsOf(sender.name);
    const passRole = statements.find((statement) => [statement.Action].flat().includes('iam:PassRole'))!;
    const schedules = statements.find((statement) => [statement.Action].flat().includes('scheduler:CreateSchedule'))!;

    // Assess
    expect(passRole.Resource).toEqual({ 'Fn::GetAtt': [logicalId(stack.shared.scheduler.role), 'Arn'] });
    expect(JSON.stringify(schedules.Resource)).toContain(logicalId(stack.shared.scheduler.group));
  });

  it('keeps a read-only consumer read-only', () => {
    // Act
    const actions = actionsOf(ingester.name);

    // Assess
    expect(actions).toEqual(expect.arrayContaining(['dynamodb:Query', 's3:GetObject']));
    expect(actions.filter((action) => /^(dynamodb|s3):.*(Put|Delete|Update|Write)/.test(action))).toEqual([]);
    expect(actions.filter((action) => /^(ses|scheduler|iam):|^sqs:SendMessage$/.test(action))).toEqual([]);
  });

  it('still has zero unacknowledged cdk-nag AwsSolutions findings', () => {
    // Act
    const report = new AwsSolutionsChecks().validateScope(stack);

    // Assess
    expect(report.violations.map((v) => `${v.ruleName} @ ${v.violatingResources.map((r) => r.constructPath).join(', ')}`)).toEqual([]);
    expect(report.success).toBe(true);
  });
});
