// The stand-ins the functions call behind their own endpoints (Secrets Manager, EventBridge
// Scheduler with what its firings reach, the S3 buckets' front), and SES receiving, which plays
// the receipt rules' S3 actions for an arriving message.
import { PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { randomUUID } from 'node:crypto';
import { receivedNotification } from '../local/smtp-listener';
import type { Authorize, AwsCall } from './aws-front';
import type { Fronts, Publishing } from './fronts';
import { bucketPolicies, playReceipt, readReceiptRules, topicPolicies, type ReceivedMail, type ReceiptRuleS3Action } from './receiving';
import { attempt, type Build } from './resources';
import type { Rehearsal } from './rehearsal-types';
import { startS3StandIn, type S3StandIn } from './s3';
import { sqsTarget, startScheduler, type SchedulerStandIn } from './scheduler';
import { startSecretsManager, type SecretsManagerStandIn, type StoredSecret } from './secrets';
import { ADMIN_KEY, DUMMY_SECRET_KEY, SES_CONTEXT, SES_KEY, type Stage } from './stage';
import { REHEARSAL_REGION, resourcesOfType } from './template';

export interface StandIns {
  secretsManager: SecretsManagerStandIn;
  scheduler: SchedulerStandIn;
  s3: S3StandIn;
  /** The template's buckets, by name. */
  buckets: string[];
}

/** What Scheduler's firings reach: the template's roles and queues, and the SQS front as the assumed role. */
function schedulerTargets(stage: Stage, build: Build, fronts: Fronts): Parameters<typeof sqsTarget>[0] {
  const { template, physical } = stage;
  const senders = new Map<string, SQSClient>();
  return {
    checkTrust: stage.options.iam !== false,
    role: (arn) => {
      const id = [...physical.entries()].find(([rid, p]) => template.Resources[rid]?.Type === 'AWS::IAM::Role' && p.attributes.Arn === arn)?.[0];
      return id ? { logicalId: id, trustPolicy: build.resolver.resolve(template.Resources[id]!.Properties?.AssumeRolePolicyDocument, `${id}.AssumeRolePolicyDocument`) } : undefined;
    },
    queueUrl: (arn) => [...physical.values()].find((p) => p.attributes.QueueUrl && p.attributes.Arn === arn)?.ref,
    send: async (roleId, queueUrl, body, groupId) => {
      let client = senders.get(roleId);
      if (!client) senders.set(roleId, (client = new SQSClient({ region: REHEARSAL_REGION, endpoint: fronts.sqs.endpoint, credentials: { accessKeyId: stage.keyOfRole.get(roleId)!, secretAccessKey: DUMMY_SECRET_KEY } })));
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body, ...(groupId ? { MessageGroupId: groupId } : {}) }));
    },
  };
}

export async function startStandIns(stage: Stage, build: Build, authorize: Authorize, fronts: Fronts, secrets: StoredSecret[]): Promise<StandIns> {
  const { template, physical, closers } = stage;
  /** A stand-in's call, checked and recorded as the fronts do. */
  const checked = (call: AwsCall): string | undefined => {
    const denied = authorize(call);
    stage.record({ ...call, ...(denied ? { denied } : {}) });
    return denied;
  };
  const secretsManager = await startSecretsManager(secrets, ({ action, resource, accessKeyId }) =>
    checked({ service: 'secretsmanager', operation: action.split(':')[1]!, checks: [{ action, resource }], accessKeyId }),
  );
  closers.push(() => secretsManager.close());
  const scheduler = await startScheduler({
    groups: resourcesOfType(template, 'AWS::Scheduler::ScheduleGroup').map(([id]) => ({ name: physical.get(id)!.ref, arn: physical.get(id)!.attributes.Arn! })),
    authorize: checked,
    invokeTarget: sqsTarget(schedulerTargets(stage, build, fronts)),
    onFailure: (firing) => stage.errors.push(`${firing.scheduleArn}: Scheduler could not deliver to ${firing.targetArn}: ${firing.error}`),
    tickMs: stage.options.schedulerTickMs,
  });
  closers.push(() => scheduler.close());
  // The buckets, in s3rver, each caller's key known to it; the front checks every call.
  const buckets = resourcesOfType(template, 'AWS::S3::Bucket').map(([id]) => physical.get(id)!.ref);
  const s3: S3StandIn = await startS3StandIn({
    buckets,
    accessKeys: [ADMIN_KEY, SES_KEY, ...stage.keyOfRole.values()].map((accessKeyId) => ({ accessKeyId, secretAccessKey: DUMMY_SECRET_KEY })),
    authorize,
    record: stage.record,
  });
  closers.push(() => s3.close());
  return { secretsManager, scheduler, s3, buckets };
}

/** SES receiving: the receipt rules' S3 actions (checked against the template), and what SES does with an arriving message. */
export function sesReceiving(stage: Stage, build: Build, standIns: StandIns, publishing: Publishing): Pick<Rehearsal, 'receiptRules' | 'received' | 'receiveMail'> {
  const { template, problems } = stage;
  const { resolver } = build;
  const receiptRules: ReceiptRuleS3Action[] = attempt(build, () => readReceiptRules(template, resolver)) ?? [];
  for (const rule of receiptRules) {
    if (!standIns.buckets.includes(rule.bucket)) problems.push(`${rule.ruleLogicalId}: its S3 action names the bucket ${rule.bucket}, which is no bucket of the template`);
    if (rule.topicArn && !publishing.hasSubscription(rule.topicArn)) problems.push(`${rule.ruleLogicalId}: its topic ${rule.topicArn} has no subscription: SES's notifications would reach nothing`);
  }
  const received: ReceivedMail[] = [];
  const sesWriter = new S3Client({ region: REHEARSAL_REGION, endpoint: standIns.s3.endpoint, forcePathStyle: true, credentials: { accessKeyId: SES_KEY, secretAccessKey: DUMMY_SECRET_KEY }, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
  stage.closers.push(async () => sesWriter.destroy());
  const receiveMail = async (mail: { from: string; to: string[]; raw: string | Buffer }): Promise<ReceivedMail> => {
    const outcome = await playReceipt(
      {
        rules: receiptRules,
        bucketPolicies: (bucket) => bucketPolicies(template, resolver, bucket),
        topicPolicies: (topicArn) => topicPolicies(template, resolver, topicArn),
        putObject: async (bucket, key, body) => void (await sesWriter.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: body, ContentType: 'message/rfc822' }))),
        publish: publishing.publish,
        notification: ({ sesMessageId, timestamp, source, recipients, bucket, objectKey, topicArn }) => {
          // SES has no scanner to play: every verdict GRAY. Its action names the topic it notified, too.
          const built = receivedNotification({ timestamp, source, sesMessageId, recipients, verdicts: { spf: 'GRAY', dkim: 'GRAY', dmarc: 'GRAY' }, bucketName: bucket, objectKey });
          return { ...built, receipt: { ...built.receipt, action: { ...built.receipt.action, topicArn } } };
        },
        context: SES_CONTEXT,
      },
      { sesMessageId: randomUUID().replace(/-/g, '').slice(0, 20), from: mail.from, to: mail.to, raw: Buffer.from(mail.raw) },
    );
    for (const refusal of outcome.refused) stage.errors.push(`SES receiving: ${refusal}`);
    received.push(outcome);
    return outcome;
  };
  return { receiptRules, received, receiveMail };
}
