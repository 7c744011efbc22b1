// Authenticated GET /v1/keys over HTTP against the raw GetItem rate of the same store, interleaved
// in rounds so background load falls on both alike; and the store calls, round trips and writes
// of one request: a key's first, the same key again (the warm path), and single sends.
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { KEY_CACHE_TTL_MS } from '../../shared/accounts/api-keys/cache';
import { KEY_USE_WRITE_INTERVAL_MS } from '../../shared/accounts/api-keys/service';
import { keys } from '../../shared/db/keys';
import { LOCAL_TABLE } from '../../local/runtime';
import type { Benchmark } from '../run';
import { callList, roundTrips } from '../lib/cost';
import type { LoadTask } from '../lib/load-worker';
import { closedLoop, failures, fmt, fmtInt, latencyCells, LoadWorker, median, rate, sum, type LoopResult } from '../lib/measure';
import { apiStoreCalls, http, newSender, startBenchRuntime, type BenchRuntime, type PortCall } from '../lib/runtime';

const S = { accounts: 100, concurrency: 8, rounds: 6, firstWarmupMs: 1_500, warmupMs: 300, segmentMs: 1_000, countedRequests: 50, sends: 3 } as const;
const PATH = '/v1/keys';
const WRITES = new Set(['put', 'create', 'update', 'delete', 'batchPut']);

interface Counted {
  label: string;
  /** The api's store calls of each request, one list per request. */
  requests: PortCall[][];
  statuses: Record<number, number>;
  ms: number[];
}

const mean = (values: readonly number[]): number => sum(values) / values.length;
const range = (values: readonly number[]): string => (Math.min(...values) === Math.max(...values) ? fmt(values[0]!, 0) : `${fmt(Math.min(...values), 0)}–${fmt(Math.max(...values), 0)}`);

function countedRow(c: Counted): string {
  const all = c.requests.flat();
  const per = c.requests.length;
  const calls = c.requests.map((r) => r.length);
  const trips = c.requests.map((calls) => roundTrips(calls).length);
  const writes = c.requests.map((r) => r.filter((call) => WRITES.has(call.op)).length);
  return `| ${c.label} | ${per} | ${fmt(mean(calls), 2)} (${range(calls)}) | ${fmt(mean(trips), 2)} (${range(trips)}) | ${fmt(mean(writes), 2)} (${range(writes)}) | ${callList(all, per)} | ${Object.entries(c.statuses).map(([s, n]) => `${s}×${n}`).join(', ')} |`;
}

/** S.accounts accounts, four made at a time; their admin keys and ids. */
async function makeAccounts(b: BenchRuntime): Promise<{ tokens: string[]; ids: string[] }> {
  const accounts = [];
  for (let i = 0; i < S.accounts; i += 4) accounts.push(...(await Promise.all([0, 1, 2, 3].map((j) => createAccount(b.c, { name: `bench ${i + j}` })))));
  return { tokens: accounts.map((a) => a.admin_key), ids: accounts.map((a) => a.account_id) };
}

interface CountedRuns {
  cold: Counted;
  warm: Counted;
  firstSend: Counted;
  sends: Counted;
  countMs: number;
}

/**
 * Counted one request at a time, each on its own: a key's first request (nothing cached in this
 * process), the same key again (well within the cache's bound and the minute between key-use
 * writes), and single sends from a fresh sender key, first and again.
 */
