// The one composition root. `buildContainer(config, replace)` builds the whole graph once per cold
// start; the Lambda entries (through getContainer), the local runtime and the tests all call it,
// and differ only in their config and in the ports they replace (the local runtime's SES
// feedback, the tests' recorders and fakes).
//
// A function bundle carries only the AWS adapters its manifest `needs` grant. lib/bundling.ts
// defines the POSTBOX_WITH_* flags from them; esbuild folds each flag test below to a constant,
// drops the dead branch, and with it the adapter and its SDK client, whose imports are then unused.
// The imports are static on purpose: a module reached through import() is kept whole inside a
// bundle (with every re-export of the SDK package behind it: all its commands, paginators and
// waiters), while a static import lets esbuild keep only what is used. Unbundled (npm start,
// tests) the flags are undefined and every adapter is available.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SchedulerClient } from '@aws-sdk/client-scheduler';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { EventBridgeScheduler } from '../adapters/aws/event-bridge-scheduler';
import { s3ClientConfig, S3ObjectStore } from '../adapters/aws/s3-object-store';
import { loadSecrets } from '../adapters/aws/secrets-manager';
import { SesIdentities } from '../adapters/aws/ses-identities';
import { SesMailer } from '../adapters/aws/ses-mailer';
import { SqsQueue } from '../adapters/aws/sqs-queue';
import { SqsDeadLetters } from '../adapters/aws/sqs-dead-letters';
import type { DeadLetterQueues } from '../ports/dead-letters';
import { FileObjectStore } from '../adapters/local/file-object-store';
import { LocalIdentities } from '../adapters/local/local-identities';
import { StoreScheduler } from '../adapters/local/store-scheduler';
import { stdoutEmfMetrics } from '../adapters/emf-metrics';
import { GuardedHttp } from '../adapters/guarded-http';
import { NodeDns } from '../adapters/node-dns';
import { staticSecrets } from '../adapters/static-secrets';
import { StripePayments } from '../adapters/stripe-payments';
import { Store } from '../db/store';
import type { TimelineListeners } from '../sending/messages/timeline';
import { timelineListeners } from './listeners';
import { ulidIds, type Ids } from '../ports/ids';
import { systemClock, type Clock } from '../ports/clock';
import type { Dns } from '../ports/dns';
import type { HttpClient } from '../ports/http-client';
import type { SendingIdentities } from '../ports/identities';
import type { Mailer } from '../ports/mailer';
import { noMetrics, type Metrics } from '../ports/metrics';
import type { ObjectStore } from '../ports/object-store';
import type { Payments } from '../ports/payments';
import type { Queue } from '../ports/queue';
import { systemRandom, type Random } from '../ports/random';
import type { Scheduler } from '../ports/scheduler';
import type { Secrets } from '../ports/secrets';
import { UNSET_SECRET, type SecretName } from '../platform';
import { readAwsConfig, type RuntimeConfig } from './config';
import { createLogger, type Logger } from '../adapters/logger';
import { powertoolsLogger } from '../adapters/aws/powertools-logger';

declare const POSTBOX_WITH_SQS: boolean | undefined;
declare const POSTBOX_WITH_SES: boolean | undefined;
declare const POSTBOX_WITH_DLQ: boolean | undefined;
declare const POSTBOX_WITH_SCHEDULER: boolean | undefined;
declare const POSTBOX_WITH_S3: boolean | undefined;
declare const POSTBOX_WITH_SECRETS_MANAGER: boolean | undefined;
declare const POSTBOX_WITH_STRIPE: boolean | undefined;

