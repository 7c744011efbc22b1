// The core path of `npm start` under load: 160 authenticated reads/s and then 160 single sends/s
// from 20 accounts (open loop), the store's own GetItem beside them, every accepted send followed
// to `delivered`, then three 1000-item batches in a row against 1000 sequential PutItems to the
// same store, and the webhooks of the batches' simulated deliveries.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_TABLE } from '../../../local/runtime';
import type { LoadTask } from '../../lib/load-worker';
import { LoadWorker, sleep } from '../../lib/measure';
import { admitted, call, openLoop, startReceiver, startRuntime, type Answer, type Runtime } from './client';

export const CORE = { accounts: 20, ratePerSecond: 160, readMs: 15_000, sendMs: 10_000, storeMs: 3_000, batches: 3, batchItems: 1000, putItemBytes: 640, webhookWaitMs: 60_000, deliveredWaitMs: 120_000 } as const;

type Account = { key: string; id: string; email: string };

export interface BatchRun {
  status: Answer['status'];
  ms: number;
  accepted: number;
  /** The ids of the messages it accepted. */
  ids: string[];
  startedAt: number;
}

export interface CoreRun {
  storeMs: number[];
  reads: Answer[];
  sends: Answer[];
  accepted: number;
  /** send → delivered (ms) of every accepted send that was delivered in time. */
  deliveredMs: number[];
  notDelivered: string[];
  /** Seconds from the first send until every accepted send was delivered (or the wait ended). */
  drainedS: number;
  putsMs: number;
  putLatenciesMs: number[];
  batches: BatchRun[];
  /** Per webhook event id: arrivals, and the batch its message came from (-1 unknown). */
  hooks: Array<{ arrivals: number[]; batch: number }>;
  peakMiB: number;
  readPeakMiB: number;
  sendPeakMiB: number;
}

async function makeAccounts(rt: Runtime, staffToken: string): Promise<Account[]> {
  const accounts: Account[] = [];
  for (let i = 0; i < CORE.accounts; i++) {
    const email = `owner${i}@example.com`;
    const made = await admitted(rt.url, 'POST', '/v1/admin/accounts', staffToken, { name: `load ${i}`, email });
    if (made.status !== 201) throw new Error(`POST /v1/admin/accounts answered ${made.status} ${made.body.slice(0, 200)}`);
    const json = JSON.parse(made.body) as { admin_key: string; account_id: string };
    accounts.push({ key: json.admin_key, id: json.account_id, email });
  }
  // Every key once, so the read phase starts on the warm path the cache gives a steady client.
  for (const a of accounts) await admitted(rt.url, 'GET', '/v1/keys', a.key);
  return accounts;
}

/**
 * Every accepted send read back until it shows `delivered` (its event's created_at minus the
 * message's), one account's messages at a time and the accounts together, paced under each
 * account's 10 requests/s.
 */
async function followToDelivered(rt: Runtime, accepted: Array<{ id: string; account: Account }>): Promise<{ deliveredMs: number[]; notDelivered: string[] }> {
  const deliveredMs: number[] = [];
  const notDelivered: string[] = [];
  const deadline = performance.now() + CORE.deliveredWaitMs;
  const byAccount = new Map<Account, string[]>();
  for (const m of accepted) byAccount.set(m.account, [...(byAccount.get(m.account) ?? []), m.id]);
  await Promise.all(
    [...byAccount].map(async ([account, ids]) => {
      for (const id of ids) {
        for (;;) {
          const next = performance.now() + 125;
          const res = await admitted(rt.url, 'GET', `/v1/messages/${id}`, account.key);
          const view = res.status === 200 ? (JSON.parse(res.body) as { status: string; created_at: string; events: Array<{ type: string; created_at: string }> }) : undefined;
          const delivered = view?.events.find((e) => e.type === 'delivered');
          await sleep(Math.max(0, next - performance.now()));
          if (view && delivered) deliveredMs.push(Date.parse(delivered.created_at) - Date.parse(view.created_at));
          else if (performance.now() < deadline) continue;
          else notDelivered.push(`${id}:${view?.status ?? res.status}`);
          break;
        }
      }
    }),
  );
  return { deliveredMs, notDelivered };
}

/** `count` batches of `items` test-mode sends, one right after the other (a 503 is retried after a second). */
async function batchesInARow(rt: Runtime, key: string, email: string): Promise<BatchRun[]> {
  const runs: BatchRun[] = [];
  for (let b = 0; b < CORE.batches; b++) {
    const items = Array.from({ length: CORE.batchItems }, (_, k) => ({ channel: 'email', idempotency_key: `batch-${b}-${k}`, destination: { email }, payload: { subject: `Batch ${b}.${k}`, body_text: 'hello' } }));
    let answer: Answer;
    let startedAt: number;
    let tries = 0;
    do {
      if (tries++ > 0) await sleep(1000);
      startedAt = performance.now();
      answer = await call(rt.url, 'POST', '/v1/send/batch', key, items);
    } while (answer.status === 503 && tries < 30);
    const results = [200, 201, 207].includes(answer.status as number) ? (JSON.parse(answer.body) as Array<{ success?: boolean; response?: { id?: string } }>) : [];
    const ids = results.flatMap((r) => (r?.success && r.response?.id ? [r.response.id] : []));
    runs.push({ status: answer.status, ms: answer.ms, accepted: results.filter((r) => r?.success).length, ids, startedAt });
  }
  return runs;
}

