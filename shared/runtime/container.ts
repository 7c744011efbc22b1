// The composition root: builds the adapter set once per cold start from validated config.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { S3Client } from '@aws-sdk/client-s3';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { EventBridgeScheduler } from '../adapters/aws/event-bridge-scheduler';
import { loadSecrets, staticSecrets } from '../adapters/aws/secrets-manager';
import { S3ObjectStore } from '../adapters/aws/s3-object-store';
import { SesIdentities } from '../adapters/aws/ses-identities';
import { SesMailer } from '../adapters/aws/ses-mailer';
import { FileObjectStore } from '../adapters/local/file-object-store';
import { LocalIdentities } from '../adapters/local/local-identities';
import { SqsQueue } from '../adapters/aws/sqs-queue';
import { GuardedHttp } from '../adapters/guarded-http';
import { NodeDns } from '../adapters/node-dns';
import { StoreScheduler } from '../adapters/local/store-scheduler';
import { Store } from '../db/store';
import { ulidIds, type Ids } from '../ids';
import { systemClock, type Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import type { HttpClient } from '../ports/http-client';
import type { SendingIdentities } from '../ports/identities';
import type { ObjectStore } from '../ports/object-store';
import type { Mailer } from '../ports/mailer';
import type { Queue } from '../ports/queue';
import { systemRandom, type Random } from '../ports/random';
import type { Scheduler } from '../ports/scheduler';
import type { Secrets } from '../ports/secrets';
import { readAwsConfig, type RuntimeConfig } from './config';
import { createLogger, type Logger } from './logger';

export interface Container {
  config: RuntimeConfig;
  clock: Clock;
  ids: Ids;
  store: Store;
  queue: Queue;
  scheduler: Scheduler;
  secrets: Secrets;
  mailer: Mailer;
  identities: SendingIdentities;
  objects: ObjectStore;
  dns: Dns;
  http: HttpClient;
  random: Random;
  logger: Logger;
}

export interface ContainerOverrides {
  clock?: Clock;
  logger?: Logger;
}

export async function buildContainer(config: RuntimeConfig, overrides: ContainerOverrides = {}): Promise<Container> {
  const common = { region: config.region, credentials: config.credentials };
  const dynamo = new DynamoDBClient({ ...common, endpoint: config.endpoints.dynamodb, maxAttempts: 5 });
  const sqs = new SQSClient({ ...common, endpoint: config.endpoints.sqs });
  const store = new Store(dynamo, config.tableName);
  const clock = overrides.clock ?? systemClock;
  const scheduler: Scheduler =
    config.scheduler.kind === 'aws'
      ? new EventBridgeScheduler(new SchedulerClient(common), {
          groupName: config.scheduler.groupName,
          roleArn: config.scheduler.roleArn,
          queueArns: config.queueArns,
        })
      : new StoreScheduler(store);
  const ses = new SESv2Client({ ...common, endpoint: config.endpoints.ses });
  const secrets =
    config.secrets.kind === 'aws'
      ? await loadSecrets(new SecretsManagerClient(common), config.secrets.arns)
      : staticSecrets(config.secrets.values);
  return {
    config,
    clock,
    ids: ulidIds(clock),
    store,
    queue: new SqsQueue(sqs, config.queueUrls),
    scheduler,
    secrets,
    mailer: new SesMailer(ses, config.sesConfigurationSet),
    // The SES emulator has no identities: locally the tokens are generated.
    identities: config.runtime === 'aws' ? new SesIdentities(ses) : new LocalIdentities(),
    objects: config.objects.kind === 's3' ? new S3ObjectStore(new S3Client(common), config.objects.bucket) : new FileObjectStore(config.objects.root),
    dns: new NodeDns(config.dnsServers),
    http: new GuardedHttp({ allowPrivate: config.webhookAllowPrivate }),
    random: systemRandom,
    logger: overrides.logger ?? createLogger(config.logLevel),
  };
}

let current: Promise<Container> | undefined;

/** The container of this process: built from the Lambda environment unless one was installed. */
export function getContainer(): Promise<Container> {
  current ??= buildContainer(readAwsConfig()).catch((error: unknown) => {
    current = undefined; // a failed cold start must not poison the next invocation
    throw error;
  });
  return current;
}

/** The local runtime and tests install the container they built. */
export function installContainer(container: Container | Promise<Container>): void {
  current = Promise.resolve(container);
}