export interface Container {
  config: RuntimeConfig;
  clock: Clock;
  ids: Ids;
  store: Store;
  queue: Queue;
  /** The queues' DLQs (the staff dead-letter routes only). */
  deadLetters: DeadLetterQueues;
  scheduler: Scheduler;
  secrets: Secrets;
  mailer: Mailer;
  identities: SendingIdentities;
  objects: ObjectStore;
  dns: Dns;
  /** Outbound HTTP to customer URLs, behind the private-address guard. */
  http: HttpClient;
  random: Random;
  logger: Logger;
  /**
   * The service's counts (accepted, sent, delivered…): EMF lines on stdout in AWS, which CloudWatch
   * Logs turns into metrics; nothing in the local runtime, which has no CloudWatch to read them.
   */
  metrics: Metrics;
  /** Stripe; undefined where billing is not configured (no Stripe keys), answered 503 billing_not_configured. */
  payments?: Payments;
  /** What the areas above the timeline do with its events (shared/runtime/listeners.ts). */
  timeline: TimelineListeners;
}

/** Ports a runtime or a test puts in place of the ones the config would build. */
export type Replacements = Partial<Omit<Container, 'config' | 'ids' | 'timeline'>>;

/**
 * A port this function's bundle was built without (its manifest `needs` do not grant it). Using it
 * is a bug in the manifest or the code, said plainly instead of failing inside an SDK.
 */
function unavailable<T extends object>(port: string): T {
  return new Proxy({} as T, {
    get: (_target, property) => {
      if (property === 'then') return undefined; // not a thenable: awaiting the port must not call it
      throw new Error(`the ${port} port is not available to this function; its manifest needs do not grant it`);
    },
  });
}

/** An operator's secret (the Stripe keys, an OAuth client secret): undefined while it is missing or still the stack's placeholder. */
export function operatorSecret(from: Secrets, name: SecretName): string | undefined {
  try {
    const value = from.get(name);
    return value && value !== UNSET_SECRET ? value : undefined;
  } catch {
    return undefined; // not granted to this function, or not set locally
  }
}

type AwsClientConfig = { region: string; credentials: RuntimeConfig['credentials'] };

// Each adapter below is chosen by its build flag, tested inline in the form esbuild folds to a
// constant: through a variable the branch would stay alive and the adapter would stay in the bundle.

function queueOf(config: RuntimeConfig, aws: AwsClientConfig): Queue {
  if (typeof POSTBOX_WITH_SQS === 'undefined' || POSTBOX_WITH_SQS) {
    return new SqsQueue(new SQSClient({ ...aws, endpoint: config.endpoints.sqs }), config.queueUrls);
  }
  return unavailable('queue');
}

function deadLettersOf(config: RuntimeConfig, aws: AwsClientConfig): DeadLetterQueues {
  if (typeof POSTBOX_WITH_DLQ === 'undefined' || POSTBOX_WITH_DLQ) {
    return new SqsDeadLetters(new SQSClient({ ...aws, endpoint: config.endpoints.sqs }), { urls: config.queueUrls, dlqUrls: config.dlqUrls ?? {} });
  }
  return unavailable('deadLetters');
}

function schedulerOf(config: RuntimeConfig, aws: AwsClientConfig, store: Store): Scheduler {
  if (config.scheduler.kind === 'local') return new StoreScheduler(store);
  if (typeof POSTBOX_WITH_SCHEDULER === 'undefined' || POSTBOX_WITH_SCHEDULER) {
    const { groupName, roleArn } = config.scheduler;
    return new EventBridgeScheduler(new SchedulerClient(aws), { groupName, roleArn, queueArns: config.queueArns });
  }
  return unavailable('scheduler');
}

async function secretsOf(config: RuntimeConfig, aws: AwsClientConfig): Promise<Secrets> {
  if (config.secrets.kind === 'static') return staticSecrets(config.secrets.values);
  if (typeof POSTBOX_WITH_SECRETS_MANAGER === 'undefined' || POSTBOX_WITH_SECRETS_MANAGER) {
    return loadSecrets(new SecretsManagerClient(aws), config.secrets.arns);
  }
  return unavailable('secrets');
}