/** The batches' part: a subscribed account, the sequential puts, the batches, their webhooks. */
async function batchPhase(rt: Runtime, staffToken: string, worker: LoadWorker<LoadTask>, log: (line: string) => void): Promise<Pick<CoreRun, 'putsMs' | 'putLatenciesMs' | 'batches' | 'hooks'>> {
  const receiver = await startReceiver();
  try {
    const made = await admitted(rt.url, 'POST', '/v1/admin/accounts', staffToken, { name: 'load batch', email: 'batch-owner@example.com' });
    const batchAccount = JSON.parse(made.body) as { test_admin_key: string };
    const sub = await admitted(rt.url, 'POST', '/v1/webhooks', batchAccount.test_admin_key, { endpoint_url: receiver.url, event_types: ['delivered'] });
    if (sub.status !== 201) throw new Error(`POST /v1/webhooks answered ${sub.status} ${sub.body.slice(0, 200)}`);
    log(`  ${CORE.batchItems} sequential PutItems, then ${CORE.batches} ${CORE.batchItems}-item batches in a row`);
    const puts = await worker.run({ kind: 'puts', endpoint: rt.dynamodb, tableName: LOCAL_TABLE, region: 'us-east-1', count: CORE.batchItems, itemBytes: CORE.putItemBytes });
    const batches = await batchesInARow(rt, batchAccount.test_admin_key, 'batch-owner@example.com');
    const expected = batches.reduce((n, b) => n + b.accepted, 0);
    log(`  batches answered ${batches.map((b) => `${b.status} in ${Math.round(b.ms)} ms`).join(', ')}; waiting for ${expected} webhooks`);
    const deadline = batches[batches.length - 1]!.startedAt + CORE.webhookWaitMs + 30_000;
    while (receiver.arrivals.size < expected && performance.now() < deadline) await sleep(100);
    await sleep(2000); // a duplicate sent late would still be seen
    const batchOf = new Map<string, number>();
    batches.forEach((b, i) => b.ids.forEach((id) => batchOf.set(id, i)));
    const hooks = [...receiver.arrivals].map(([eventId, arrivals]) => ({ arrivals, batch: batchOf.get(receiver.messageOf.get(eventId) ?? '') ?? -1 }));
    return { putsMs: puts.windowMs, putLatenciesMs: puts.latenciesMs, batches, hooks };
  } finally {
    await receiver.close();
  }
}

/** The whole core-path run on a runtime of its own. */
export async function coreRun(projectRoot: string, log: (line: string) => void): Promise<CoreRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-load-'));
  const worker = new LoadWorker<LoadTask>();
  let rt: Runtime | undefined;
  try {
    rt = await startRuntime(projectRoot, dataDir);
    const { staff_token } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string };
    const accounts = await makeAccounts(rt, staff_token);
    log(`  store GetItem alone, 1 in flight, ${CORE.storeMs / 1000} s`);
    const store = await worker.run({ kind: 'store', endpoint: rt.dynamodb, tableName: LOCAL_TABLE, region: 'us-east-1', accountIds: accounts.map((a) => a.id), concurrency: 1, warmupMs: 500, durationMs: CORE.storeMs });
    log(`  reads: ${CORE.ratePerSecond}/s offered for ${CORE.readMs / 1000} s`);
    const reads = await openLoop(CORE.ratePerSecond, CORE.readMs, (i) => call(rt!.url, 'GET', '/v1/keys', accounts[i % accounts.length]!.key));
    const readPeakMiB = rt.peakMiB();
    log(`  single sends: ${CORE.ratePerSecond}/s offered for ${CORE.sendMs / 1000} s`);
    const sendStarted = performance.now();
    const sends = await openLoop(CORE.ratePerSecond, CORE.sendMs, (i) => {
      const a = accounts[i % accounts.length]!;
      return call(rt!.url, 'POST', '/v1/send', a.key, { channel: 'email', idempotency_key: `load-${i}`, destination: { email: a.email }, payload: { subject: `Load ${i}`, body_text: 'hello' } });
    });
    const accepted = sends.flatMap((s, i) => (s.status === 201 ? [{ id: (JSON.parse(s.body) as { id: string }).id, account: accounts[i % accounts.length]! }] : []));
    log(`  following ${accepted.length} accepted sends to delivered`);
    const delivered = await followToDelivered(rt, accepted);
    const drainedS = (performance.now() - sendStarted) / 1000;
    const sendPeakMiB = rt.peakMiB();
    const batch = await batchPhase(rt, staff_token, worker, log);
    return { storeMs: store.latenciesMs, reads, sends, accepted: accepted.length, ...delivered, drainedS, ...batch, peakMiB: rt.peakMiB(), readPeakMiB, sendPeakMiB };
  } finally {
    await worker.close();
    await rt?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
