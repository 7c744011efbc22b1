// The embedded AWS stand-ins of the local runtime, each started in-process. They listen on
// loopback and nowhere else, whatever HOST says: none of them asks for credentials, and the SES
// emulator's store and clear endpoints would otherwise hand anyone the mail.
import type { AddressInfo } from 'node:net';
import type { Server, ServerResponse } from 'node:http';
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { MESSAGE_ID_HEADER } from '../../ports/mailer';

const require = createRequire(import.meta.url);
const LOOPBACK = '127.0.0.1';

export interface Running {
  endpoint: string;
  port: number;
  close(): Promise<void>;
}

function closer(server: Server): () => Promise<void> {
  return () =>
    new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    });
}

function listen(server: Server, host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve((server.address() as AddressInfo).port);
    });
  });
}

/** dynalite on LevelDB under `path` (in memory when omitted). */
export async function startDynalite(options: { path?: string; port?: number } = {}): Promise<Running> {
  const dynalite = require('dynalite') as (opts: Record<string, unknown>) => Server;
  if (options.path) mkdirSync(options.path, { recursive: true });
  const server = dynalite({ path: options.path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const host = LOOPBACK;
  const port = await listen(server, host, options.port ?? 0);
  return { endpoint: `http://${host}:${port}`, port, close: closer(server) };
}

export async function startSqs(options: { port?: number } = {}): Promise<Running> {
  const { createSqsServer } = (await import('local-aws-sqs')) as unknown as {
    createSqsServer: (o: Record<string, unknown>) => Promise<Server>;
  };
  const host = LOOPBACK;
  // local-aws-sqs listens as it is created; find a free port first when asked for any.
  const port = options.port || (await freePort(host));
  const server = await createSqsServer({ port, hostname: host, emulateQueueCreationLifecycle: false });
  return { endpoint: `http://${host}:${port}`, port, close: closer(server) };
}

export interface RunningSes extends Running {
  /**
   * The emulator's id of the mail it holds for our message id (the X-Postbox-Message-Id header),
   * kept mail from before a restart included; undefined when it holds none.
   */
  sentMail(messageId: string): string | undefined;
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
    close: async () => {
      flush();
      await close();
    },
  };
}

/** The part of the emulator's module-level store (dist/store.js) that we read. */
interface SesMailStore {
  emails: Array<{ messageId: string; headers?: Array<{ name: string; value: string }> }>;
}

const sesStore = (): SesMailStore => (require('aws-ses-v2-local/dist/store.js') as { getStoreReadonly(): SesMailStore }).getStoreReadonly();

/**
 * Our message id → the emulator's id, from the X-Postbox-Message-Id header of the mail it holds.
 * The store only grows between clears, so each lookup indexes the mail added since the last one;
 * a clear (the emulator replaces the array) starts the index over.
 */
function sentMailIndex(): (messageId: string) => string | undefined {
  const store = sesStore();
  const header = MESSAGE_ID_HEADER.toLowerCase();
  let list = store.emails;
  let indexed = 0;
  const index = new Map<string, string>();
  return (messageId) => {
    if (store.emails !== list || store.emails.length < indexed) {
      list = store.emails;
      indexed = 0;
      index.clear();
    }
    for (; indexed < list.length; indexed++) {
      const email = list[indexed];
      const ours = email?.headers?.find((h) => h.name.toLowerCase() === header)?.value;
      if (email && ours && !index.has(ours)) index.set(ours, email.messageId);
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
