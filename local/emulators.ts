// The embedded AWS stand-ins of the local runtime. The store (dynalite) and the queue emulator
// run in a worker thread (the runtime puts both in one; tests may start either alone), so their
// CPU work never holds up the API's event loop and, being threads, they die with the process (kill -9 included) and leave no orphan writing to
// the data dir. The SES emulator runs on the thread of the SES feedback, which looks up the mail it
// holds synchronously (sentMail): the runtime's functions thread (functions-thread.ts) under
// `npm start`, the caller's thread otherwise. All of them listen on loopback
// and nowhere else, whatever HOST says: none of them asks for credentials, and the SES emulator's
// store and clear endpoints would otherwise hand anyone the mail.
import type { AddressInfo } from 'node:net';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { mkdirSync } from 'node:fs';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { HeldMail, HeldReceipt } from '../shared/adapters/local/ses-feedback';
import { SesMailBook } from './ses-mail-book';
import { projectRootOf } from './bundle.mjs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const LOOPBACK = '127.0.0.1';

export interface Running {
  endpoint: string;
  port: number;
  /** The worker thread serving it; undefined when it runs on the calling thread. */
  threadId?: number;
  close(): Promise<void>;
}

export interface ThreadOptions {
  /**
   * Called when the thread ends without being asked to (an uncaught error in the emulator): the
   * endpoint is gone, and the runtime cannot go on without it.
   */
  onFailure?: (error: Error) => void;
}

// From the project's folder, not this module's: this module may run from a bundle (bundle.mjs).
const THREAD_FILE = pathToFileURL(join(projectRootOf(import.meta.url), 'local/emulator-thread.mjs'));

/**
 * V8 sizes a heap for a whole application by default: each thread's young generation may grow to
 * 3 × 16 MiB under a high allocation rate, and the emulators allocate fast (a JSON body in, a JSON
 * body out, every call) while keeping little. A smaller young generation costs them more frequent,
 * shorter scavenges and keeps tens of MiB out of the process's RSS. The old generation keeps V8's
 * default limit: an emulator that ran out would take the runtime down with it.
 */
const THREAD_LIMITS = { maxYoungGenerationSizeMb: 8 };

type ThreadKind = 'dynalite' | 'sqs' | 's3';

/**
 * Starts emulators of emulator-thread.mjs together in one worker thread; resolves once they all
 * listen, with one Running each (closing any of them ends the thread, and so all of them).
 */
function startInThread(
  emulators: ReadonlyArray<{ kind: ThreadKind; options: Record<string, unknown>; channels?: MessagePort[] }>,
  thread: ThreadOptions,
): Promise<Running[]> {
  const name = emulators.map((e) => e.kind).join('+');
  const transferList = emulators.flatMap((e) => e.channels ?? []);
  const worker = new Worker(THREAD_FILE, { workerData: { emulators }, transferList, name: `postbox-${name}`, resourceLimits: THREAD_LIMITS });
  let closing = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  const close = async (): Promise<void> => {
    if (!closing) {
      closing = true;
      worker.postMessage('close');
    }
    await exited;
  };
  return new Promise((resolve, reject) => {
    const failed = (error: Error): void => {
      if (closing) return;
      reject(error);
      thread.onFailure?.(error);
    };
    worker.once('error', failed);
    worker.once('exit', (code) => failed(new Error(`the ${name} thread exited (code ${code})`)));
    worker.once('message', ({ ports }: { ports: number[] }) => {
      resolve(ports.map((port) => ({ endpoint: `http://${LOOPBACK}:${port}`, port, threadId: worker.threadId, close })));
    });
  });
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
}

/** dynalite on LevelDB under `path` (in memory when omitted), in a worker thread. */
export async function startDynalite(options: { path?: string; port?: number } & ThreadOptions = {}): Promise<Running> {
  if (options.path) mkdirSync(options.path, { recursive: true });
  const [store] = await startInThread([{ kind: 'dynalite', options: { path: options.path, port: options.port ?? 0 } }], options);
  return store as Running;
}

/** local-aws-sqs (queues in memory), in a worker thread. */
export async function startSqs(options: { port?: number } & ThreadOptions = {}): Promise<Running> {
  const [sqs] = await startInThread([{ kind: 'sqs', options: { port: options.port ?? 0 } }], options);
  return sqs as Running;
}

export interface S3Options {
  /** Where s3rver keeps its buckets and objects (DATA_DIR/s3 in the runtime). */
  directory: string;
  /** Buckets made at start, as the stack makes its bucket; an existing one is kept with its objects. */
  buckets?: string[];
  /** Key pairs s3rver accepts besides its own (S3RVER/S3RVER). */
  accessKeys?: Array<{ accessKeyId: string; secretAccessKey: string }>;
  port?: number;
}

const s3Emulator = (options: S3Options) =>
  ({ kind: 's3', options: { directory: options.directory, port: options.port ?? 0, buckets: options.buckets ?? [], accessKeys: options.accessKeys ?? [] } }) as const;

