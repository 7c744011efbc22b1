// Authenticated GET /v1/keys over HTTP against the raw GetItem rate of the same store, interleaved
// in rounds so background load falls on both alike, and the store calls one request makes.
import { createAccount } from '../../shared/accounts/service';
import { keys } from '../../shared/db/keys';
import { LOCAL_TABLE } from '../../shared/runtime/local/runtime';
import type { Benchmark } from '../run';
import { callList } from '../lib/cost';
import type { LoadTask } from '../lib/load-worker';
import { closedLoop, failures, fmt, fmtInt, latencyCells, LoadWorker, median, rate, sum, type LoopResult } from '../lib/measure';
import { http, startBenchRuntime } from '../lib/runtime';

const S = { accounts: 100, concurrency: 8, rounds: 6, firstWarmupMs: 1_500, warmupMs: 300, segmentMs: 1_000, countedRequests: 50 } as const;
const PATH = '/v1/keys';

export const apiPipeline: Benchmark = {
  name: 'API pipeline against the raw store',
  async run({ log }) {
    const b = await startBenchRuntime();
    const worker = new LoadWorker<LoadTask>();
    try {
      const { rt, c } = b;
      const accounts = [];
      for (let i = 0; i < S.accounts; i += 4) accounts.push(...(await Promise.all([0, 1, 2, 3].map((j) => createAccount(c, { name: `bench ${i + j}` })))));
      const tokens = accounts.map((a) => a.admin_key);
      const ids = accounts.map((a) => a.account_id);

      log(`  store calls of ${S.countedRequests} sequential requests`);
      b.count();
      const requestMs: number[] = [];
      const statuses: Record<number, number> = {};
      let inFlight = 0;
      let maxInFlight = 0;
      for (let i = 0; i < S.countedRequests; i++) {
        const res = await http(rt, 'GET', PATH, tokens[i % tokens.length] as string);
        requestMs.push(res.ms);
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
      }
      const calls = b.take().filter((call) => call.by === 'api');
      b.uncount();
      // Overlap of the calls in time: 1 means one after the other.
      for (const e of calls.flatMap((call) => [{ t: call.startMs, d: 1 }, { t: call.startMs + call.ms, d: -1 }]).sort((x, y) => x.t - y.t || x.d - y.d)) {
        inFlight += e.d;
        maxInFlight = Math.max(maxInFlight, inFlight);
      }
      const perRequest = calls.length / S.countedRequests;

      log(`  ${S.rounds} rounds of API → GetItem (worker) → GetItem (main thread)`);
      const api: LoopResult[] = [];
      const storeWorker: LoopResult[] = [];
      const storeMain: LoopResult[] = [];
      for (let round = 0; round < S.rounds; round++) {
        const loop = { concurrency: S.concurrency, warmupMs: round ? S.warmupMs : S.firstWarmupMs, durationMs: S.segmentMs };
        api.push(await worker.run({ kind: 'http', url: rt.url, path: PATH, tokens, ...loop }));
        storeWorker.push(await worker.run({ kind: 'store', endpoint: rt.dynamodbEndpoint, tableName: LOCAL_TABLE, region: c.config.region, accountIds: ids, ...loop }));
        storeMain.push(await closedLoop(async (i) => ((await c.store.get(keys.account(ids[i % ids.length] as string))) ? 'found' : 'missing'), loop));
        log(`    round ${round + 1}: API ${fmt(rate(api[round]!), 0)} req/s, GetItem ${fmt(rate(storeWorker[round]!), 0)} ops/s (worker), ${fmt(rate(storeMain[round]!), 0)} ops/s (main)`);
      }
      const ratio = rate(...api) / rate(...storeWorker);
      const perRound = api.map((a, i) => rate(a) / rate(storeWorker[i]!));
      const row = (label: string, loops: LoopResult[], unit: string, ok: string): string =>
        `| ${label} | ${fmtInt(sum(loops.map((l) => l.latenciesMs.length)))} | ${fmt(rate(...loops), 0)} ${unit} | ${latencyCells(loops.flatMap((l) => l.latenciesMs), 2)} | ${failures(ok, ...loops)} |`;
      const storeMs = sum(calls.map((call) => call.ms)) / S.countedRequests;
      return [
        '## API pipeline against the raw store',
        '',
        `Method: the HTTP functions on a local runtime in this process (fresh DATA_DIR, PORT 0, LOG_LEVEL warn; node:http, the handlers and the embedded dynalite share the main thread). ${S.accounts} accounts made with \`createAccount\`; requests go round-robin over their admin keys, so no account nears its limit of 10 requests/s. ` +
          `Load comes from a worker thread: ${S.concurrency} requests in flight over keep-alive connections, closed loop, completions inside the measured window only. The store rows run the same loop with \`Store.get\` (a consistent GetItem of an ACCOUNT item) against the same dynalite, from the worker thread and from the main thread through the runtime's own \`container.store\`. ` +
          `${S.rounds} interleaved rounds of API → store (worker) → store (main), each ${fmt(S.segmentMs / 1000, 1)} s after a warm-up (${fmt(S.firstWarmupMs / 1000, 1)} s first, ${fmt(S.warmupMs / 1000, 1)} s after).`,
        '',
        '| Measurement | Completed | Throughput | p50 ms | p90 ms | p99 ms | max ms | Not OK |',
        '|---|---:|---:|---:|---:|---:|---:|---:|',
        row(`Authenticated GET ${PATH} over HTTP (${S.accounts} accounts)`, api, 'req/s', '200'),
        row('Store.get → GetItem, from the worker thread', storeWorker, 'ops/s', 'found'),
        row('Store.get → GetItem, main thread (container.store)', storeMain, 'ops/s', 'found'),
        '',
        `**Ratio: API requests/s ÷ store GetItem ops/s = ${fmt(ratio, 3)}** (median per round ${fmt(median(perRound), 3)}; per round ${perRound.map((x) => fmt(x, 3)).join(', ')}; against the main-thread rate ${fmt(rate(...api) / rate(...storeMain), 3)}). ` +
          `If every store call cost what a GetItem costs and nothing else did, it would be 1 ÷ ${fmt(perRequest, 2)} = ${fmt(1 / perRequest, 3)}.`,
        '',
        `Store calls per authenticated GET ${PATH}: **${fmt(perRequest, 2)}** (${callList(calls, S.countedRequests)}), ${maxInFlight <= 1 ? 'one after the other' : `up to ${maxInFlight} at once`}; counted at the store port over ${S.countedRequests} sequential requests (statuses: ${Object.entries(statuses).map(([s, n]) => `${s}×${n}`).join(', ')}). ` +
          `Unloaded, a request takes ${fmt(median(requestMs), 2)} ms (median), ${fmt(storeMs, 2)} ms of it on average inside store calls (SDK marshalling and dynalite included; ${fmt((100 * storeMs) / (sum(requestMs) / requestMs.length), 0)}% of the mean); the rest is HTTP, event shaping, hashing and the handler.`,
        '',
        'Read it as: the ratio is the figure to watch. Each request makes the store calls above one after the other against the same single-threaded store, so if the store were the only cost the ratio would approach 1 ÷ (calls per request), lower still because writes and queries cost more than a GetItem. ' +
          'A ratio well below that is CPU spent in the pipeline itself; fewer or parallel store calls raise it. A wide spread across rounds or a high load average calls for another run; "Not OK" in the API row means errors or the limiter (429), not the pipeline.',
      ].join('\n');
    } finally {
      await worker.close();
      await b.close();
    }
  },
};