async function countRequests(b: BenchRuntime, tokens: readonly string[], log: (line: string) => void): Promise<CountedRuns> {
  const counted = async (label: string, run: (i: number) => Promise<{ status: number; ms: number }>, n: number): Promise<Counted> => {
    const out: Counted = { label, requests: [], statuses: {}, ms: [] };
    for (let i = 0; i < n; i++) {
      b.take();
      const res = await run(i);
      out.requests.push(apiStoreCalls(b.take()));
      out.statuses[res.status] = (out.statuses[res.status] ?? 0) + 1;
      out.ms.push(res.ms);
    }
    return out;
  };
  const { rt } = b;
  const sender = await newSender(b.c, 'bench single send');
  const sendBody = (i: number) => ({
    channel: 'email',
    idempotency_key: `pipeline-${i}`,
    destination: { email: `user${i}@example.com` },
    payload: { subject: `Pipeline ${i}`, body_text: `Hello ${i}` },
    metadata: { from_email: sender.from },
  });
  log(`  store calls of ${S.countedRequests} first and ${S.countedRequests} repeated requests, and ${S.sends} single sends`);
  b.count();
  const countStarted = performance.now();
  const cold = await counted(`GET ${PATH}, a key's first request in this process (cold)`, (i) => http(rt, 'GET', PATH, tokens[i] as string), S.countedRequests);
  const warm = await counted(`GET ${PATH}, the same key again (warm)`, (i) => http(rt, 'GET', PATH, tokens[i] as string), S.countedRequests);
  const firstSend = await counted('POST /v1/send, the sender key\'s first request (cold)', () => http(rt, 'POST', '/v1/send', sender.key, sendBody(0)), 1);
  const sends = await counted('POST /v1/send, again with the same key (warm)', (i) => http(rt, 'POST', '/v1/send', sender.key, sendBody(i + 1)), S.sends);
  const countMs = performance.now() - countStarted;
  b.uncount();
  return { cold, warm, firstSend, sends, countMs };
}

interface Rounds {
  api: LoopResult[];
  storeWorker: LoopResult[];
  storeMain: LoopResult[];
}

/** S.rounds interleaved rounds of API → GetItem (worker) → GetItem (main thread). */
async function interleave(b: BenchRuntime, worker: LoadWorker<LoadTask>, accounts: { tokens: string[]; ids: string[] }, log: (line: string) => void): Promise<Rounds> {
  const { rt, c } = b;
  const { tokens, ids } = accounts;
  log(`  ${S.rounds} rounds of API → GetItem (worker) → GetItem (main thread)`);
  const out: Rounds = { api: [], storeWorker: [], storeMain: [] };
  for (let round = 0; round < S.rounds; round++) {
    const loop = { concurrency: S.concurrency, warmupMs: round ? S.warmupMs : S.firstWarmupMs, durationMs: S.segmentMs };
    out.api.push(await worker.run({ kind: 'http', url: rt.url, path: PATH, tokens, ...loop }));
    out.storeWorker.push(await worker.run({ kind: 'store', endpoint: rt.dynamodbEndpoint, tableName: LOCAL_TABLE, region: c.config.region, accountIds: ids, ...loop }));
    out.storeMain.push(await closedLoop(async (i) => ((await c.store.get(keys.account(ids[i % ids.length] as string))) ? 'found' : 'missing'), loop));
    log(`    round ${round + 1}: API ${fmt(rate(out.api[round]!), 0)} req/s, GetItem ${fmt(rate(out.storeWorker[round]!), 0)} ops/s (worker), ${fmt(rate(out.storeMain[round]!), 0)} ops/s (main)`);
  }
  return out;
}

const row = (label: string, loops: LoopResult[], unit: string, ok: string): string =>
  `| ${label} | ${fmtInt(sum(loops.map((l) => l.latenciesMs.length)))} | ${fmt(rate(...loops), 0)} ${unit} | ${latencyCells(loops.flatMap((l) => l.latenciesMs), 2)} | ${failures(ok, ...loops)} |`;

