// Sending: one live email end to end, step by step (API, then each queue consumer it reaches),
// its port calls and what they cost per million emails; and 1,000-item batches on
// POST /v1/send/batch against the floor of the store and queue calls they make.
// The sends, the cost model and the markdown are in ./sending/.
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { CLAIM_CONCURRENCY } from '../../shared/sending/messages/send';
import type { BenchContext, Benchmark } from '../run';
import { unitsOf } from '../lib/cost';
import { closedLoop, fmt, fmtInt, rate, sum, type LoopResult } from '../lib/measure';
import { http, newSender, startBenchRuntime, type PortCall } from '../lib/runtime';
import { costRows, floorItemBytes } from './sending/costs';
import { render, type BatchFigures } from './sending/report';
import { emailItem, S, SCENARIOS, type Drained, type Scenario, type Single } from './sending/sends';

type Bench = Awaited<ReturnType<typeof startBenchRuntime>>;
type CountedBatch = { calls: PortCall[]; accepted: number; bodyBytes: number; drained: Drained };
type Sampled = { scenario: Scenario; singles: Single[]; steady: Drained; batch: CountedBatch };
/** One floor round: each part's closed loop on the store and the queue. */
type Floor = { single: LoopResult; batchPut: LoopResult; batchGet: LoopResult; queue: LoopResult };
type TimedBatch = { wallMs: number; accepted: number; status: number; bodyBytes: number; calls: PortCall[] };

