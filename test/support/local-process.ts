// Starts `bin/local.mjs` (bin/local.ts, bundled) as its own process, the way `npm start` does, on free ports, and calls its
// API the way a client that honours 429 does, unless a test is about the rate limiter itself.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll } from 'vitest';
import { waitFor } from './wait';

const root = fileURLToPath(new URL('../../', import.meta.url));

export interface RuntimeProcess {
  url: string;
  sesUrl: string;
  /** The SMTP listener (smtp://host:port), when inbound is on. */
  smtpUrl?: string;
  child: ChildProcess;
  output(): string;
  /** Sends the signal and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export async function startRuntimeProcess(env: Record<string, string>): Promise<RuntimeProcess> {
  const child = spawn(process.execPath, ['bin/local.mjs'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', LOG_LEVEL: 'warn', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let url: string;
  try {
    url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`runtime did not start within 45 s:\n${out}`)), 45_000);
      const check = (): void => {
        const m = /^READY (\S+)$/m.exec(out);
        if (m) {
          clearTimeout(timer);
          resolve(m[1] as string);
        }
      };
      child.stdout?.on('data', check);
      void exited.then(() => {
        clearTimeout(timer);
        reject(new Error(`runtime exited before it was ready:\n${out}`));
      });
    });
  } catch (error) {
    // A runtime that never became ready is still a process: it must not outlive the test run.
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await exited;
    throw error;
  }
  const sesUrl = /SES emulator\):\s+(\S+?)\/?$/m.exec(out)?.[1] ?? '';
  const smtpUrl = /inbound mail \(SMTP\):\s+(smtp:\/\/\S+)$/m.exec(out)?.[1];
  return {
    url,
    sesUrl,
    ...(smtpUrl ? { smtpUrl } : {}),
    child,
    output: () => out,
    stop: async (signal = 'SIGINT') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

export interface ApiResponse {
  status: number;
  headers: Headers;
  body: any;
}

/** One request, answered however the service answers it, 429 included: for tests of the rate limiter itself. */
export async function apiOnce(base: string, method: string, path: string, key?: string, body?: unknown): Promise<ApiResponse> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  // JSON answers parsed; a page or a file (the reference page, a zone file) kept as its text.
  const json = (res.headers.get('content-type') ?? '').startsWith('application/json');
  return { status: res.status, headers: res.headers, body: text ? (json ? JSON.parse(text) : text) : undefined };
}

/**
 * A refusal before the route ran: the local runtime shedding load (503 service_unavailable), or the
 * pipeline's per-second limiter (account or IP): rate_limit_exceeded with no budget
 * remaining. The route did not run, so sending the same request again is safe. The 429s a route
 * returns (test_send_daily_limit, …) are answers a test asserts on. The hourly cap on confirmation
 * mails shares the code; a test that reached it here would fail on the wait, naming the request.
 */
async function throttled(res: ApiResponse | Response): Promise<boolean> {
  const body = () => (res instanceof Response ? res.clone().json().catch(() => undefined) : Promise.resolve(res.body));
  // The local runtime sheds load before any route runs (503 service_unavailable): as safe to resend.
  if (res.status === 503) return (await body())?.error?.code === 'service_unavailable';
  if (res.status !== 429 || res.headers.get('x-ratelimit-remaining') !== '0') return false;
  return (await body())?.error?.code === 'rate_limit_exceeded';
}

/**
 * Sends `send()` again while the per-second limiter refuses it, so a test that is not about the
 * limiter can make requests at the pace it needs without counting them. Fails if the limiter
 * never lets it through.
 */
export function admitted<R extends ApiResponse | Response>(send: () => Promise<R>, what: string): Promise<R> {
  return waitFor(async () => {
    const res = await send();
    if (!(await throttled(res))) return res;
    if (res instanceof Response) await res.arrayBuffer(); // frees the connection of the refused attempt
    return undefined;
  }, { what: `the rate limiter to admit ${what}`, timeoutMs: 15_000, intervalMs: 100 });
}

/** One API call, once the per-second rate limiter admits it (see apiOnce for the limiter's own tests). */
export function api(base: string, method: string, path: string, key?: string, body?: unknown): Promise<ApiResponse> {
  return admitted(() => apiOnce(base, method, path, key, body), `${method} ${path}`);
}

/** What `npm start` wrote to DATA_DIR/bootstrap.json on its first start. */
export interface Bootstrap {
  account_id: string;
  admin_key: string;
  test_admin_key: string;
  staff_token: string;
}

export interface KillableRuntime {
  /** The running process (replaced by `restart`). */
  readonly current: RuntimeProcess;
  readonly dataDir: string;
  readonly bootstrap: Bootstrap;
  /** `kill -9` of the current process, then a new one on the same DATA_DIR. */
  restart(): Promise<RuntimeProcess>;
}

/**
 * The prelude of the crash tests: before all, a runtime process on a DATA_DIR of its own (the
 * bootstrap account's own address, exempt from the sign-up accounts' own-address cap, and a 1 s
 * queue retry delay unless `env` says otherwise); after all, the process killed and the directory
 * removed.
 */
export function useKillableRuntime(name: string, env: Record<string, string> = {}): KillableRuntime {
  let dataDir = '';
  let running: RuntimeProcess | undefined;
  let bootstrap: Bootstrap | undefined;
  const settings = () => ({ DATA_DIR: dataDir, QUEUE_RETRY_DELAY_SECONDS: '1', ACCOUNT_EMAIL: 'ada@example.com', ...env });
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), `postbox-${name}-`));
    running = await startRuntimeProcess(settings());
    bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Bootstrap;
  });
  afterAll(async () => {
    await running?.stop('SIGKILL');
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the runtime is not started: useKillableRuntime runs in beforeAll');
    return value;
  };
  return {
    get current() {
      return started(running);
    },
    get dataDir() {
      return started(dataDir || undefined);
    },
    get bootstrap() {
      return started(bootstrap);
    },
    async restart() {
      await running?.stop('SIGKILL');
      running = undefined;
      running = await startRuntimeProcess(settings());
      return running;
    },
  };
}