function report({ api, storeWorker, storeMain }: Rounds, { cold, warm, firstSend, sends, countMs }: CountedRuns): string {
  const warmCalls = warm.requests.flat();
  const perRequest = warmCalls.length / S.countedRequests;
  const requestMs = warm.ms;
  const ratio = rate(...api) / rate(...storeWorker);
  const perRound = api.map((a, i) => rate(a) / rate(storeWorker[i]!));
  const storeMs = sum(warmCalls.map((call) => call.ms)) / S.countedRequests;
  return [
    '## API pipeline against the raw store',
    '',
    `Method: the HTTP functions on a local runtime in this process (fresh DATA_DIR, PORT 0, LOG_LEVEL warn; node:http, the handlers and the embedded dynalite share the main thread). ${S.accounts} accounts made with \`createAccount\`; requests go round-robin over their admin keys, so no account nears its limit of 10 requests/s. ` +
      `Load comes from a worker thread: ${S.concurrency} requests in flight over keep-alive connections, closed loop, completions inside the measured window only. The store rows run the same loop with \`Store.get\` (a consistent GetItem of an ACCOUNT item) against the same dynalite, from the worker thread and from the main thread through the runtime's own \`container.store\`. ` +
      `${S.rounds} interleaved rounds of API → store (worker) → store (main), each ${fmt(S.segmentMs / 1000, 1)} s after a warm-up (${fmt(S.firstWarmupMs / 1000, 1)} s first, ${fmt(S.warmupMs / 1000, 1)} s after). ` +
      `Under load each key is verified from the store once per ${KEY_CACHE_TTL_MS / 1000} s (the cache's bound) and its use written once a minute; every other request is on the warm path.`,
    '',
    '| Measurement | Completed | Throughput | p50 ms | p90 ms | p99 ms | max ms | Not OK |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
    row(`Authenticated GET ${PATH} over HTTP (${S.accounts} accounts)`, api, 'req/s', '200'),
    row('Store.get → GetItem, from the worker thread', storeWorker, 'ops/s', 'found'),
    row('Store.get → GetItem, main thread (container.store)', storeMain, 'ops/s', 'found'),
    '',
    `**Ratio: API requests/s ÷ store GetItem ops/s = ${fmt(ratio, 3)}** (median per round ${fmt(median(perRound), 3)}; per round ${perRound.map((x) => fmt(x, 3)).join(', ')}; against the main-thread rate ${fmt(rate(...api) / rate(...storeMain), 3)}). ` +
      `If every store call cost what a GetItem costs and nothing else did, it would be 1 ÷ ${fmt(perRequest, 2)} = ${fmt(1 / perRequest, 3)} on the warm path.`,
    '',
    `Store calls per request, counted at the store port (the container's store wrapped in a counting decorator), one request at a time; a round trip is a set of calls that overlap in time, so a call made beside another is not one more (the counting took ${fmt(countMs / 1000, 1)} s, inside the cache's ${KEY_CACHE_TTL_MS / 1000} s bound and the ${KEY_USE_WRITE_INTERVAL_MS / 1000} s between key-use writes):`,
    '',
    '| Request | Counted | Store calls (min–max) | Round trips (min–max) | Writes (min–max) | Calls per request | Statuses |',
    '|---|---:|---:|---:|---:|---|---|',
    countedRow(cold),
    countedRow(warm),
    countedRow(firstSend),
    countedRow(sends),
    '',
    `A send's own writes are its spend reservation (\`update ACCT/USAGE\`) and the message, which is its own idempotency record (\`create MSG\`: its id follows from the account and the key); the pipeline adds the limiter's \`update RATE/LOG\`, and on a key's first request in a minute its use (\`update ACCT/KEY\`, made beside the route's own calls). ` +
      `Unloaded, a warm GET ${PATH} takes ${fmt(median(requestMs), 2)} ms (median), ${fmt(storeMs, 2)} ms of it on average inside store calls (SDK marshalling and dynalite included; ${fmt((100 * storeMs) / mean(requestMs), 0)}% of the mean); the rest is HTTP, event shaping, hashing and the handler.`,
    '',
    'Read it as: the ratio is the figure to watch. Each request makes the store calls above against the same single-threaded store (a GET’s limiter write beside its route’s read, shared/http/admission.ts; the store still serves them one at a time), so if the store were the only cost the ratio would approach 1 ÷ (calls per request), lower still because writes and queries cost more than a GetItem. ' +
      'A ratio well below that is CPU spent in the pipeline itself; fewer or parallel store calls raise it. A wide spread across rounds or a high load average calls for another run; "Not OK" in the API row means errors or the limiter (429), not the pipeline.',
  ].join('\n');
}

export const apiPipeline: Benchmark = {
  name: 'API pipeline against the raw store',
  async run({ log }) {
    const b = await startBenchRuntime();
    const worker = new LoadWorker<LoadTask>();
    try {
      const accounts = await makeAccounts(b);
      const counted = await countRequests(b, accounts.tokens, log);
      const rounds = await interleave(b, worker, accounts, log);
      return report(rounds, counted);
    } finally {
      await worker.close();
      await b.close();
    }
  },
};
