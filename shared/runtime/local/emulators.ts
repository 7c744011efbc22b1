// The embedded AWS stand-ins of the local runtime, each started in-process. They listen on
// loopback and nowhere else, whatever HOST says: none of them asks for credentials, and the SES
// emulator's store and clear endpoints would otherwise hand anyone the mail.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';

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

/** aws-ses-v2-local: SES v2 SendEmail, `GET /` lists sent mail, `GET /store` as JSON. */
export async function startSes(options: { port?: number } = {}): Promise<Running> {
  const { default: start } = (await import('aws-ses-v2-local')) as unknown as {
    default: (o: { host: string; port: number }) => Promise<Server>;
  };
  const host = LOOPBACK;
  const port = options.port || (await freePort(host));
  const server = await start({ host, port });
  return { endpoint: `http://${host}:${port}`, port, close: closer(server) };
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