/** `S.singleSends` live sends of one body, each drained step by step, with what each left. */
async function singleSends(b: Bench, scenario: Scenario, log: BenchContext['log']): Promise<Single[]> {
  const { rt, c } = b;
  log(`  ${S.singleSends} single sends with ${scenario.title}, each drained step by step`);
  const sender = await newSender(c, `bench single sends ${scenario.name}`);
  const singles: Single[] = [];
  for (let i = 0; i < S.singleSends; i++) {
    b.take();
    b.takeInvocations();
    const res = await http(rt, 'POST', '/v1/send', sender.key, emailItem(sender.from, `single-${scenario.name}`, i, scenario));
    if (res.status !== 201) throw new Error(`POST /v1/send answered ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
    await b.drain();
    const [calls, invocations] = [b.take(), b.takeInvocations()];
    singles.push({ apiMs: res.ms, calls, invocations, status: (await http(rt, 'GET', `/v1/messages/${res.json.id}`, sender.key)).json?.status });
  }
  return singles;
}

/**
 * The consumers' work for `emails` sends the API has accepted: their jobs handed to the consumers
 * as the event source hands a backlog (each queue polled until empty, up to its manifest batch
 * size a poll), every one of them sent and its SES event recorded.
 */
async function drainAccepted(b: Bench, emails: number, what: string): Promise<Drained> {
  b.take();
  b.takeInvocations();
  await b.drain();
  const [calls, invocations] = [b.take(), b.takeInvocations()];
  const handled = (q: string): number => sum(invocations.filter((i) => i.queue === q).map((i) => i.bodies.length));
  if (handled('send') !== emails || handled('ses-events') !== emails) throw new Error(`${what}: ${handled('send')} send jobs and ${handled('ses-events')} SES events handled for ${emails} emails`);
  return { emails, calls, invocations };
}

/**
 * `S.steadySends` single sends accepted one after another from two accounts in turn (an account may
 * make 10 requests a second), then their consumers run in full batches.
 */
async function steadySends(b: Bench, scenario: Scenario, log: BenchContext['log']): Promise<Drained> {
  log(`  ${S.steadySends} single sends with ${scenario.title} from two accounts in turn, then their consumers in full batches`);
  const senders = [await newSender(b.c, `bench steady sends ${scenario.name} a`), await newSender(b.c, `bench steady sends ${scenario.name} b`)];
  for (let i = 0; i < S.steadySends; i++) {
    const sender = senders[i % 2]!;
    const res = await http(b.rt, 'POST', '/v1/send', sender.key, emailItem(sender.from, `steady-${scenario.name}`, i, scenario));
    if (res.status !== 201) throw new Error(`POST /v1/send answered ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
  }
  return drainAccepted(b, S.steadySends, `steady sends ${scenario.name}`);
}

/** One counted batch of the scenario's size, then its jobs through the consumers in full batches; every item must be accepted. */
async function countedBatch(b: Bench, scenario: Scenario, log: BenchContext['log']): Promise<CountedBatch> {
  const { rt, c } = b;
  log(`  one counted batch of ${scenario.batchItems} with ${scenario.title}, then its consumers in full batches`);
  const account = await newSender(c, `bench cost batch ${scenario.name}`);
  b.take();
  const items = Array.from({ length: scenario.batchItems }, (_, k) => emailItem(account.from, `cost-${scenario.name}`, k, scenario));
  const res = await http(rt, 'POST', '/v1/send/batch', account.key, items);
  const accepted = Array.isArray(res.json) ? res.json.filter((r: { success?: boolean }) => r?.success).length : 0;
  if (accepted !== scenario.batchItems) throw new Error(`cost batch ${scenario.name}: ${accepted} of ${scenario.batchItems} accepted (${res.status})`);
  const calls = b.take();
  return { calls, accepted, bodyBytes: res.bytes, drained: await drainAccepted(b, accepted, `cost batch ${scenario.name}`) };
}

/** The counted sends of every scenario: its single sends, its steady sends, its batch. */
async function sample(b: Bench, log: BenchContext['log']): Promise<Sampled[]> {
  // Counted with the item each write replaces, for the cost model; the timed batches below are not.
  b.count({ before: true });
  const priced: Sampled[] = [];
  for (const scenario of SCENARIOS) {
    const singles = await singleSends(b, scenario, log);
    priced.push({ scenario, singles, steady: await steadySends(b, scenario, log), batch: await countedBatch(b, scenario, log) });
  }
  b.uncount();
  return priced;
}

/** A floor round on the store itself (never counted) and a queue of the benchmark's own, with items of `itemBytes`. */
function floorRounds(store: Bench['c']['store'], floorQueue: SqsQueue, itemBytes: number): () => Promise<Floor> {
  let n = 0;
  const floorItem = () => ({ pk: `BENCHFLOOR#${n++}`, sk: 'FLOOR', entity: 'bench_floor', pad: 'x'.repeat(Math.max(0, itemBytes - 40)) });
  const loop = (concurrency: number, durationMs: number) => ({ concurrency, warmupMs: S.floorWarmupMs, durationMs });
  const ok = (p: Promise<unknown>): Promise<string> => p.then(() => 'ok');
  return async () => ({
    // Fresh conditional puts at the claims' concurrency; batches one call at a time, as the send path makes them.
    single: await closedLoop(() => ok(store.create(floorItem())), loop(CLAIM_CONCURRENCY, S.floorMs.single)),
    batchPut: await closedLoop(() => ok(store.batchPut(Array.from({ length: 25 }, floorItem))), loop(1, S.floorMs.batchPut)),
    batchGet: await closedLoop((i) => ok(store.batchGet(Array.from({ length: 100 }, (_, k) => ({ pk: `BENCHMISSING#${i}#${k}`, sk: 'NONE' })))), loop(1, S.floorMs.batchGet)),
    queue: await closedLoop((i) => ok(floorQueue.sendBatch('send', Array.from({ length: 10 }, (_, k) => ({ message_id: `msg_${i}_${k}_benchmarkfloor0000` })))), loop(1, S.floorMs.queue)),
  });
}

/** `S.batches` timed batches, each between two floor rounds. */
async function timedBatches(b: Bench, floorRound: () => Promise<Floor>, log: BenchContext['log']): Promise<{ batches: TimedBatch[]; floors: Floor[] }> {
  const { rt, c } = b;
  log(`  ${S.batches} batches of ${S.batchItems}, each between two floor rounds`);
  const floors: Floor[] = [await floorRound()];
  const batches: TimedBatch[] = [];
  for (let i = 0; i < S.batches; i++) {
    const account = await newSender(c, `bench batch ${i}`);
    b.take();
    const items = Array.from({ length: S.batchItems }, (_, k) => emailItem(account.from, `batch${i}`, k));
    const res = await http(rt, 'POST', '/v1/send/batch', account.key, items);
    const accepted = Array.isArray(res.json) ? res.json.filter((r: { success?: boolean }) => r?.success).length : 0;
    batches.push({ wallMs: res.ms, accepted, status: res.status, bodyBytes: res.bytes, calls: b.take() });
    floors.push(await floorRound());
    log(`    batch ${i + 1}: ${accepted} accepted in ${fmt(res.ms / 1000, 2)} s; floor PutItem ${fmt(rate(floors[i + 1]!.single), 0)}/s`);
  }
  return { batches, floors };
}

/** The batch's own store and queue calls at the rates the floor sustained around it, part after part. */
function partsOf(calls: PortCall[], around: Floor[]): BatchFigures['parts'] {
  const singleItem = calls.filter((x) => x.port === 'store' && !x.op.startsWith('batch')).length;
  const putItems = sum(calls.filter((x) => x.op === 'batchPut').map((x) => (x.args[0] as unknown[]).length));
  const getCalls = sum(calls.filter((x) => x.op === 'batchGet').map((x) => unitsOf(x).requests));
  const queueCalls = sum(calls.filter((x) => x.port === 'queue').map((x) => unitsOf(x).requests));
  const r = (k: keyof Floor): number => rate(...around.map((f) => f[k]));
  return [
    { what: `single-item calls (claims ${CLAIM_CONCURRENCY} in flight), at the conditional PutItem rate`, count: `${fmtInt(singleItem)} calls`, rate: `${fmtInt(r('single'))}/s`, s: singleItem / r('single') },
    { what: 'batchPut, 25 items a call', count: `${fmtInt(putItems)} items`, rate: `${fmtInt(r('batchPut') * 25)} items/s`, s: putItems / (r('batchPut') * 25) },
    { what: 'batchGet, 100 keys a call', count: `${fmtInt(getCalls)} calls`, rate: `${fmtInt(r('batchGet'))} calls/s`, s: getCalls / r('batchGet') },
    { what: 'queue sendBatch, 10 messages a request', count: `${fmtInt(queueCalls)} requests`, rate: `${fmtInt(r('queue'))} requests/s`, s: queueCalls / r('queue') },
  ];
}

export const sending: Benchmark = {
  name: 'Sending',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { rt, c } = b;
      const store = c.store; // the floor runs on the store itself, never counted
      const floorQueue = new SqsQueue(rt.sqsClient, { send: (await rt.sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-floor' }))).QueueUrl });
      const priced = await sample(b, log);
      b.count();
      const itemBytes = floorItemBytes(priced[0]!.singles);
      const { batches, floors } = await timedBatches(b, floorRounds(store, floorQueue, itemBytes), log);
      b.uncount();
      const perBatch = batches.map((x, i) => {
        const parts = partsOf(x.calls, [floors[i]!, floors[i + 1]!]);
        return { ...x, parts, floorS: sum(parts.map((p) => p.s)) };
      });
      const claimsInFlight = maxOverlap(batches[0]!.calls.filter((x) => x.op === 'create'));
      const floorErrors = sum(floors.flatMap((f) => Object.values(f).map((l: LoopResult) => sum(Object.entries(l.outcomes).map(([o, v]) => (o === 'ok' ? 0 : v))))));
      const costs = priced.map((p) => ({ scenario: p.scenario, singles: p.singles, steady: p.steady, batch: p.batch.drained, rows: costRows(p.singles, p.steady, p.batch) }));
      return render(costs, perBatch, { claimsInFlight, floorErrors, itemBytes });
    } finally {
      await b.close();
    }
  },
};

/** Most calls in flight at once. */
function maxOverlap(calls: PortCall[]): number {
  let now = 0;
  let most = 0;
  for (const e of calls.flatMap((c) => [{ t: c.startMs, d: 1 }, { t: c.startMs + c.ms, d: -1 }]).sort((x, y) => x.t - y.t || x.d - y.d)) most = Math.max(most, (now += e.d));
  return most;
}
