// `npm start`: the whole service on one machine. Embedded store, queue, S3 and SES emulators on
// loopback, the same handler exports behind node:http, queue pollers and the local scheduler.
//
// Threads (docs/architecture.md, "The local runtime"): the API (node:http, the HTTP handlers, the
// queue journal) on the main thread; the store, queue and S3 emulators on one worker thread
// (emulators.ts); the queue consumers, the timed functions, the scheduler's tick, the SES emulator
// and the SMTP listener on another (functions-thread.ts), when `consumers` is 'thread', as `npm
// start` runs it. In-process callers (tests, benchmarks that drive or count the consumers) may keep the
// consumers on the calling thread ('inline', the default).
import type { SQSClient } from '@aws-sdk/client-sqs';
import { mkdirSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { join, resolve } from 'node:path';
import type { MessagePort } from 'node:worker_threads';
import type { FunctionDef } from '../shared/platform';
import { SesMailer } from '../shared/adapters/aws/ses-mailer';
import { SqsQueue } from '../shared/adapters/aws/sqs-queue';
import { s3ClientConfig } from '../shared/adapters/aws/s3-object-store';
import { SqsDeadLetters } from '../shared/adapters/aws/sqs-dead-letters';
import { JournaledQueue } from '../shared/adapters/local/journaled-queue';
import { SimulatedSesFeedback } from '../shared/adapters/local/ses-feedback';
import { Store } from '../shared/db/store';
import { systemClock } from '../shared/ports/clock';
import type { Mailer } from '../shared/ports/mailer';
import type { LocalSettings, RuntimeConfig } from '../shared/runtime/config';
import { buildContainer, installContainer, type Container } from '../shared/runtime/container';
import { createLogger, describeError, type Logger } from '../shared/adapters/logger';
import { S3Client } from '@aws-sdk/client-s3';
import { startS3, startSes, startSqs, startStoreAndQueues, type Running } from './emulators';
import { Admission, type AdmissionOptions } from './admission';
import { ensureBootstrap, loadOrCreateSecrets, type Bootstrap } from './bootstrap';
import { consumerDefs, startConsumers } from './consumers';
import { DUMMY_CREDENTIALS, REGION, sesClient, sqsClient as makeSqsClient, storeClient } from './emulator-clients';
import { loadFunctionsThread, type FunctionsThread } from './functions-thread';
import { createLocalHttpServer, type HttpLambda } from './http-server';
import { ensureBucket, ensureQueues, ensureTable } from './provision';
import { importFileObjects } from './import-objects';
import { CONSUMER_LANES, loadFunction } from './consumers';
import { LEASE_MS } from '../shared/sending/messages/idempotency';
import { recoverAcceptances } from '../shared/sending/messages/recovery';

export { CONSUMER_LANES, loadFunction };
export type { Bootstrap };
export const LOCAL_TABLE = 'postbox';
/** The bucket s3rver keeps under DATA_DIR/s3, as the stack's one bucket. */
export const LOCAL_BUCKET = 'postbox';

/** Where the queue consumers, timed functions and scheduler run: their own thread, or the caller's. */
export type ConsumerPlacement = 'thread' | 'inline';

export interface LocalRuntime {
  url: string;
  sesUrl: string;
  dynamodbEndpoint: string;
  sqsEndpoint: string;
  /** s3rver, the bucket's stand-in; download links (presigned GETs) point at it. */
  s3Endpoint: string;
  /** The SMTP listener playing SES receiving (smtp://host:port); absent when INBOUND_ENABLED is off. */
  smtpUrl?: string;
  /** The API thread's SQS client: the queue pollers' too when they run inline (benchmarks count its calls). */
  sqsClient: SQSClient;
  /** The API's overload control (the in-flight bound; inline, the consumer batches' bound too). */
  admission: Admission;
  /** Where the consumers run. */
  consumers: ConsumerPlacement;
  /** The API thread's container (inline, the consumers' too). */
  container: Container;
  bootstrap: Bootstrap;
  /** True when this start created the account (first start on an empty data dir). */
  createdBootstrap: boolean;
  close(): Promise<void>;
}

export interface LocalRuntimeOptions {
  logger?: Logger;
  /** Overload limits of the API and the queue pollers (defaults in admission.ts). */
  admission?: AdmissionOptions;
  /** 'thread' (npm start) or 'inline' (default: in-process callers that reach into the consumers). */
  consumers?: ConsumerPlacement;
}

interface Emulators {
  dynamodbEndpoint: string;
  sqs: Running;
  s3: Running;
  storeChannel?: MessagePort;
  functionsStoreChannel?: MessagePort;
  /** The queue emulator's ports for this thread and the functions thread (emulators.ts startStoreAndQueues). */
  sqsChannel?: MessagePort;
  functionsSqsChannel?: MessagePort;
}

/** The store, queue and S3 emulators: one thread for all three, or a store the user named and the other two. */
async function startEmulators(settings: LocalSettings, dataDir: string, stops: Array<() => Promise<void>>, failed: (what: string) => (error: Error) => void): Promise<Emulators> {
  // s3rver keeps its objects as files under DATA_DIR/s3, so they outlive a restart; it knows the
  // runtime's dummy key pair.
  const s3Options = { directory: join(dataDir, 's3'), accessKeys: [DUMMY_CREDENTIALS] };
  if (!settings.dynamodbEndpoint) {
    // One thread for all three: the thread, not the emulator, is what costs memory.
    const started = await startStoreAndQueues({ path: join(dataDir, 'dynamodb'), s3: s3Options, onFailure: failed('store, queue and S3 emulator') });
    stops.push(started.store.close);
    const { storeChannel, functionsStoreChannel, sqsChannel, functionsSqsChannel } = started;
    return { dynamodbEndpoint: started.store.endpoint, sqs: started.sqs, s3: started.s3!, storeChannel, functionsStoreChannel, sqsChannel, functionsSqsChannel };
  }
  const sqs = await startSqs({ onFailure: failed('queue emulator') });
  stops.push(sqs.close);
  const s3 = await startS3({ ...s3Options, onFailure: failed('S3 emulator') });
  stops.push(s3.close);
  return { dynamodbEndpoint: settings.dynamodbEndpoint, sqs, s3 };
}

function localConfig(settings: LocalSettings, dataDir: string, emulators: Emulators, provisioned: Awaited<ReturnType<typeof ensureQueues>>): RuntimeConfig {
  return {
    runtime: 'local',
    region: REGION,
    tableName: LOCAL_TABLE,
    // The SES emulator's endpoint is filled in once it listens.
    endpoints: { dynamodb: emulators.dynamodbEndpoint, sqs: emulators.sqs.endpoint, s3: emulators.s3.endpoint },
    credentials: DUMMY_CREDENTIALS,
    queueUrls: provisioned.urls,
    queueArns: provisioned.arns,
    dlqUrls: provisioned.dlqUrls,
    // The S3 adapter of AWS over s3rver: download links are its presigned GETs, on s3rver's
    // loopback endpoint, as in AWS they are on S3's host (docs/api-decisions.md).
    objects: { kind: 's3', bucket: LOCAL_BUCKET },
    scheduler: { kind: 'local' },
    secrets: { kind: 'static', values: { ...loadOrCreateSecrets(dataDir), ...settings.stripeSecrets, ...settings.oauthSecrets } },
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
}

/**
 * The SES emulator and its simulated feedback on this thread (inline): mail the emulator accepts
 * comes back as an SES Delivery notification, through the same events queue and ingest function
 * as in AWS. A mail the emulator took just before a kill is still owed its report, as SNS would
 * still deliver it: queued (through the journal) before any poller runs.
 */
async function inlineMail(settings: LocalSettings, dataDir: string, journal: JournaledQueue, config: RuntimeConfig, logger: Logger): Promise<{ mailer: Mailer; ses: Running }> {
  const ses = await startSes({ port: settings.sesPort, mailFile: join(dataDir, 'ses-mail.jsonl') });
  config.endpoints.ses = ses.endpoint;
  const feedback = new SimulatedSesFeedback(new SesMailer(sesClient(ses.endpoint), config.sesConfigurationSet), {
    queue: journal,
    clock: systemClock,
    logger,
    sentMail: ses.sentMail,
    durable: { heldMail: ses.heldMail, ledger: join(dataDir, 'ses-feedback.jsonl') },
  });
  await feedback.recover();
  return { mailer: feedback, ses };
}

type Stops = Array<() => Promise<void>>;
type ThreadFailed = (what: string) => (error: Error) => void;

/** The emulators, the API thread's clients of them, the table, queues and bucket, and the config built on them. */
async function provision(settings: LocalSettings, dataDir: string, stops: Stops, threadFailed: ThreadFailed, logger: Logger) {
  const emulators = await startEmulators(settings, dataDir, stops, threadFailed);
  // As the composition root makes them, but lighter towards the emulators (emulator-clients.ts).
  const dynamo = storeClient(emulators.dynamodbEndpoint, { channel: emulators.storeChannel, external: Boolean(settings.dynamodbEndpoint) });
  const sqsClient = makeSqsClient(emulators.sqs.endpoint, emulators.sqsChannel);
  await ensureTable(dynamo, LOCAL_TABLE);
  const provisioned = await ensureQueues(sqsClient);
  const s3Client = new S3Client(s3ClientConfig({ region: REGION, credentials: DUMMY_CREDENTIALS }, emulators.s3.endpoint));
  stops.push(async () => s3Client.destroy());
  await ensureBucket(s3Client, LOCAL_BUCKET);
  // Objects an older runtime kept as files (DATA_DIR/objects) move into the bucket, once.
  await importFileObjects(s3Client, LOCAL_BUCKET, join(dataDir, 'objects'), logger);
  const config = localConfig(settings, dataDir, emulators, provisioned);
  // local-aws-sqs keeps its queues in memory: the journal puts back what the last run left
  // waiting, before anything polls or sends, and every send from here on goes through it (the
  // functions thread's too, journal-link.ts: this thread is its one writer).
  const journal = JournaledQueue.open(join(dataDir, 'queue-journal.jsonl'), new SqsQueue(sqsClient, provisioned.urls), { clock: systemClock, logger });
  await journal.replay({ sqs: sqsClient, urls: provisioned.urls, dlqUrls: provisioned.dlqUrls });
  return { emulators, dynamo, sqsClient, provisioned, config, journal };
}

type Provisioned = Awaited<ReturnType<typeof provision>>;

/** The SES emulator and its feedback: on the functions thread (started here) or on this one. */
async function startMail(
  p: Provisioned,
  loaded: Awaited<ReturnType<typeof loadFunctionsThread>> | undefined,
  context: { settings: LocalSettings; dataDir: string; options: LocalRuntimeOptions; stops: Stops; logger: Logger },
): Promise<{ sesEndpoint: string; mailer: Mailer; functionsThread?: FunctionsThread }> {
  const { settings, dataDir, stops } = context;
  if (!loaded) {
    p.emulators.functionsStoreChannel?.close();
    p.emulators.functionsSqsChannel?.close();
    const inline = await inlineMail(settings, dataDir, p.journal, p.config, context.logger);
    stops.push(inline.ses.close);
    return { sesEndpoint: inline.ses.endpoint, mailer: inline.mailer };
  }
  const functionsThread = await loaded.start({
    config: p.config,
    dataDir,
    sesPort: settings.sesPort,
    retryDelaySeconds: settings.queueRetryDelaySeconds,
    schedulerTickMs: settings.schedulerTickMs,
    admission: { maxConsumerBatches: context.options.admission?.maxConsumerBatches },
    externalStore: Boolean(settings.dynamodbEndpoint),
    storeChannel: p.emulators.functionsStoreChannel,
    sqsChannel: p.emulators.functionsSqsChannel,
    journal: p.journal,
  });
  stops.push(functionsThread.close);
  p.config.endpoints.ses = functionsThread.sesEndpoint;
  return { sesEndpoint: functionsThread.sesEndpoint, mailer: functionsThread.mailer, functionsThread };
}

/** The API thread's container, installed, with the bootstrap account and the last process's claims settled. */
async function apiContainer(p: Provisioned, mailer: Mailer, settings: LocalSettings, dataDir: string, logger: Logger) {
  const { sqsClient, provisioned, journal } = p;
  const container = await buildContainer(p.config, {
    logger,
    store: new Store(p.dynamo, LOCAL_TABLE),
    queue: journal,
    mailer,
    // The DLQs stay in the emulator (the journal puts dead messages back in them at start); a
    // redrive is journaled as a send before it happens, so a kill after it does not lose it.
    deadLetters: new SqsDeadLetters(sqsClient, { urls: provisioned.urls, dlqUrls: provisioned.dlqUrls, beforeRedrive: (queue, body) => journal.redriven(queue, body) }),
  });
  installContainer(container);
  const { bootstrap, created } = await ensureBootstrap(container, dataDir, settings.accountEmail);
  // This process is the only API of its data: every claim made before it started belongs to a
  // request that died with the last one. Finish or release them before anything new arrives.
  const claimsExpiredBy = container.clock.now().getTime() + LEASE_MS;
  p.config.claimsExpiredBy = claimsExpiredBy;
  await recoverAcceptances(container, { leaseEndingBy: claimsExpiredBy });
  return { container, bootstrap, created, claimsExpiredBy };
}

/**
 * Mail arriving over SMTP goes the way SES receiving hands it on in AWS: object store, inbound
 * queue. Under `npm start` on the functions thread (its work off the API's event loop), which
 * closes it as it ends; inline on this thread.
 */
async function startInbound(settings: LocalSettings, dataDir: string, on: { functionsThread?: FunctionsThread; container: Container; logger: Logger; stops: Stops }): Promise<{ url: string } | undefined> {
  if (!settings.inboundEnabled) return undefined;
  const options = { host: settings.host, port: settings.inboundSmtpPort, maxBytes: settings.inboundMaxBytes, tmpDir: join(dataDir, 'inbound-tmp') };
  if (on.functionsThread) return on.functionsThread.startSmtp(options);
  // Imported only here: its mail parsing and authentication modules are tens of MiB.
  const { startSmtpListener } = await import('./smtp-listener');
  const listener = await startSmtpListener({ ...options, container: on.container, logger: on.logger });
  on.stops.push(listener.close);
  return listener;
}

/**
 * Starts the whole service. `functions` is the manifest's list (passed in by the entry point, so
 * that shared/ never imports functions/).
 */
export async function startLocalRuntime(settings: LocalSettings, functions: readonly FunctionDef[], options: LocalRuntimeOptions = {}): Promise<LocalRuntime> {
  const logger = options.logger ?? createLogger(settings.logLevel);
  const placement = options.consumers ?? 'inline';
  const dataDir = resolve(settings.dataDir);
  mkdirSync(dataDir, { recursive: true });
  const stops: Stops = [];
  // A thread that dies leaves the service without its store, its queues or its consumers: nothing
  // can be accepted or finished any more, so the process ends (a restart recovers, as after kill -9).
  const threadFailed: ThreadFailed = (what) => (error) => {
    logger.error(`the embedded ${what} stopped; exiting`, { error: describeError(error) });
    process.exit(1);
  };
  const stopAll = async (): Promise<void> => {
    for (const stop of stops.reverse()) await stop().catch(() => undefined);
  };
  try {
    // The functions thread's code is bundled (esbuild's process ended) and loaded before the store
    // opens its files (functions-build.ts).
    const loaded = placement === 'thread' ? await loadFunctionsThread(consumerDefs(functions), threadFailed('functions thread')) : undefined;
    if (loaded) stops.push(loaded.stop);
    const p = await provision(settings, dataDir, stops, threadFailed, logger);
    const { sesEndpoint, mailer, functionsThread } = await startMail(p, loaded, { settings, dataDir, options, stops, logger });
    const { container, bootstrap, created, claimsExpiredBy } = await apiContainer(p, mailer, settings, dataDir, logger);
    const admission = new Admission(options.admission);
    if (placement === 'inline') {
      const consumers = { retryDelaySeconds: settings.queueRetryDelaySeconds, schedulerTickMs: settings.schedulerTickMs };
      const turn = <T>(pass: () => Promise<T>) => admission.consumerTurn(pass);
      stops.push(await startConsumers(consumerDefs(functions), { container, sqs: p.sqsClient, logger, ...consumers, turn, journal: p.journal }));
    }
    const smtp = await startInbound(settings, dataDir, { functionsThread, container, logger, stops });
    const url = await listen(settings, functions, logger, admission, stops);
    // Known only once listening (PORT=0 picks one); nothing has built a link before this point.
    p.config.publicBaseUrl ??= url;
    await functionsThread?.startConsumers(p.config.publicBaseUrl, claimsExpiredBy);
    const { emulators } = p;
    return {
      url,
      sesUrl: sesEndpoint,
      dynamodbEndpoint: emulators.dynamodbEndpoint,
      sqsEndpoint: emulators.sqs.endpoint,
      s3Endpoint: emulators.s3.endpoint,
      ...(smtp ? { smtpUrl: smtp.url } : {}),
      sqsClient: p.sqsClient,
      admission,
      consumers: placement,
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

/** The HTTP functions behind node:http on HOST:PORT; resolves with its URL. */
async function listen(settings: LocalSettings, functions: readonly FunctionDef[], logger: Logger, admission: Admission, stops: Array<() => Promise<void>>): Promise<string> {
  const handlers = new Map<string, Promise<HttpLambda>>();
  const server = createLocalHttpServer(
    functions,
    (fn) => {
      if (!handlers.has(fn.name)) handlers.set(fn.name, loadFunction<HttpLambda>(fn));
      return handlers.get(fn.name) as Promise<HttpLambda>;
    },
    logger,
    { admission },
  );
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
  return `http://${host}:${port}`;
}
