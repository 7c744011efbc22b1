// `npm start`: the whole service on one machine. Embedded store, queue, S3 and SES emulators on
// loopback, the same handler exports behind node:http, queue pollers and the local scheduler.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SQSClient } from '@aws-sdk/client-sqs';
import { S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { operatorSecrets, queues, secretNames, type FunctionDef, type QueueName, type SecretName } from '../../platform';
import { createAccount } from '../../accounts/service';
import { ensureAccountListed } from '../../accounts/staff';
import { SesMailer } from '../../adapters/aws/ses-mailer';
import { SqsQueue } from '../../adapters/aws/sqs-queue';
import { s3ClientConfig } from '../../adapters/aws/s3-object-store';
import { SqsDeadLetters } from '../../adapters/aws/sqs-dead-letters';
import { JournaledQueue } from '../../adapters/local/journaled-queue';
import { SimulatedSesFeedback } from '../../adapters/local/ses-feedback';
import { StoreScheduler } from '../../adapters/local/store-scheduler';
import { randomBase62 } from '../../crypto';
import { Store } from '../../db/store';
import type { LocalSettings, RuntimeConfig } from '../config';
import { buildContainer, installContainer, type Container } from '../container';
import { createLogger, describeError, type Logger } from '../logger';
import { startS3, startSes, startSqs, startStoreAndQueues, type Running } from './emulators';
import { Admission, type AdmissionOptions } from './admission';
import { ChannelHttpHandler } from './channel-handler';
import { createLocalHttpServer, type HttpLambda } from './http-server';
import { ensureBucket, ensureQueues, ensureTable } from './provision';
import { importFileObjects } from './import-objects';
import { QueuePoller, type QueueHandler } from './queue-poller';
import { startEveryLoop, startSchedulerLoop } from './scheduler-loop';
import { startSmtpListener } from './smtp-listener';
import { LEASE_MS } from '../../messages/idempotency';
import { recoverAcceptances } from '../../messages/recovery';

const projectRoot = fileURLToPath(new URL('../../../', import.meta.url));
export const LOCAL_TABLE = 'postbox';
/** The bucket s3rver keeps under DATA_DIR/s3, as the stack's one bucket. */
export const LOCAL_BUCKET = 'postbox';
const REGION = 'us-east-1';
const DUMMY_CREDENTIALS = { accessKeyId: 'local', secretAccessKey: 'local' };
/**
 * Batches of one queue that may be handled at once (QueuePoller's lanes; Admission bounds them all
 * together). The send worker handles a batch's messages one after the other and waits on the store
 * and the SES emulator most of the time, so it gets the most.
 */
export const CONSUMER_LANES: Partial<Record<QueueName, number>> = { send: 6, 'ses-events': 4, webhooks: 3, inbound: 4 };

/**
 * A client of an emulator, made lighter than the SDK makes it for AWS: the emulators read the
 * shape of the Authorization header and never check a signature, so SigV4's work on every call (a
 * canonical request, a SHA-256 of the body, HMACs) is CPU the main thread spends for nothing, and
 * a fixed well-formed header replaces it; the User-Agent (built on every call), the Lambda
 * trace-id header and the SDK's own logging middleware are dropped. Together about a fifth of the
 * main thread's cost of a store call.
 */
function forEmulator<C extends { middlewareStack: { remove(name: string): boolean } }>(client: C): C {
  for (const name of ['getUserAgentMiddleware', 'recursionDetectionMiddleware', 'loggerMiddleware']) client.middlewareStack.remove(name);
  return client;
}

function emulatorSigner(service: string) {
  return {
    sign: async <R extends { headers: Record<string, string> }>(request: R): Promise<R> => {
      const now = new Date().toISOString().replace(/[-:]|\.\d{3}/g, '');
      request.headers['x-amz-date'] = now;
      request.headers.authorization = `AWS4-HMAC-SHA256 Credential=local/${now.slice(0, 8)}/${REGION}/${service}/aws4_request, SignedHeaders=host;x-amz-date, Signature=0`;
      return request;
    },
  };
}

export interface Bootstrap {
  account_id: string;
  admin_key: string;
  test_admin_key: string;
  staff_token: string;
}

export interface LocalRuntime {
  url: string;
  sesUrl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** s3rver, the bucket's stand-in; download links (presigned GETs) point at it. */
  s3Endpoint: string;
  /** The SMTP listener playing SES receiving (smtp://host:port); absent when INBOUND_ENABLED is off. */
  smtpUrl?: string;
  /** The SQS client the queue pollers use (benchmarks count its calls). */
  sqsClient: SQSClient;
  /** The API's overload control (the in-flight bound, the consumers' share of the loop). */
  admission: Admission;
  container: Container;
  bootstrap: Bootstrap;
  /** True when this start created the account (first start on an empty data dir). */
  createdBootstrap: boolean;
  close(): Promise<void>;
}

/** The secrets a first start generates; the operator's (the Stripe keys, the OAuth client secrets) come from the environment. */
const newSecret: Record<Exclude<SecretName, 'stripe-secret-key' | 'stripe-webhook-secret' | `oauth-${string}`>, () => string> = {
  'cursor-signing-key': () => randomBase62(48),
  'staff-token': () => `st_${randomBase62(40)}`,
  'data-encryption-key': () => randomBytes(32).toString('base64'),
  'unsubscribe-signing-key': () => randomBase62(48),
};

/** DATA_DIR/secrets.json, created on first start; secrets added by later versions are filled in. */
function loadOrCreateSecrets(dataDir: string): Partial<Record<SecretName, string>> {
  const file = join(dataDir, 'secrets.json');
  const stored = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Partial<Record<SecretName, string>>;
  const missing = secretNames.filter((name): name is keyof typeof newSecret => !operatorSecrets.includes(name) && !stored[name]);
  const secrets = { ...stored, ...Object.fromEntries(missing.map((name) => [name, newSecret[name]()])) } as Partial<Record<SecretName, string>>;
  if (missing.length > 0) writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

async function ensureBootstrap(container: Container, dataDir: string, email: string): Promise<{ bootstrap: Bootstrap; created: boolean }> {
  const file = join(dataDir, 'bootstrap.json');
  if (existsSync(file)) {
    const bootstrap = JSON.parse(readFileSync(file, 'utf8')) as Bootstrap;
    // A store from before the staff account list: its bootstrap account joins it (one read when it already has).
    await ensureAccountListed(container.store, bootstrap.account_id);
    return { bootstrap, created: false };
  }
  const account = await createAccount(container, { name: 'Local account', email });
  const bootstrap: Bootstrap = { ...account, staff_token: container.secrets.get('staff-token') };
  writeFileSync(file, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
  return { bootstrap, created: true };
}

export async function loadFunction<T>(fn: FunctionDef): Promise<T> {
  const mod = (await import(pathToFileURL(resolve(projectRoot, fn.entry)).href)) as Record<string, unknown>;
  const handler = mod[fn.handler];
  if (typeof handler !== 'function') throw new Error(`${fn.entry} does not export ${fn.handler}`);
  return handler as T;
}

/**
 * Starts the whole service. `functions` is the manifest's list (passed in by the entry point, so
 * that shared/ never imports functions/).
 */
export async function startLocalRuntime(
  settings: LocalSettings,
  functions: readonly FunctionDef[],
  options: { logger?: Logger; /** Overload limits of the API and the queue pollers (defaults in admission.ts). */ admission?: AdmissionOptions } = {},
): Promise<LocalRuntime> {
  const logger = options.logger ?? createLogger(settings.logLevel);
  const dataDir = resolve(settings.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  // An emulator thread that dies leaves the service without its store or queues: nothing can be
  // accepted or finished any more, so the process ends (a restart recovers, as after kill -9).
  const emulatorFailed = (what: string) => (error: Error) => {
    logger.error(`the embedded ${what} stopped; exiting`, { error: describeError(error) });
    process.exit(1);
  };
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };

  try {
    let dynamodbEndpoint = settings.dynamodbEndpoint;
    let sqs: Running;
    let s3: Running;
    let storeChannel: ChannelHttpHandler | undefined;
    // s3rver keeps its objects as files under DATA_DIR/s3, so they outlive a restart; it knows the
    // runtime's dummy key pair.
    const s3Options = { directory: join(dataDir, 's3'), accessKeys: [DUMMY_CREDENTIALS] };
    if (!dynamodbEndpoint) {
      // One thread for all three: the thread, not the emulator, is what costs memory.
      const started = await startStoreAndQueues({ path: join(dataDir, 'dynamodb'), s3: s3Options, onFailure: emulatorFailed('store, queue and S3 emulator') });
      stops.push(started.store.close);
      dynamodbEndpoint = started.store.endpoint;
      sqs = started.sqs;
      s3 = started.s3!;
      storeChannel = new ChannelHttpHandler(started.storeChannel);
    } else {
      sqs = await startSqs({ onFailure: emulatorFailed('queue emulator') });
      stops.push(sqs.close);
      s3 = await startS3({ ...s3Options, onFailure: emulatorFailed('S3 emulator') });
      stops.push(s3.close);
    }
    const ses = await startSes({ port: settings.sesPort, mailFile: join(dataDir, 'ses-mail.jsonl') });
    stops.push(ses.close);

    const common = { region: REGION, credentials: DUMMY_CREDENTIALS };
    // As the composition root makes them, but lighter towards the emulators (forEmulator); a store
    // the user pointed us at (DYNAMODB_ENDPOINT) gets the SDK's own client.
    const dynamo = settings.dynamodbEndpoint
      ? new DynamoDBClient({ ...common, endpoint: dynamodbEndpoint, maxAttempts: 5 })
      : forEmulator(new DynamoDBClient({ ...common, endpoint: dynamodbEndpoint, maxAttempts: 5, signer: emulatorSigner('dynamodb'), requestHandler: storeChannel as never }));
    const sqsClient = forEmulator(new SQSClient({ ...common, endpoint: sqs.endpoint, signer: emulatorSigner('sqs') }));
    await ensureTable(dynamo, LOCAL_TABLE);
    const provisioned = await ensureQueues(sqsClient);
    const s3Client = new S3Client(s3ClientConfig(common, s3.endpoint));
    stops.push(async () => s3Client.destroy());
    await ensureBucket(s3Client, LOCAL_BUCKET);
    // Objects an older runtime kept as files (DATA_DIR/objects) move into the bucket, once.
    await importFileObjects(s3Client, LOCAL_BUCKET, join(dataDir, 'objects'), logger);

    const secrets = loadOrCreateSecrets(dataDir);
    const config: RuntimeConfig = {
      runtime: 'local',
      region: REGION,
      tableName: LOCAL_TABLE,
      endpoints: { dynamodb: dynamodbEndpoint, sqs: sqs.endpoint, ses: ses.endpoint, s3: s3.endpoint },
      credentials: DUMMY_CREDENTIALS,
      queueUrls: provisioned.urls,
      queueArns: provisioned.arns,
      dlqUrls: provisioned.dlqUrls,
      // The S3 adapter of AWS over s3rver: download links are its presigned GETs, on s3rver's
      // loopback endpoint, as in AWS they are on S3's host (docs/api-decisions.md).
      objects: { kind: 's3', bucket: LOCAL_BUCKET },
      scheduler: { kind: 'local' },
      secrets: { kind: 'static', values: { ...secrets, ...settings.stripeSecrets, ...settings.oauthSecrets } },
      sharedEmailSender: settings.sharedEmailSender,
      logLevel: settings.logLevel,
      dnsServers: settings.dnsServers,
      validationEnabled: settings.validationEnabled,
      emailCostMicros: settings.emailCostMicros,
      webhookAllowPrivate: settings.webhookAllowPrivate,
      publicBaseUrl: settings.publicBaseUrl,
      inboundEnabled: settings.inboundEnabled,
      inboundSmtpHost: settings.host,
      billing: settings.billing,
      oauth: settings.oauth,
      reputation: settings.reputation,
      // The local stand-in of the visibility timeout is the retry delay: a job comes back after it.
      dispatchLeaseMs: Math.max(1, settings.queueRetryDelaySeconds) * 1000,
    };
    // The composition root's own adapters, over the lighter clients.
    const container = await buildContainer(config, {
      logger,
      store: new Store(dynamo, LOCAL_TABLE),
      queue: new SqsQueue(sqsClient, provisioned.urls),
      mailer: new SesMailer(forEmulator(new SESv2Client({ ...common, endpoint: ses.endpoint, signer: emulatorSigner('ses') })), config.sesConfigurationSet),
    });
    // local-aws-sqs keeps its queues in memory: the journal puts back what the last run left
    // waiting, before anything polls or sends, and every send from here on goes through it.
    const journal = JournaledQueue.open(join(dataDir, 'queue-journal.jsonl'), container.queue, { clock: container.clock, logger });
    await journal.replay({ sqs: sqsClient, urls: provisioned.urls, dlqUrls: provisioned.dlqUrls });
    container.queue = journal;
    // The DLQs stay in the emulator (the journal puts dead messages back in them at start); a
    // redrive is journaled as a send before it happens, so a kill after it does not lose it.
    container.deadLetters = new SqsDeadLetters(sqsClient, { urls: provisioned.urls, dlqUrls: provisioned.dlqUrls, beforeRedrive: (queue, body) => journal.redriven(queue, body) });
    // Mail the emulator accepts comes back as an SES Delivery notification, through the same
    // events queue and ingest function as in AWS.
    const feedback = new SimulatedSesFeedback(container.mailer, {
      queue: container.queue,
      clock: container.clock,
      logger,
      sentMail: ses.sentMail,
      durable: { heldMail: ses.heldMail, ledger: join(dataDir, 'ses-feedback.jsonl') },
    });
    container.mailer = feedback;
    // A mail the emulator took just before a kill is still owed its report, as SNS would still
    // deliver it: queued (through the journal) before any poller runs.
    await feedback.recover();
    installContainer(container);
    const { bootstrap, created } = await ensureBootstrap(container, dataDir, settings.accountEmail);

    // This process is the only API of its data: every claim made before it started belongs to a
    // request that died with the last one. Finish or release them before anything new arrives.
    const claimsExpiredBy = container.clock.now().getTime() + LEASE_MS;
    config.claimsExpiredBy = claimsExpiredBy;
    await recoverAcceptances(container, { leaseEndingBy: claimsExpiredBy });

    const admission = new Admission(options.admission).start();
    for (const fn of functions.filter((f) => f.queue)) {
      const queue = queues.find((q) => q.name === fn.queue);
      if (!queue) throw new Error(`function ${fn.name} consumes unknown queue ${fn.queue}`);
      const poller = new QueuePoller(sqsClient, {
        queue,
        url: provisioned.urls[queue.name],
        arn: provisioned.arns[queue.name],
        dlqUrl: provisioned.dlqUrls[queue.name],
        region: REGION,
        handler: await loadFunction<QueueHandler>(fn),
        retryDelaySeconds: settings.queueRetryDelaySeconds,
        logger,
        // Several batches of a queue at once, as Lambda scales a queue's consumers; Admission bounds
        // them all together. Fan-out pages are one message a batch and rare.
        lanes: CONSUMER_LANES[queue.name] ?? 1,
        turn: (pass) => admission.consumerTurn(pass),
        onDeleted: (records) => journal.acknowledge(records),
        onDeadLettered: (records) => journal.deadLettered(records),
      });
      poller.start();
      stops.push(() => poller.stop());
    }
    for (const fn of functions.filter((f) => f.every)) {
      stops.push(startEveryLoop(fn.name, await loadFunction<(event: unknown) => Promise<unknown>>(fn), (fn.every?.minutes ?? 1) * 60_000, logger));
    }
    if (container.scheduler instanceof StoreScheduler) {
      stops.push(startSchedulerLoop({ scheduler: container.scheduler, queue: container.queue, clock: container.clock, logger }, settings.schedulerTickMs));
    }

    // Mail arriving over SMTP goes the way SES receiving hands it on in AWS: object store, inbound queue.
    const smtp = settings.inboundEnabled
      ? await startSmtpListener({ host: settings.host, port: settings.inboundSmtpPort, maxBytes: settings.inboundMaxBytes, tmpDir: join(dataDir, 'inbound-tmp'), container, logger })
      : undefined;
    if (smtp) stops.push(smtp.close);

    const handlers = new Map<string, Promise<HttpLambda>>();
    const server = createLocalHttpServer(functions, (fn) => {
      if (!handlers.has(fn.name)) handlers.set(fn.name, loadFunction<HttpLambda>(fn));
      return handlers.get(fn.name) as Promise<HttpLambda>;
    }, logger, { admission });
    await new Promise<void>((ok, fail) => {
      server.once('error', fail);
      server.listen(settings.port, settings.host, () => ok());
    });
    stops.push(
      () =>
        new Promise<void>((ok) => {
          server.closeAllConnections();
          server.close(() => ok());
        }),
    );
    const { port } = server.address() as AddressInfo;
    const host = settings.host.includes(':') ? `[${settings.host}]` : settings.host;
    const url = `http://${host}:${port}`;
    // Known only once listening (PORT=0 picks one); nothing has built a link before this point.
    config.publicBaseUrl ??= url;
    return {
      url,
      sesUrl: ses.endpoint,
      dynamodbEndpoint,
      sqsEndpoint: sqs.endpoint,
      s3Endpoint: s3.endpoint,
      ...(smtp ? { smtpUrl: smtp.url } : {}),
      sqsClient,
      admission,
      container,
      bootstrap,
      createdBootstrap: created,
      close: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
