// Turns a manifest entry's `needs` into least-privilege IAM statements and the environment
// variables its config reads. A function gets exactly what `needs` lists: no table, queue, secret,
// SES, scheduler or bucket access otherwise (queue consumers get receive rights from their
// event source, not from here).
import * as iam from 'aws-cdk-lib/aws-iam';
import { type Needs } from '../../shared/platform';
import { envNames } from '../../shared/runtime/env-names';
import type { DataTable } from './data-table';
import { TRACKING_CHOICES, type MailEvents } from './mail-events';
import type { ManifestFunction } from './manifest-function';
import { acknowledge, wildcardResourceFinding } from './nag';
import type { Queues } from './queues';
import type { SchedulerGroup } from './scheduler';
import type { AppSecrets } from './secrets';
import type { Storage } from './storage';

export interface SharedResources {
  table: DataTable;
  queues: Queues;
  secrets: AppSecrets;
  mail: MailEvents;
  scheduler: SchedulerGroup;
  storage: Storage;
}

// Explicit actions rather than grantReadData(): no Scan (lists are Query) and no index/* wildcard.
const TABLE_READ = ['dynamodb:GetItem', 'dynamodb:BatchGetItem', 'dynamodb:Query', 'dynamodb:ConditionCheckItem'];
const TABLE_WRITE = ['dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:DeleteItem', 'dynamodb:BatchWriteItem'];
const BUCKET_READ = ['s3:GetObject'];
const BUCKET_WRITE = ['s3:PutObject', 's3:DeleteObject', 's3:AbortMultipartUpload'];

export function grantNeeds(target: ManifestFunction, needs: Needs, shared: SharedResources): void {
  if (needs.table) grantTable(target, needs.table, shared.table);
  for (const name of needs.sendTo ?? []) {
    const queue = shared.queues.queue(name);
    queue.grantSendMessages(target.role);
    target.addEnvironment(envNames.queueUrl(name), queue.queueUrl);
    target.addEnvironment(envNames.queueArn(name), queue.queueArn);
  }
  for (const name of needs.secrets ?? []) {
    const secret = shared.secrets.secret(name);
    secret.grantRead(target.role);
    target.addEnvironment(envNames.secretArn(name), secret.secretArn);
  }
  if (needs.sesSend) grantSesSend(target, shared.mail);
  if (needs.sesIdentities) grantSesIdentities(target, shared.mail);
  if (needs.scheduler) grantScheduler(target, shared);
  if (needs.bucket) grantBucket(target, needs.bucket, shared.storage);
  if (needs.deadLetters) grantDeadLetters(target, shared.queues);
}

/**
 * The staff dead-letter routes: look at and take messages off every DLQ (receive, delete, make
 * visible again, its depth), and put them back on their source queue (send). Nothing else.
 */
function grantDeadLetters(target: ManifestFunction, queues: Queues): void {
  for (const [name, queue] of queues.entries()) {
    const dlq = queues.deadLetterQueue(name);
    target.role.addToPrincipalPolicy(
      new iam.PolicyStatement({
        actions: ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:ChangeMessageVisibility', 'sqs:GetQueueAttributes'],
        resources: [dlq.queueArn],
      }),
    );
    queue.grantSendMessages(target.role);
    target.addEnvironment(envNames.dlqUrl(name), dlq.queueUrl);
    target.addEnvironment(envNames.queueUrl(name), queue.queueUrl);
  }
}

function grantTable(target: ManifestFunction, access: 'read' | 'readwrite', table: DataTable): void {
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: access === 'readwrite' ? [...TABLE_READ, ...TABLE_WRITE] : TABLE_READ,
      resources: [table.table.tableArn, ...table.indexArns],
    }),
  );
  target.addEnvironment(envNames.tableName, table.table.tableName);
}

function grantSesSend(target: ManifestFunction, mail: MailEvents): void {
  const identities = mail.identitiesArn;
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['ses:SendEmail', 'ses:SendRawEmail'],
      resources: [identities, mail.configurationSetArn, ...TRACKING_CHOICES.map((choice) => mail.trackedConfigurationSetArn(choice))],
    }),
  );
  target.addEnvironment(envNames.sesConfigurationSet, mail.configurationSetName);
  target.addEnvironment(envNames.sesTrackedConfigurationSet, mail.trackedConfigurationSetName('both'));
  target.addEnvironment(envNames.sesOpensConfigurationSet, mail.trackedConfigurationSetName('opens'));
  target.addEnvironment(envNames.sesClicksConfigurationSet, mail.trackedConfigurationSetName('clicks'));
  acknowledge(
    target,
    wildcardResourceFinding(target, identities),
    'Sending identities are the domains customers verify at runtime through the API, so they cannot be listed at deploy time; the configuration sets are named exactly.',
  );
}

function grantSesIdentities(target: ManifestFunction, mail: MailEvents): void {
  const identities = mail.identitiesArn;
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['ses:CreateEmailIdentity', 'ses:DeleteEmailIdentity', 'ses:GetEmailIdentity', 'ses:PutEmailIdentityMailFromAttributes'],
      resources: [identities],
    }),
  );
  acknowledge(
    target,
    wildcardResourceFinding(target, identities),
    'Customers register their sending domains through the API at runtime, so the identities cannot be named at deploy time; the grant covers identity management only, not sending.',
  );
}

function grantScheduler(target: ManifestFunction, shared: SharedResources): void {
  const { scheduler } = shared;
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: ['scheduler:CreateSchedule', 'scheduler:DeleteSchedule'],
      resources: [scheduler.schedulesArn],
    }),
  );
  scheduler.role.grantPassRole(target.role);
  target.addEnvironment(envNames.schedulerGroup, scheduler.groupName);
  target.addEnvironment(envNames.schedulerRoleArn, scheduler.role.roleArn);
  // Schedules target queues by ARN.
  for (const [name, queue] of shared.queues.entries()) {
    target.addEnvironment(envNames.queueArn(name), queue.queueArn);
  }
  acknowledge(
    target,
    wildcardResourceFinding(target, scheduler.schedulesArn),
    "Schedule names are generated per scheduled send or webhook retry at runtime; the wildcard covers only schedules inside this stack's own schedule group.",
  );
}

function grantBucket(target: ManifestFunction, access: 'read' | 'readwrite', storage: Storage): void {
  const objects = storage.bucket.arnForObjects('*');
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({
      actions: access === 'readwrite' ? [...BUCKET_READ, ...BUCKET_WRITE] : BUCKET_READ,
      resources: [objects],
    }),
  );
  // ListBucket lets a missing key surface as NoSuchKey (404) instead of AccessDenied.
  target.role.addToPrincipalPolicy(
    new iam.PolicyStatement({ actions: ['s3:ListBucket'], resources: [storage.bucket.bucketArn] }),
  );
  target.addEnvironment(envNames.bucketName, storage.bucket.bucketName);
  acknowledge(
    target,
    wildcardResourceFinding(target, objects),
    'Object keys (large message content, BIMI logos, later raw inbound mail and uploads) are generated per item at runtime; access is limited to objects of this one bucket.',
  );
}
