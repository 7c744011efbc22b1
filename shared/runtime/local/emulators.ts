// The embedded AWS stand-ins of the local runtime. The store (dynalite) and the queue emulator
// run in a worker thread (the runtime puts both in one; tests may start either alone), so their
// CPU work never holds up the API's event loop and, being threads, they die with the process (kill -9 included) and leave no orphan writing to
// the data dir. The SES emulator stays on the main thread: the SES simulator looks up the mail it
// holds synchronously (sentMail) and it takes one call per message. All of them listen on loopback
// and nowhere else, whatever HOST says: none of them asks for credentials, and the SES emulator's
// store and clear endpoints would otherwise hand anyone the mail.
import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MessageChannel, Worker, type MessagePort } from 'node:worker_threads';
import type { HeldMail, HeldReceipt } from '../../adapters/local/ses-feedback';
import { MESSAGE_ID_HEADER } from '../../ports/mailer';

const require = createRequire(import.meta.url);
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

const THREAD_FILE = new URL('./emulator-thread.mjs', import.meta.url);

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
  emulators: ReadonlyArray<{ kind: ThreadKind; options: Record<string, unknown>; channel?: MessagePort }>,
  thread: ThreadOptions,
): Promise<Running[]> {
  const name = emulators.map((e) => e.kind).join('+');
  const transferList = emulators.flatMap((e) => (e.channel ? [e.channel] : []));
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
  // local-aws-sqs listens as it is created; find a free port first when asked for any.
  const port = options.port || (await freePort(LOOPBACK));
  const [sqs] = await startInThread([{ kind: 'sqs', options: { port } }], options);
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
 * also answers requests on (channel-handler.ts), besides its TCP endpoint.
 */
export async function startStoreAndQueues(options: { path: string; s3?: S3Options } & ThreadOptions): Promise<{ store: Running; sqs: Running; s3?: Running; storeChannel: MessagePort }> {
  mkdirSync(options.path, { recursive: true });
  if (options.s3) mkdirSync(options.s3.directory, { recursive: true });
  const sqsPort = await freePort(LOOPBACK);
  const { port1, port2 } = new MessageChannel();
  const [store, sqs, s3] = await startInThread(
    [
      { kind: 'dynalite', options: { path: options.path, port: 0 }, channel: port2 },
      { kind: 'sqs', options: { port: sqsPort } },
      ...(options.s3 ? [s3Emulator(options.s3)] : []),
    ],
    options,
  );
  return { store: store as Running, sqs: sqs as Running, ...(s3 ? { s3 } : {}), storeChannel: port1 };
}

export interface RunningSes extends Running {
  /**
   * The emulator's id of the mail it holds for our message id (the X-Postbox-Message-Id header),
   * kept mail from before a restart included; undefined when it holds none.
   */
  sentMail(messageId: string): HeldReceipt | undefined;
  /** Every mail it holds that carries our message id, oldest first (the SES feedback's recovery reads it). */
  heldMail(): HeldMail[];
}

/**
 * aws-ses-v2-local: SES v2 SendEmail, `GET /` lists sent mail, `GET /store` as JSON. With
 * `mailFile`, the mail it receives outlives a restart (see keepMail).
 */
export async function startSes(options: { port?: number; mailFile?: string } = {}): Promise<RunningSes> {
  const { default: start } = (await import('aws-ses-v2-local')) as unknown as {
    default: (o: { host: string; port: number }) => Promise<Server>;
  };
  const host = LOOPBACK;
  const port = options.port || (await freePort(host));
  const server = await start({ host, port });
  const flush = options.mailFile ? keepMail(server, options.mailFile) : () => undefined;
  const close = closer(server);
  return {
    endpoint: `http://${host}:${port}`,
    port,
    sentMail: sentMailIndex(),
    heldMail,
    close: async () => {
      flush();
      await close();
    },
  };
}

/** The part of the emulator's module-level store (dist/store.js) that we read. */
interface SesMailStore {
  emails: Array<{
    messageId: string;
    headers?: Array<{ name: string; value: string }>;
    from?: string;
    destination?: { to?: string[] };
    subject?: string;
    /** Epoch seconds. */
    at?: number;
  }>;
}

const sesStore = (): SesMailStore => (require('aws-ses-v2-local/dist/store.js') as { getStoreReadonly(): SesMailStore }).getStoreReadonly();

function heldMail(): HeldMail[] {
  const header = MESSAGE_ID_HEADER.toLowerCase();
  return sesStore().emails.flatMap((email) => {
    const messageId = email.headers?.find((h) => h.name.toLowerCase() === header)?.value;
    if (!messageId) return [];
    const at = takenAt(email);
    return [{ providerMessageId: email.messageId, messageId, from: email.from ?? '', to: email.destination?.to?.[0] ?? '', subject: email.subject ?? '', at }];
  });
}

/** When the emulator took a mail: it keeps epoch seconds, so this is at or before the moment. */
const takenAt = (email: { at?: number }): string => new Date((email.at ?? 0) * 1000).toISOString();

/**
 * Our message id → the emulator's id and when it took the mail, from the X-Postbox-Message-Id header of the mail it holds.
 * The store only grows between clears, so each lookup indexes the mail added since the last one;
 * a clear (the emulator replaces the array) starts the index over.
 */
function sentMailIndex(): (messageId: string) => HeldReceipt | undefined {
  const store = sesStore();
  const header = MESSAGE_ID_HEADER.toLowerCase();
  let list = store.emails;
  let indexed = 0;
  const index = new Map<string, HeldReceipt>();
  return (messageId) => {
    if (store.emails !== list || store.emails.length < indexed) {
      list = store.emails;
      indexed = 0;
      index.clear();
    }
    for (; indexed < list.length; indexed++) {
      const email = list[indexed];
      const ours = email?.headers?.find((h) => h.name.toLowerCase() === header)?.value;
      if (email && ours && !index.has(ours)) index.set(ours, { providerMessageId: email.messageId, at: takenAt(email) });
    }
    return index.get(messageId);
  };
}

/**
 * The emulator keeps its mail in memory only. This copies every email it stores to `file` (one JSON
 * object a line, in the emulator's own shape) as each response to it is about to be sent, and puts
 * the file's mail back into its store at start, so the mail viewer lists what was sent before a
 * restart. Writing before the response leaves means a client that saw its SendEmail succeed finds
 * the mail in the file even if the process is killed right after. The viewer's "clear" empties the
 * file too. Mail can hold one-time links: the file is private to the user, like secrets.json.
 * Returns a flush for shutdown.
 */
function keepMail(server: Server, file: string): () => void {
  const store = sesStore();
  const lines = (emails: readonly unknown[]): string => emails.map((email) => `${JSON.stringify(email)}\n`).join('');
  const saved = existsSync(file)
    ? readFileSync(file, 'utf8')
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as SesMailStore['emails'][number])
    : [];
  const present = new Set(store.emails.map((email) => email.messageId));
  store.emails.push(...saved.filter((email) => !present.has(email.messageId)));
  let list = store.emails;
  let written = list.length;
  const flush = (): void => {
    if (store.emails !== list || store.emails.length < written) {
      // Cleared (the emulator replaces the array): the file follows.
      list = store.emails;
      writeFileSync(file, lines(list), { mode: 0o600 });
      written = list.length;
    } else if (list.length > written) {
      appendFileSync(file, lines(list.slice(written)), { mode: 0o600 });
      written = list.length;
    }
  };
  // Ahead of the emulator's own listener, so the wrapper is in place whatever it answers at once.
  server.prependListener('request', (_request, response: ServerResponse) => {
    const end = response.end;
    response.end = function (this: ServerResponse, ...args: Parameters<ServerResponse['end']>) {
      flush();
      return end.apply(this, args);
    } as ServerResponse['end'];
  });
  return flush;
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
