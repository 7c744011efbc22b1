// The local runtime as the benchmarks drive it. Calls are counted at the PORTS: the container's
// store, queue, mailer and object store are wrapped in counting decorators, and every handler reads
// the same container, so a count is what the code asked of the store, the queue, the provider and
// the bucket. The queue consumers are run here (the same QueuePoller and handler exports the
// runtime uses), each invocation inside an AsyncLocalStorage scope naming its queue, so a port call
// knows which step made it; the pollers' own SQS receives and deletes are not port calls and are
// modelled from the invocations (one receive and one delete per non-empty batch).
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { SQSEvent } from 'aws-lambda';
import { functions } from '../../functions/manifest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { createDomain } from '../../shared/domains/service';
import { queueNamed } from '../../shared/platform';
import { readLocalSettings } from '../../shared/runtime/config';
import type { Container } from '../../shared/runtime/container';
import { loadFunction, startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { QueuePoller, type QueueHandler } from '../../local/queue-poller';

type PortName = 'store' | 'queue' | 'mailer' | 'objects';

export interface PortCall {
  port: PortName;
  /** The port method: get, create, batchPut, sendBatch, send, … */
  op: string;
  args: unknown[];
  result?: unknown;
  /** Error name when the call threw (a failed condition is ConditionFailedError). */
  failed?: string;
  /**
   * The stored item(s) a write found, read uncounted just before it (after it, for a create that
   * failed) when counting was started with `{ before: true }`: DynamoDB charges a write by the larger
   * of the item before and after, and an index entry by what changed in it (bench/lib/cost.ts).
   * A single item (or null: none) for put, create, update and delete; an array for batchPut.
   */
  before?: Record<string, unknown> | null | Array<Record<string, unknown> | null>;
  /** Who made it: `api` (an HTTP request), a queue name (its consumer) or a scope set with `actingAs`. */
  by: string;
  startMs: number;
  ms: number;
}

/** The store calls an HTTP request made (not a consumer's, not a scope set with `actingAs`). */
export const apiStoreCalls = (calls: readonly PortCall[]): PortCall[] => calls.filter((call) => call.by === 'api' && call.port === 'store');

export interface Invocation {
  queue: string;
  /** Parsed message bodies of the batch. */
  bodies: unknown[];
  startMs: number;
  ms: number;
}

const actor = new AsyncLocalStorage<string>();

/** Runs `fn` so that the port calls it makes are booked to `who`. */
export const actingAs = <T>(who: string, fn: () => Promise<T>): Promise<T> => actor.run(who, fn);

/** Every method of `target` counted into `calls`; a Proxy, so it is the same object to its users. */
type Key = { pk: unknown; sk: unknown };
const keyOf = (item: Key): Key => ({ pk: item.pk, sk: item.sk });
type RawStore = { get(key: Key): Promise<Record<string, unknown> | undefined>; batchGet(keys: Key[]): Promise<Array<Record<string, unknown>>> };

/** The stored items a write is about to replace, read on the raw store (so never counted). */
async function storedBefore(store: RawStore, op: string, args: unknown[]): Promise<PortCall['before']> {
  if (op === 'update' || op === 'delete') return (await store.get(keyOf(args[0] as Key))) ?? null;
  if (op === 'put') return (await store.get(keyOf(args[0] as Key))) ?? null;
  if (op === 'batchPut') {
    const items = args[0] as Key[];
    const found = new Map((await store.batchGet(items.map(keyOf))).map((i) => [`${String(i.pk)}|${String(i.sk)}`, i]));
    return items.map((i) => found.get(`${String(i.pk)}|${String(i.sk)}`) ?? null);
  }
  return undefined;
}

function counted<T extends object>(target: T, port: PortName, calls: PortCall[], options: { before?: boolean } = {}): T {
  return new Proxy(target, {
    get(object, prop) {
      const value: unknown = Reflect.get(object, prop, object);
      if (typeof value !== 'function') return value;
      return async (...args: unknown[]) => {
        const op = String(prop);
        const capture = options.before === true && port === 'store';
        const before = capture ? await storedBefore(object as unknown as RawStore, op, args) : undefined;
        const call: PortCall = { port, op, args, by: actor.getStore() ?? 'api', startMs: performance.now(), ms: 0 };
        if (before !== undefined) call.before = before;
        calls.push(call);
        try {
          call.result = await (value as (...a: unknown[]) => Promise<unknown>).apply(object, args);
          if (capture && op === 'create') call.before = null;
          return call.result;
        } catch (error) {
          call.failed = (error as Error)?.name ?? 'error';
          // A create that failed met an item: the one DynamoDB charges the failed write for.
          if (capture && op === 'create') call.before = (await (object as unknown as RawStore).get(keyOf(args[0] as Key)).catch(() => undefined)) ?? null;
          throw error;
        } finally {
          call.ms = performance.now() - call.startMs;
        }
      };
    },
  });
}

export interface BenchRuntime {
  rt: LocalRuntime;
  c: Container;
  /** Port calls since the last `take()`. */
  take(): PortCall[];
  /** Consumer invocations since the last `takeInvocations()`. */
  takeInvocations(): Invocation[];
  /**
   * Starts counting at the ports (until `uncount()`). `before`: each store write first reads the
   * item it replaces (uncounted, but it adds a read's latency to the write), for the cost model.
   */
  count(options?: { before?: boolean }): void;
  uncount(): void;
  /** Polls every consumed queue in turn until a whole pass finds nothing: one message's steps, in order. */
  drain(): Promise<void>;
  /** Polls continuously, as the runtime's own pollers do. */
  startConsumers(): void;
  close(): Promise<void>;
}

/** The HTTP functions on a local runtime of their own (fresh DATA_DIR); the queue consumers run here. */
export async function startBenchRuntime(env: Record<string, string> = {}): Promise<BenchRuntime> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-bench-'));
  const settings = readLocalSettings({ HOST: '127.0.0.1', PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env });
  const rt = await startLocalRuntime(settings, functions.filter((f) => !f.queue));
  const c = rt.container;
  const raw = { store: c.store, queue: c.queue, mailer: c.mailer, objects: c.objects };
  let calls: PortCall[] = [];
  let invocations: Invocation[] = [];
  const pollers: QueuePoller[] = [];
  for (const fn of functions.filter((f) => f.queue)) {
    const queue = queueNamed(fn.queue!);
    const handler = await loadFunction<QueueHandler>(fn);
    const invoke: QueueHandler = async (event: SQSEvent) => {
      const inv: Invocation = { queue: queue.name, bodies: event.Records.map((r) => parse(r.body)), startMs: performance.now(), ms: 0 };
      invocations.push(inv);
      try {
        return await actingAs(queue.name, () => handler(event));
      } finally {
        inv.ms = performance.now() - inv.startMs;
      }
    };
    const { queueUrls, queueArns, region } = c.config;
    pollers.push(new QueuePoller(rt.sqsClient, { queue, url: queueUrls[queue.name]!, arn: queueArns[queue.name]!, region, handler: invoke, retryDelaySeconds: settings.queueRetryDelaySeconds, logger: c.logger }));
  }
  return {
    rt,
    c,
    take: () => calls.splice(0),
    takeInvocations: () => invocations.splice(0),
    count(options = {}) {
      calls = [];
      c.store = counted(raw.store, 'store', calls, options);
      c.queue = counted(raw.queue, 'queue', calls);
      c.mailer = counted(raw.mailer, 'mailer', calls);
      c.objects = counted(raw.objects, 'objects', calls);
    },
    uncount: () => Object.assign(c, raw),
    async drain() {
      for (let pass = 0, seen = 1; seen > 0; pass++) {
        if (pass > 5) throw new Error('queues still busy after five passes');
        seen = 0;
        for (const p of pollers) for (let n = await p.pollOnce(); n > 0; n = await p.pollOnce()) seen += n;
      }
    },
    startConsumers: () => pollers.forEach((p) => p.start()),
    async close() {
      await Promise.all(pollers.map((p) => p.stop()));
      await rt.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function parse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return body;
  }
}

export async function http(rt: LocalRuntime, method: string, path: string, token: string, body?: unknown): Promise<{ status: number; json: any; ms: number; bytes: number }> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const t0 = performance.now();
  const res = await fetch(`${rt.url}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(text ? { 'content-type': 'application/json' } : {}) },
    body: text,
    signal: AbortSignal.timeout(120_000),
  });
  const json = parse(await res.text());
  return { status: res.status, json, ms: performance.now() - t0, bytes: text ? Buffer.byteLength(text) : 0 };
}

/**
 * A fresh account whose sending domain is marked verified in the store, standing in for the DNS
 * check, so it is out of sandbox mode and may mail anyone.
 */
export async function newSender(c: Container, name: string): Promise<{ key: string; accountId: string; from: string }> {
  const account = await createAccount(c, { name });
  const domain = `${account.account_id.slice(-10).toLowerCase()}.bench.test`;
  await createDomain(c, account.account_id, domain);
  await c.store.update(keys.domain(account.account_id, domain), {
    expression: 'SET dkim_status = :v, spf_status = :v, dmarc_status = :v',
    values: { ':v': 'verified' },
  });
  return { key: account.admin_key, accountId: account.account_id, from: `bench@${domain}` };
}