/** s3rver (objects as files under `directory`), in a worker thread. */
export async function startS3(options: S3Options & ThreadOptions): Promise<Running> {
  mkdirSync(options.directory, { recursive: true });
  const [s3] = await startInThread([s3Emulator(options)], options);
  return s3 as Running;
}

/**
 * The store (dynalite on LevelDB under `path`) and the queue emulator together in one worker
 * thread, as the runtime runs them, with s3rver (objects as files under `s3.directory`): one V8
 * heap instead of three, and the queue emulator's and s3rver's little CPU (s3rver streams objects
 * between sockets and files) beside the store's. Closing any closes all. `storeChannel` is a MessagePort the store
 * also answers requests on (channel-handler.ts), besides its TCP endpoint; `functionsStoreChannel`
 * another, for the runtime's functions thread (functions-thread.ts). The queue emulator answers on
 * two channels of its own the same way (`sqsChannel`, `functionsSqsChannel`): every send, receive
 * and delete of the consumers would otherwise be a loopback HTTP request, a write and a read system
 * call each way and the HTTP parser on both threads.
 */
export async function startStoreAndQueues(
  options: { path: string; s3?: S3Options } & ThreadOptions,
): Promise<{ store: Running; sqs: Running; s3?: Running; storeChannel: MessagePort; functionsStoreChannel: MessagePort; sqsChannel: MessagePort; functionsSqsChannel: MessagePort }> {
  mkdirSync(options.path, { recursive: true });
  if (options.s3) mkdirSync(options.s3.directory, { recursive: true });
  const main = new MessageChannel();
  const functions = new MessageChannel();
  const sqsMain = new MessageChannel();
  const sqsFunctions = new MessageChannel();
  const [store, sqs, s3] = await startInThread(
    [
      { kind: 'dynalite', options: { path: options.path, port: 0 }, channels: [main.port2, functions.port2] },
      { kind: 'sqs', options: { port: 0 }, channels: [sqsMain.port2, sqsFunctions.port2] },
      ...(options.s3 ? [s3Emulator(options.s3)] : []),
    ],
    options,
  );
  return {
    store: store as Running,
    sqs: sqs as Running,
    ...(s3 ? { s3 } : {}),
    storeChannel: main.port1,
    functionsStoreChannel: functions.port1,
    sqsChannel: sqsMain.port1,
    functionsSqsChannel: sqsFunctions.port1,
  };
}

export interface RunningSes extends Running {
  /**
   * The emulator's id of the mail it holds for our message id (the X-Postbox-Message-Id header),
   * kept mail from before a restart included; undefined when it holds none.
   */
  sentMail(messageId: string): HeldReceipt | undefined;
  /** Every mail it holds that carries our message id, oldest first (the SES feedback's recovery reads it). */
  heldMail(): HeldMail[];
  /** Our message ids indexed, and the mails the emulator's array holds (the newest, with a mail file). */
  mailCounts(): { indexed: number; inMemory: number };
}

/**
 * aws-ses-v2-local: SES v2 SendEmail, `GET /` lists sent mail, `GET /store` as JSON. With
 * `mailFile`, the mail it receives is written there before its answer leaves and outlives a
 * restart; only the newest few stay in memory (ses-mail-book.ts).
 */
export async function startSes(options: { port?: number; mailFile?: string; /** Mails kept in memory past the file (default MAIL_IN_MEMORY). */ mailInMemory?: number } = {}): Promise<RunningSes> {
  type Start = (o: { host: string; port: number }) => Promise<Server>;
  // A CommonJS module with `exports.default`: tsx's loader hands that over as `default`, Node's own
  // (the functions thread's bundle, functions-build.ts) the whole exports object.
  const { default: exported } = (await import('aws-ses-v2-local')) as unknown as { default: Start | { default: Start } };
  const start = typeof exported === 'function' ? exported : exported.default;
  const host = LOOPBACK;
  // Port 0 when none is configured: the kernel's pick, bound at once (a port probed free first
  // could be taken by another process before the bind).
  const server = await start({ host, port: options.port ?? 0 });
  const { port } = server.address() as AddressInfo;
  const book = new SesMailBook(options.mailFile, options.mailInMemory);
  // In front of the emulator's own listener (express): each answer is held until the mail it took
  // is in the file (a client that saw its SendEmail succeed finds it there even if the process is
  // killed right after), and its readers of the mail are answered from the file.
  const emulator = server.listeners('request') as Array<(request: IncomingMessage, response: ServerResponse) => void>;
  server.removeAllListeners('request');
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const end = response.end;
    response.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
      book.sync();
      return end.apply(this, args);
    } as ServerResponse['end'];
    if (book.serve(request, response)) return;
    for (const listener of emulator) listener.call(server, request, response);
  });
  const close = closer(server);
  return {
    endpoint: `http://${host}:${port}`,
    port,
    sentMail: (messageId) => book.sentMail(messageId),
    heldMail: () => book.heldMail(),
    mailCounts: () => book.counts(),
    close: async () => {
      book.sync();
      await close();
    },
  };
}

export async function freePort(host = '127.0.0.1'): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  return new Promise((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, host, () => {
      const { port } = probe.address() as AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}
