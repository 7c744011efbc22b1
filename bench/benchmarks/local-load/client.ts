// What the local-load benchmark drives `npm start` with: the runtime as its own process, an HTTP
// client that never retries unless asked, an open loop, lone reads, the process tree's RSS and a
// loopback webhook receiver.
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sleep } from '../../lib/measure';

export const TIMEOUT_MS = 10_000;

export interface Answer {
  status: number | 'timeout' | 'error';
  ms: number;
  body: string;
}

export const agent = new Agent({ keepAlive: true, maxSockets: 512 });

function send(base: string, method: string, path: string, headers: Record<string, string>, text: string | undefined): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const done = (status: Answer['status'], body = ''): void => resolve({ status, ms: performance.now() - t0, body });
    const req = request(new URL(path, base), { method, agent, timeout: TIMEOUT_MS, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => done(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
      res.on('error', () => done('error'));
    });
    req.on('timeout', () => {
      req.destroy();
      done('timeout');
    });
    req.on('error', () => done('error'));
    req.end(text);
  });
}

/** One request, answered or timed out; never retried. */
export function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  return send(base, method, path, { authorization: `Bearer ${token}`, ...(text ? { 'content-type': 'application/json' } : {}) }, text);
}

/** A raw body (a CSV upload) with the same client. */
export function upload(base: string, path: string, token: string, body: string, type: string): Promise<Answer> {
  return send(base, 'POST', path, { authorization: `Bearer ${token}`, 'content-type': type }, body);
}

/** A call retried while the runtime sheds or limits it (set-up and progress, never a measured call). */
export async function admitted(base: string, method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await call(base, method, path, token, body);
    if ((res.status !== 429 && res.status !== 503) || attempt > 50) return res;
    await sleep(250);
  }
}

/** Sends `make(i)` at `rate` per second for `ms`, never waiting for answers (open loop). */
export async function openLoop(rate: number, ms: number, make: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const pending: Array<Promise<Answer>> = [];
  const t0 = performance.now();
  for (let i = 0; i < (rate * ms) / 1000; i++) {
    const wait = t0 + (i * 1000) / rate - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(make(i));
  }
  return Promise.all(pending);
}

/** Reads `path` one at a time every `everyMs` until `done()`; every answer, 503s included. */
export async function loneReads(base: string, path: string, token: string, everyMs: number, done: () => boolean): Promise<Answer[]> {
  const out: Answer[] = [];
  while (!done()) {
    const next = performance.now() + everyMs;
    out.push(await call(base, 'GET', path, token));
    await sleep(Math.max(0, next - performance.now()));
  }
  return out;
}

export const count = (answers: readonly Answer[], pred: (a: Answer) => boolean): number => answers.filter(pred).length;
export const okMs = (answers: readonly Answer[], status = 200): number[] => answers.filter((a) => a.status === status).map((a) => a.ms);

/** VmRSS (KiB) of `pid` and every process under it (threads share their process's). */
function treeRssKiB(pid: number): number {
  const parents = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parents.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  let kib = 0;
  for (const p of tree) {
    try {
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kib;
}

export interface Runtime {
  child: ChildProcess;
  url: string;
  dynamodb: string;
  smtpPort?: number;
  /** Peak RSS (MiB) of the process tree since start, sampled every 200 ms; `mark()` restarts a window. */
  peakMiB(): number;
  windowPeakMiB(): number;
  mark(): void;
  stop(): Promise<void>;
}

/** `bin/local.mjs` as `npm start` runs it (MALLOC_ARENA_MAX=2 too), on free ports, with `env` added; resolves once READY. */
export async function startRuntime(projectRoot: string, dataDir: string, env: Record<string, string> = {}): Promise<Runtime> {
  // POSTBOX_LOAD_NODE_ARGS: extra node options for the runtime (e.g. --cpu-prof), for profiling.
  const extra = (process.env.POSTBOX_LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extra, 'bin/local.mjs'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MALLOC_ARENA_MAX: '2', PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const pid = child.pid as number;
  let peak = 0;
  let windowPeak = 0;
  const sample = (): void => {
    const kib = treeRssKiB(pid);
    peak = Math.max(peak, kib);
    windowPeak = Math.max(windowPeak, kib);
  };
  const sampler = setInterval(sample, 200);
  const stop = async (): Promise<void> => {
    clearInterval(sampler);
    const exited = new Promise((resolve) => child.once('exit', resolve));
    if (child.exitCode === null) child.kill('SIGINT');
    await Promise.race([exited, sleep(15_000)]);
    if (child.exitCode === null) child.kill('SIGKILL');
  };
  const deadline = performance.now() + 60_000;
  while (!/^READY (\S+)$/m.test(out)) {
    if (child.exitCode !== null || performance.now() > deadline) {
      await stop();
      throw new Error(`runtime did not start:\n${out}`);
    }
    await sleep(50);
  }
  const smtp = /inbound mail \(SMTP\):\s+smtp:\/\/\S+:(\d+)/.exec(out)?.[1];
  return {
    child,
    url: /^READY (\S+)$/m.exec(out)![1]!,
    dynamodb: /store \(DynamoDB endpoint\):\s+(\S+)/.exec(out)![1]!,
    ...(smtp ? { smtpPort: Number(smtp) } : {}),
    peakMiB: () => peak / 1024,
    windowPeakMiB: () => windowPeak / 1024,
    mark: () => (windowPeak = 0),
    stop,
  };
}

/** A loopback webhook endpoint: answers 200 at once and notes when each event id (and its message) arrived. */
export async function startReceiver(): Promise<{ url: string; arrivals: Map<string, number[]>; messageOf: Map<string, string>; close(): Promise<void> }> {
  const arrivals = new Map<string, number[]>();
  const messageOf = new Map<string, string>();
  const server = createServer((req, res) => {
    const at = performance.now();
    const id = String(req.headers['service-event-id'] ?? '');
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      arrivals.set(id, [...(arrivals.get(id) ?? []), at]);
      try {
        const messageId = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { message_id?: string }).message_id;
        if (messageId) messageOf.set(id, messageId);
      } catch {
        // not JSON: counted, not matched to a message
      }
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    messageOf,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}
