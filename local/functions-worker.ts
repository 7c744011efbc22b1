// The body of the local runtime's functions thread (started by functions-thread.ts, bundled by
// functions-build.ts): the queue consumers, the timed functions and the scheduler's tick, with
// the SES emulator and its simulated feedback, on an event loop of their own, as Lambda runs each
// function apart from the API. It builds its own container from the API thread's RuntimeConfig with
// its own clients: the store and SQS over their own MessagePorts to the emulators' thread, S3 over
// loopback. Its queue port journals through the API thread (journal-link.ts).
import { SqsQueue } from '../shared/adapters/aws/sqs-queue';
import { SesMailer } from '../shared/adapters/aws/ses-mailer';
import { SimulatedSesFeedback } from '../shared/adapters/local/ses-feedback';
import { Store } from '../shared/db/store';
import type { DeadLetterQueues } from '../shared/ports/dead-letters';
import { buildContainer, installContainer } from '../shared/runtime/container';
import { createLogger, type Logger } from '../shared/adapters/logger';
import { join } from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { Admission } from './admission';
import { startConsumers, type ConsumerDef } from './consumers';
import { sesClient, sqsClient, storeClient } from './emulator-clients';
import { startSes, type RunningSes } from './emulators';
import type { FunctionsThreadData, SmtpOptions } from './functions-thread';
import type { SmtpListener } from './smtp-listener';
import { LinkedJournalQueue, serveMail } from './journal-link';
import { PortRpc } from './port-rpc';
import { FUNCTIONS_NICE, niceThisThread } from './thread-priority';

/**
 * Store requests the consumers have at the store's thread at once. The store answers its two
 * channels in the order requests arrive; with the consumers' bounded, a read of the API waits
 * behind at most this many of theirs, however deep their backlog (an import's batch writes, a
 * broadcast's sends).
 */
const STORE_IN_FLIGHT = 6;

/** The staff dead-letter routes are HTTP functions: nothing here redrives. */
const apiThreadOnly: DeadLetterQueues = {
  peek: () => Promise.reject(new Error('dead letters are handled on the API thread')),
  redrive: () => Promise.reject(new Error('dead letters are handled on the API thread')),
};

/** The thread's container: its own clients, the SES emulator's feedback as its mailer, installed. */
async function containerOf(data: FunctionsThreadData, rpc: PortRpc, logger: Logger, ses: RunningSes) {
  const config = { ...data.config, endpoints: { ...data.config.endpoints, ses: ses.endpoint } };
  const sqs = sqsClient(config.endpoints.sqs as string, data.sqsChannel);
  const queue = new LinkedJournalQueue(rpc, new SqsQueue(sqs, config.queueUrls));
  const container = await buildContainer(config, {
    logger,
    store: new Store(storeClient(config.endpoints.dynamodb as string, { channel: data.storeChannel, external: data.externalStore, maxInFlight: STORE_IN_FLIGHT }), config.tableName),
    queue,
    mailer: new SesMailer(sesClient(ses.endpoint), config.sesConfigurationSet),
    deadLetters: apiThreadOnly,
  });
  // The SES feedback lives beside the emulator it reads (sentMail, synchronously), and is the one
  // writer of its ledger; the API thread's mail comes here (serveMail).
  const feedback = new SimulatedSesFeedback(container.mailer, {
    queue,
    clock: container.clock,
    logger,
    sentMail: ses.sentMail,
    durable: { heldMail: ses.heldMail, ledger: join(data.dataDir, 'ses-feedback.jsonl') },
  });
  container.mailer = feedback;
  // The reports a kill left owed are queued before any poller runs (the journal was replayed
  // before this thread started).
  await feedback.recover();
  installContainer(container);
  serveMail(rpc, feedback);
  return { container, config, sqs, queue };
}

async function main(data: FunctionsThreadData): Promise<void> {
  const rpc = new PortRpc(data.link);
  const logger = createLogger(data.config.logLevel);
  const ses = await startSes({ port: data.sesPort, mailFile: join(data.dataDir, 'ses-mail.jsonl') });
  const { container, config, sqs, queue } = await containerOf(data, rpc, logger, ses);
  const admission = new Admission(data.admission);
  let stopConsumers: (() => Promise<void>) | undefined;
  let smtp: SmtpListener | undefined;
  rpc.serve({
    // Once the API listens: its address is the links' origin, and the claims of the last process are known.
    'consumers.start': async ({ publicBaseUrl, claimsExpiredBy }: { publicBaseUrl: string; claimsExpiredBy: number }) => {
      config.publicBaseUrl ??= publicBaseUrl;
      config.claimsExpiredBy = claimsExpiredBy;
      stopConsumers ??= await startConsumers(data.functions, {
        container,
        sqs,
        logger,
        retryDelaySeconds: data.retryDelaySeconds,
        schedulerTickMs: data.schedulerTickMs,
        turn: (pass) => admission.consumerTurn(pass),
        journal: queue,
        lazyLoad: (fn) => imported(data.modules, fn),
      });
    },
    // The SMTP listener's parsing, checks and storing on this thread, off the API's event loop; a
    // message hears 250 once its object is stored and its notification journaled (on the API
    // thread, through the link) and sent. Its modules load only when inbound is on.
    'smtp.start': async (options: SmtpOptions): Promise<{ url: string; port: number }> => {
      const { startSmtpListener } = await import('./smtp-listener');
      smtp ??= await startSmtpListener({ ...options, container, logger });
      return { url: smtp.url, port: smtp.port };
    },
    // No new mail, then the passes under way finish (their acknowledgements reach the journal),
    // then the emulators close.
    close: async () => {
      await smtp?.close();
      await stopConsumers?.();
      await ses.close();
      sqs.destroy();
    },
  });
  parentPort?.postMessage({ ready: { sesEndpoint: ses.endpoint, sesPort: ses.port } });
}

/** A consumer's handler from its bundled module (plain JavaScript: importing it starts no process). */
async function imported<T>(modules: Record<string, string>, fn: ConsumerDef): Promise<T> {
  const url = modules[fn.name];
  if (!url) throw new Error(`no bundled module for ${fn.name}`);
  const handler = ((await import(url)) as Record<string, unknown>)[fn.handler];
  if (typeof handler !== 'function') throw new Error(`${fn.entry} does not export ${fn.handler}`);
  return handler as T;
}

// Its work yields the CPU to the API's (thread-priority.ts).
niceThisThread(FUNCTIONS_NICE);
const loaded = workerData as Pick<FunctionsThreadData, 'functions' | 'modules' | 'eager'>;
if (loaded.eager) await Promise.all(loaded.functions.map((fn) => imported(loaded.modules, fn)));
parentPort?.postMessage({ loaded: true });
parentPort?.once('message', (data: Omit<FunctionsThreadData, 'functions' | 'modules' | 'eager'>) => {
  // An error here is uncaught in this thread: it ends the thread, and the API thread ends the runtime.
  main({ ...data, ...loaded }).catch((error: unknown) =>
    setImmediate(() => {
      throw error;
    }),
  );
});