function sesOf(config: RuntimeConfig, aws: AwsClientConfig): { mailer: Mailer; identities: SendingIdentities } {
  if (typeof POSTBOX_WITH_SES === 'undefined' || POSTBOX_WITH_SES) {
    const client = new SESv2Client({ ...aws, endpoint: config.endpoints.ses });
    // The SES emulator has no identities: locally the tokens are generated.
    const identities = config.runtime === 'aws' ? new SesIdentities(client) : new LocalIdentities();
    return { mailer: new SesMailer(client, config.sesConfigurationSet, config.sesTrackedConfigurationSets), identities };
  }
  return { mailer: unavailable('mailer'), identities: unavailable('identities') };
}

function objectsOf(config: RuntimeConfig, aws: AwsClientConfig, clock: Clock): ObjectStore {
  if (config.objects.kind === 'files') {
    const { root, downloadKey } = config.objects;
    return new FileObjectStore(root, downloadKey ? { key: downloadKey, base: () => config.publicBaseUrl, now: () => clock.now().getTime() } : undefined);
  }
  if (typeof POSTBOX_WITH_S3 === 'undefined' || POSTBOX_WITH_S3) {
    // Locally (s3rver) and in tests the endpoint is the config's; in AWS none, and in the rehearsal
    // the SDK's own AWS_ENDPOINT_URL_S3.
    return new S3ObjectStore(new S3Client(s3ClientConfig(aws, config.endpoints.s3)), config.objects.bucket);
  }
  return unavailable('objects');
}

function paymentsOf(config: RuntimeConfig, from: Secrets): Payments | undefined {
  if (typeof POSTBOX_WITH_STRIPE === 'undefined' || POSTBOX_WITH_STRIPE) {
    const secretKey = operatorSecret(from, 'stripe-secret-key');
    const webhookSecret = operatorSecret(from, 'stripe-webhook-secret');
    if (!secretKey || !webhookSecret) return undefined;
    return new StripePayments({ secretKey, webhookSecret, apiBase: config.billing?.apiBase, ...(config.billing?.apiBase ? { maxNetworkRetries: 0 } : {}) });
  }
  return unavailable<Payments>('payments');
}

export async function buildContainer(config: RuntimeConfig, replace: Replacements = {}): Promise<Container> {
  const aws: AwsClientConfig = { region: config.region, credentials: config.credentials };
  const clock = replace.clock ?? systemClock;
  const store = replace.store ?? new Store(new DynamoDBClient({ ...aws, endpoint: config.endpoints.dynamodb, maxAttempts: 5 }), config.tableName);
  const mail = replace.mailer && replace.identities ? undefined : sesOf(config, aws);
  const secrets = replace.secrets ?? (await secretsOf(config, aws));
  return {
    config,
    clock,
    ids: ulidIds(clock),
    store,
    queue: replace.queue ?? queueOf(config, aws),
    deadLetters: replace.deadLetters ?? deadLettersOf(config, aws),
    scheduler: replace.scheduler ?? schedulerOf(config, aws, store),
    secrets,
    mailer: replace.mailer ?? mail?.mailer ?? unavailable<Mailer>('mailer'),
    identities: replace.identities ?? mail?.identities ?? unavailable<SendingIdentities>('identities'),
    objects: replace.objects ?? objectsOf(config, aws, clock),
    dns: replace.dns ?? new NodeDns(config.dnsServers),
    http: replace.http ?? new GuardedHttp({ allowPrivate: config.webhookAllowPrivate }),
    random: replace.random ?? systemRandom,
    logger: replace.logger ?? (config.runtime === 'aws' ? powertoolsLogger(config.logLevel) : createLogger(config.logLevel)),
    metrics: replace.metrics ?? (config.runtime === 'aws' ? stdoutEmfMetrics(config.stage, () => clock.now().getTime()) : noMetrics),
    payments: 'payments' in replace ? replace.payments : paymentsOf(config, secrets),
    timeline: timelineListeners,
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
