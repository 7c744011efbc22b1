// Webhook receivers on loopback: an HTTP or HTTPS server that records every request byte-exact
// (method, path, headers, raw body) and answers as the test programs it: a status, a delay, a
// redirect, a large or endless body, or no answer at all. And a throwaway self-signed certificate
// made with the openssl CLI, for the HTTPS receiver.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingHttpHeaders, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TLSSocket } from 'node:tls';

export interface RecordedRequest {
  method: string;
  /** Path and query, as sent on the request line. */
  path: string;
  /** Lower-cased names, as node parses them. */
  headers: IncomingHttpHeaders;
  /** Names and values in arrival order and case: [name, value, name, value, …]. */
  rawHeaders: string[];
  body: Buffer;
  /** The address the connection arrived on (which loopback address a client dialled). */
  localAddress: string;
  remoteAddress: string;
  /** TLS SNI, HTTPS receivers only; undefined when the client sent none. */
  servername?: string;
}

export interface Reply {
  /** Default 200, or 302 with `redirectTo`. */
  status?: number;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Sets Location. */
  redirectTo?: string;
  /** Wait this long before answering. */
  delayMs?: number;
  /** 'before-status': never answer. 'after-headers': send status, headers and body, never end. */
  hang?: 'before-status' | 'after-headers';
}

/** A fixed reply, or one chosen per request (by path, by count, …). */
export type Responder = Reply | ((request: RecordedRequest, index: number) => Reply);

export interface Receiver {
  /** Base URL, e.g. http://127.0.0.1:41234 (no trailing slash). */
  url: string;
  host: string;
  port: number;
  requests: RecordedRequest[];
  /** Replaces how later requests are answered. */
  reply(responder: Responder): void;
  /** Resolves when at least `count` requests have arrived; rejects after `timeoutMs`. */
  waitFor(count: number, timeoutMs?: number): Promise<RecordedRequest[]>;
  close(): Promise<void>;
}

export interface ReceiverOptions {
  /** Default 127.0.0.1; any 127/8 address works on Linux. */
  host?: string;
  /** Default: a free port. */
  port?: number;
  reply?: Responder;
}

export interface TlsIdentity {
  key: string;
  cert: string;
}

export function startHttpReceiver(options: ReceiverOptions = {}): Promise<Receiver> {
  return listen(createHttpServer(), 'http', options);
}

export function startHttpsReceiver(identity: TlsIdentity, options: ReceiverOptions = {}): Promise<Receiver> {
  return listen(createHttpsServer({ key: identity.key, cert: identity.cert }), 'https', options);
}

/**
 * A self-signed certificate (P-256, one day) for the given DNS names and IP addresses, made with
 * the openssl CLI; undefined when openssl is not installed. Trust it by passing `cert` as a CA.
 */
export function selfSignedCert(names: { dns?: string[]; ips?: string[] }): TlsIdentity | undefined {
  const dns = names.dns ?? [];
  const ips = names.ips ?? [];
  const dir = mkdtempSync(join(tmpdir(), 'receiver-cert-'));
  try {
    const san = [...dns.map((d) => `DNS:${d}`), ...ips.map((i) => `IP:${i}`)].join(',');
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1',
        '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-subj', `/CN=${dns[0] ?? ips[0] ?? 'localhost'}`, '-addext', `subjectAltName=${san}`],
      { stdio: 'pipe' },
    );
    return { key: readFileSync(join(dir, 'key.pem'), 'utf8'), cert: readFileSync(join(dir, 'cert.pem'), 'utf8') };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** What arrived: the request as node parsed it, its raw body, and the connection's addresses (and SNI over TLS). */
function recordOf(req: IncomingMessage, body: Buffer, scheme: 'http' | 'https'): RecordedRequest {
  return {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    rawHeaders: req.rawHeaders,
    body,
    localAddress: req.socket.localAddress ?? '',
    remoteAddress: req.socket.remoteAddress ?? '',
    ...(scheme === 'https' ? { servername: (req.socket as TLSSocket).servername || undefined } : {}),
  };
}

/** Answers as `reply` says: never, now, or after its delay (a timer in `timers` until it fires). */
function answerWith(res: ServerResponse, reply: Reply, timers: Set<NodeJS.Timeout>): void {
  if (reply.hang === 'before-status') return;
  const answer = (): void => {
    const headers = { ...reply.headers, ...(reply.redirectTo ? { location: reply.redirectTo } : {}) };
    res.writeHead(reply.status ?? (reply.redirectTo ? 302 : 200), headers);
    if (reply.hang === 'after-headers') {
      res.write(reply.body ?? ' ');
      return;
    }
    res.end(reply.body);
  };
  if (!reply.delayMs) return answer();
  const timer = setTimeout(() => {
    timers.delete(timer);
    answer();
  }, reply.delayMs);
  timers.add(timer);
}

/** Resolves when at least `count` requests have arrived (woken through `waiters`); rejects after `timeoutMs`. */
function awaitRequests(requests: RecordedRequest[], waiters: Set<() => void>, count: number, timeoutMs: number): Promise<RecordedRequest[]> {
  return new Promise((resolve, reject) => {
    const check = (): boolean => {
      if (requests.length < count) return false;
      clearTimeout(timer);
      waiters.delete(wake);
      resolve(requests.slice(0, count));
      return true;
    };
    const wake = (): void => void check();
    const timer = setTimeout(() => {
      waiters.delete(wake);
      reject(new Error(`receiver got ${requests.length} of ${count} requests within ${timeoutMs} ms`));
    }, timeoutMs);
    if (!check()) waiters.add(wake);
  });
}

async function listen(server: Server, scheme: 'http' | 'https', options: ReceiverOptions): Promise<Receiver> {
  const host = options.host ?? '127.0.0.1';
  const requests: RecordedRequest[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  let responder: Responder = options.reply ?? {};

  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const recorded = recordOf(req, Buffer.concat(chunks), scheme);
      const index = requests.push(recorded) - 1;
      for (const wake of waiters) wake();
      answerWith(res, typeof responder === 'function' ? responder(recorded, index) : responder, timers);
    });
  });

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;

  return {
    url: `${scheme}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    host,
    port,
    requests,
    reply(next) {
      responder = next;
    },
    waitFor(count, timeoutMs = 5000) {
      return awaitRequests(requests, waiters, count, timeoutMs);
    },
    async close() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
