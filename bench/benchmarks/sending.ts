// Sending: one live email end to end, step by step (API, then each queue consumer it reaches),
// its port calls and what they cost per million emails; and 1,000-item batches on
// POST /v1/send/batch against the floor of the store and queue calls they make.
import { CreateQueueCommand } from '@aws-sdk/client-sqs';
import { functions } from '../../functions/manifest';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { CLAIM_CONCURRENCY } from '../../shared/messages/send';
import { queueNamed, type QueueName } from '../../shared/platform';
import type { Benchmark } from '../run';
import { consumerOf, countByLabel, gbSeconds, itemSize, labelOf, MODEL_MS, modelledMs, PRICE, priceNote, totalUnits, unitsOf } from '../lib/cost';
import { closedLoop, dollars, fmt, fmtInt, median, rate, sum, units, type LoopResult } from '../lib/measure';
import { http, newSender, startBenchRuntime, type Invocation, type PortCall } from '../lib/runtime';

const S = { singleSends: 3, batchItems: 1000, batches: 3, floorWarmupMs: 150, floorMs: { single: 1_000, batchPut: 800, batchGet: 500, queue: 500 } } as const;

/**
 * Lambda durations are modelled, not measured (dynalite and the emulators say nothing about a
 * region's latencies): a single send's and each consumer invocation's from the round trips its
 * calls made (bench/lib/cost.ts, modelledMs). A batch is assumed: 5 ms of validation, claims and
 * writes per item (its claims overlap CLAIM_CONCURRENCY at a time, which the round-trip model
 * cannot see), plus 40 ms per object store PUT, CLAIM_CONCURRENCY of them at once.
 */
const ASSUMED_MS = { apiPerBatchItem: 5, objectPut: MODEL_MS.latency.objectsPut ?? 40 };

/** Modelled ms of each invocation of `queue` the send made, from the calls inside its window. */
const invocationMs = (s: Single, queue: string): number[] =>
  s.invocations
    .filter((i) => i.queue === queue)
    .map((i) => modelledMs(s.calls.filter((c) => c.by === queue && c.startMs >= i.startMs && c.startMs <= i.startMs + i.ms), i.bodies.length));

/**
 * The two bodies priced: a short text email, and a 20 KB HTML one (a typical marketing template).
 * A batch of 20 KB items holds 400 of them: 1,000 would pass API Gateway's 10 MB body limit.
 */
const SCENARIOS = [
  { name: 'small', title: 'a short text body', batchItems: 1000 },
  { name: 'html20k', title: 'a 20 KB HTML body', batchItems: 400 },
] as const;
type Scenario = (typeof SCENARIOS)[number];

/**
 * A 20 KB HTML body, different per message: table-based markup with inline styles around text of
 * words drawn from a 400-word vocabulary by a seeded generator, so it compresses about as well as a
 * real marketing email (gzip about 5:1), not as well as a repeated paragraph would.
 */
const html20k = (i: number): string => {
  let seed = 2_654_435_761 * (i + 1);
  const next = (): number => ((seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648) / 2_147_483_648);
  const vocabulary = Array.from({ length: 400 }, (_, k) => k.toString(36).padStart(3, 'q') + 'aeiou'.charAt(k % 5) + 'lnrst'.charAt((k * 7) % 5));
  const words = (n: number): string => Array.from({ length: n }, () => vocabulary[Math.floor(next() * vocabulary.length)]).join(' ');
  const parts = [`<!doctype html><html><body style="margin:0;padding:0;background:#f4f4f7"><table role="presentation" width="100%" cellpadding="0" cellspacing="0"><tr><td align="center"><h1 style="font-family:Arial,sans-serif;color:#333">Benchmark message ${i}</h1>`];
  for (let row = 0; parts.join('').length < 20_480; row++) {
    parts.push(`<tr><td style="padding:12px 24px;font-family:Arial,sans-serif;font-size:15px;line-height:22px;color:#51545e"><p>${words(14)}</p><a href="https://example.com/p/${row}?u=${i}&amp;c=${Math.floor(next() * 1e6)}" style="color:#3869d4">${words(3)}</a></td></tr>`);
  }
  const tail = '</td></tr></table></body></html>';
  return parts.join('').slice(0, 20_480 - tail.length) + tail;
};

const apiFn = functions.find((f) => f.http?.some((r) => r.path === '/v1/send'))?.name ?? 'send';

const emailItem = (from: string, tag: string, i: number, scenario: Scenario = SCENARIOS[0]): Record<string, unknown> => ({
  channel: 'email',
  idempotency_key: `${tag}-${i}`,
  destination: { email: `user${i}@example.com` },
  payload:
    scenario.name === 'html20k'
      ? { subject: `Benchmark message ${i}`, body_html: html20k(i) }
      : { subject: `Benchmark message ${i}`, body_text: `Hello user ${i}, this is message ${i} of a benchmark batch.` },
  metadata: { from_email: from },
});

interface Single {
  apiMs: number;
  calls: PortCall[];
  invocations: Invocation[];
  status: string;
}

interface CostRow {
  step: string;
  resource: string;
  unit: string;
  /** Units per email: a single send, and one item of a 1,000-item batch. */
  single: number;
  batch: number;
  /** A single send under steady traffic: its consumers take full batches. */
  steady: number;
  price: number;
}

/** Items the floor writes: the size of the messages (each its send's idempotency claim) and content items the single sends wrote. */
function floorItemBytes(singles: Single[]): number {
  const written = singles.flatMap((s) => s.calls).flatMap((c) => (c.op === 'create' ? [c.args[0]] : c.op === 'batchPut' ? (c.args[0] as unknown[]) : []));
  return Math.round(sum(written.map((i) => itemSize(i as Record<string, unknown>))) / Math.max(1, written.length)) || 1024;
}

function costRows(singles: Single[], batch: { calls: PortCall[]; accepted: number; bodyBytes: number }): CostRow[] {
  const sends = singles.length;
  const rows: CostRow[] = [];
  const add = (step: string, resource: string, unit: string, price: number, single: number, inBatch = single, steady = single): void => {
    if (single || inBatch) rows.push({ step, resource, unit, single, batch: inBatch, steady, price });
  };
  const dynamo = (step: string, single: PortCall[], inBatch: PortCall[], n: number): void => {
    const [a, b] = [totalUnits(single), totalUnits(inBatch)];
    add(step, 'DynamoDB writes (table)', 'WRU', PRICE.wru, a.wru / sends, b.wru / n);
    add(step, 'DynamoDB writes (GSI)', 'WRU', PRICE.wru, a.gsiWru / sends, b.gsiWru / n);
    add(step, 'DynamoDB reads', 'RRU', PRICE.rru, a.rru / sends, b.rru / n);
    add(step, 'SQS sends', 'requests', PRICE.sqs, a.sqs / sends, b.sqs / n);
    // Only content past the inline limit reaches the object store: one PUT at the API, one GET in the worker.
    add(step, 'S3 PUT (message content)', 'requests', PRICE.s3Put, a.s3Put / sends, b.s3Put / n);
    add(step, 'S3 GET (message content)', 'requests', PRICE.s3Get, a.s3Get / sends, b.s3Get / n);
  };
  const api = singles.flatMap((s) => s.calls.filter((c) => c.by === 'api'));
  const puts = (calls: PortCall[]): number => calls.filter((c) => c.port === 'objects' && c.op === 'put').length;
  const singleMs = sum(singles.map((s) => modelledMs(s.calls.filter((c) => c.by === 'api')))) / sends;
  const batchMs = ASSUMED_MS.apiPerBatchItem * batch.accepted + (ASSUMED_MS.objectPut * puts(batch.calls)) / CLAIM_CONCURRENCY;
  add('API', 'HTTP API requests', 'requests', PRICE.httpApi, 1, Math.ceil(batch.bodyBytes / (512 * 1024)) / batch.accepted);
  add('API', `Lambda invocations (${apiFn})`, 'invocations', PRICE.invocations, 1, 1 / batch.accepted);
  add('API', `Lambda duration (${apiFn})`, 'GB-s', PRICE.gbSeconds, gbSeconds(apiFn, singleMs), gbSeconds(apiFn, batchMs) / batch.accepted);
  dynamo('API', api, batch.calls, batch.accepted);
  for (const q of queuesReached(singles)) {
    const fn = consumerOf(q);
    const messages = sum(singles.flatMap((s) => s.invocations.filter((i) => i.queue === q).map((i) => i.bodies.length))) / sends;
    const batchSize = queueNamed(q as QueueName).batchSize;
    const calls = singles.flatMap((s) => s.calls.filter((c) => c.by === q));
    if (q === 'ses-events') {
      const notifications = sum(singles.flatMap((s) => s.calls.filter((c) => c.port === 'mailer').map(() => 1))) / sends;
      add(q, 'SNS publish of the SES event (modelled: one per email sent)', 'publishes', PRICE.snsPublish, notifications);
      add(q, 'SQS message SNS delivers (modelled)', 'requests', PRICE.sqs, notifications);
    }
    add(q, 'SQS ReceiveMessage + DeleteMessageBatch (modelled from batches)', 'requests', PRICE.sqs, 2 * messages, (2 * messages) / batchSize, (2 * messages) / batchSize);
    add(q, `Lambda invocations (${fn})`, 'invocations', PRICE.invocations, messages, messages / batchSize, messages / batchSize);
    // Per message as a single send's invocations took it; a full batch runs its messages one after another.
    const perSendMs = sum(singles.flatMap((s) => invocationMs(s, q))) / sends;
    add(q, `Lambda duration (${fn})`, 'GB-s', PRICE.gbSeconds, gbSeconds(fn, perSendMs), gbSeconds(fn, perSendMs));
    dynamo(q, calls, calls, sends);
  }
  // Under steady traffic a consumer's receive, delete and invocation are shared as in a batch.
  for (const r of rows) if (r.step !== 'API' && (r.resource.startsWith('SQS ReceiveMessage') || r.resource.startsWith('Lambda invocations'))) r.steady = r.batch;
  return rows;
}

const queuesReached = (singles: Single[]): string[] => [...new Set(singles.flatMap((s) => s.invocations.map((i) => i.queue)))];

export const sending: Benchmark = {
  name: 'Sending',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { rt, c } = b;
      const store = c.store; // the floor runs on the store itself, never counted
      const floorQueue = new SqsQueue(rt.sqsClient, { send: (await rt.sqsClient.send(new CreateQueueCommand({ QueueName: 'bench-floor' }))).QueueUrl });
      // Counted with the item each write replaces, for the cost model; the timed batches below are not.
      b.count({ before: true });
      const priced: Array<{ scenario: Scenario; singles: Single[]; batch: { calls: PortCall[]; accepted: number; bodyBytes: number } }> = [];
      for (const scenario of SCENARIOS) {
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
        priced.push({ scenario, singles, batch: { calls: [], accepted: 0, bodyBytes: 0 } });
      }
      // After every single send: the batches' jobs stay queued (no consumer runs from here on).
      for (const p of priced) {
        log(`  one counted batch of ${p.scenario.batchItems} with ${p.scenario.title}`);
        const account = await newSender(c, `bench cost batch ${p.scenario.name}`);
        b.take();
        const items = Array.from({ length: p.scenario.batchItems }, (_, k) => emailItem(account.from, `cost-${p.scenario.name}`, k, p.scenario));
        const res = await http(rt, 'POST', '/v1/send/batch', account.key, items);
        const accepted = Array.isArray(res.json) ? res.json.filter((r: { success?: boolean }) => r?.success).length : 0;
        if (accepted !== p.scenario.batchItems) throw new Error(`cost batch ${p.scenario.name}: ${accepted} of ${p.scenario.batchItems} accepted (${res.status})`);
        p.batch = { calls: b.take(), accepted, bodyBytes: res.bytes };
      }
      b.uncount();
      b.count();
      const singles = priced[0]!.singles;

      const itemBytes = floorItemBytes(singles);
      let n = 0;
      const floorItem = () => ({ pk: `BENCHFLOOR#${n++}`, sk: 'FLOOR', entity: 'bench_floor', pad: 'x'.repeat(Math.max(0, itemBytes - 40)) });
      const loop = (concurrency: number, durationMs: number) => ({ concurrency, warmupMs: S.floorWarmupMs, durationMs });
      const ok = (p: Promise<unknown>): Promise<string> => p.then(() => 'ok');
      const floorRound = async () => ({
        // Fresh conditional puts at the claims' concurrency; batches one call at a time, as the send path makes them.
        single: await closedLoop(() => ok(store.create(floorItem())), loop(CLAIM_CONCURRENCY, S.floorMs.single)),
        batchPut: await closedLoop(() => ok(store.batchPut(Array.from({ length: 25 }, floorItem))), loop(1, S.floorMs.batchPut)),
        batchGet: await closedLoop((i) => ok(store.batchGet(Array.from({ length: 100 }, (_, k) => ({ pk: `BENCHMISSING#${i}#${k}`, sk: 'NONE' })))), loop(1, S.floorMs.batchGet)),
        queue: await closedLoop((i) => ok(floorQueue.sendBatch('send', Array.from({ length: 10 }, (_, k) => ({ message_id: `msg_${i}_${k}_benchmarkfloor0000` })))), loop(1, S.floorMs.queue)),
      });
      type Floor = Awaited<ReturnType<typeof floorRound>>;

      log(`  ${S.batches} batches of ${S.batchItems}, each between two floor rounds`);
      const floors: Floor[] = [await floorRound()];
      const batches: Array<{ wallMs: number; accepted: number; status: number; bodyBytes: number; calls: PortCall[] }> = [];
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
      b.uncount();

      // The batch's own store and queue calls at the rates the floor sustained around it, part after part.
      const partsOf = (calls: PortCall[], around: Floor[]) => {
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
      };
      const perBatch = batches.map((x, i) => {
        const parts = partsOf(x.calls, [floors[i]!, floors[i + 1]!]);
        return { ...x, parts, floorS: sum(parts.map((p) => p.s)) };
      });
      const claimsInFlight = maxOverlap(batches[0]!.calls.filter((x) => x.op === 'create'));
      const floorErrors = sum(floors.flatMap((f) => Object.values(f).map((l: LoopResult) => sum(Object.entries(l.outcomes).map(([o, v]) => (o === 'ok' ? 0 : v))))));
      const costs = priced.map((p) => ({ scenario: p.scenario, singles: p.singles, rows: costRows(p.singles, p.batch) }));
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

type BatchFigures = { wallMs: number; accepted: number; status: number; calls: PortCall[]; floorS: number; parts: Array<{ what: string; count: string; rate: string; s: number }> };

type Priced = { scenario: Scenario; singles: Single[]; rows: CostRow[] };

const stepsOf = (singles: Single[]): string[] => ['api', ...queuesReached(singles)];

function stepTable(singles: Single[]): string[] {
  const sends = singles.length;
  const per = (x: number): string => units(x / sends);
  const stepCalls = (step: string): PortCall[] => singles.flatMap((s) => s.calls.filter((c) => c.by === step));
  const stepInvocations = (step: string): Invocation[] => singles.flatMap((s) => s.invocations.filter((i) => i.queue === step));
  const stepRow = (step: string): string => {
    const calls = stepCalls(step);
    const u = totalUnits(calls);
    const modelled = step === 'api' ? 0 : 2 * stepInvocations(step).length;
    const localMs = step === 'api' ? median(singles.map((s) => s.apiMs)) : median(singles.map((s) => sum(s.invocations.filter((i) => i.queue === step).map((i) => i.ms))));
    const writes = calls.filter((c) => c.port === 'store' && ['put', 'create', 'update', 'delete'].includes(c.op)).length + sum(calls.filter((c) => c.op === 'batchPut').map((c) => (c.args[0] as unknown[]).length));
    const awsMs = step === 'api' ? sum(singles.map((s) => modelledMs(s.calls.filter((c) => c.by === 'api')))) / sends : sum(singles.flatMap((s) => invocationMs(s, step))) / sends;
    return `| ${step === 'api' ? 'API (POST /v1/send)' : `${step} queue → ${consumerOf(step)}`} | ${per(calls.length)} | ${per(u.requests + modelled)} | ${per(writes)} | ${per(u.wru)} + ${per(u.gsiWru)} | ${per(u.rru)} | ${per(u.sqs + modelled)} | ${per(u.s3Put + u.s3Get)} | ${per(u.ses)} | ${fmt(localMs, 1)} | ${fmt(awsMs, 0)} |`;
  };
  return [
    '| Step | Port calls | AWS requests | Item writes | WRU table + GSI | RRU | SQS requests | S3 requests | SES | Local ms (median) | Modelled AWS ms |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...stepsOf(singles).map(stepRow),
  ];
}

const total = (rows: CostRow[], k: 'single' | 'batch' | 'steady', pred: (r: CostRow) => boolean = () => true): number => sum(rows.filter(pred).map((r) => r[k] * r.price));
const isDynamo = (r: CostRow): boolean => r.resource.startsWith('DynamoDB');

function costTable(p: Priced): string[] {
  const { rows } = p;
  return [
    `| Step | Resource | Unit | Single send: units per email | $ per million | Steady single sends: units | $ per million | In a ${fmtInt(p.scenario.batchItems)}-item batch: units per email | $ per million |`,
    '|---|---|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map((r) => `| ${r.step} | ${r.resource} | ${r.unit} | ${units(r.single)} | ${dollars(r.single * r.price)} | ${units(r.steady)} | ${dollars(r.steady * r.price)} | ${units(r.batch)} | ${dollars(r.batch * r.price)} |`),
    `| **all** | **our overhead (everything but SES)** | | | **${dollars(total(rows, 'single'))}** | | **${dollars(total(rows, 'steady'))}** | | **${dollars(total(rows, 'batch'))}** |`,
    `| | of which DynamoDB | | | ${dollars(total(rows, 'single', isDynamo))} | | ${dollars(total(rows, 'steady', isDynamo))} | | ${dollars(total(rows, 'batch', isDynamo))} |`,
    `| SES | SES's own price | emails | 1 | ${dollars(PRICE.ses)} | 1 | ${dollars(PRICE.ses)} | 1 | ${dollars(PRICE.ses)} |`,
  ];
}

/**
 * The least an email can cost in this design, whatever the code does: the requests the mandated
 * path makes (API Gateway → Lambda → SQS → send worker → SES → SNS → SQS → events ingest, from
 * ../shared/design/architecture.md) and the store writes the spec makes necessary, at the same
 * prices and modelled latencies as the tables above. Arithmetic, not a measurement.
 */
function floorSection(): string[] {
  const lambda = (fn: string, ms: number) => PRICE.invocations + gbSeconds(fn, ms) * PRICE.gbSeconds;
  const { latency, cpuPerInvocation, cpuPerMessage } = MODEL_MS;
  const cpu = cpuPerInvocation + cpuPerMessage;
  // The API: the limiter, the queue send, the message (its own idempotency record), one after the other; the worker: the lease, SES, the handoff; the ingest: the status move.
  const apiMs = cpu + 2 * latency.store! + latency.queue!;
  const workerMs = cpu + 2 * latency.store! + latency.mailer!;
  const ingestMs = cpu + latency.store!;
  const batchSize = (q: QueueName) => queueNamed(q).batchSize;
  const parts = (consumersShared: boolean, apiShare: number) => {
    const share = (q: QueueName) => (consumersShared ? 1 / batchSize(q) : 1);
    return {
      api: apiShare * (PRICE.httpApi + lambda(apiFn, apiMs)) + PRICE.sqs,
      worker: share('send') * (2 * PRICE.sqs + PRICE.invocations) + gbSeconds(consumerOf('send'), workerMs) * PRICE.gbSeconds,
      events: PRICE.snsPublish + PRICE.sqs + share('ses-events') * (2 * PRICE.sqs + PRICE.invocations) + gbSeconds(consumerOf('ses-events'), ingestMs) * PRICE.gbSeconds,
    };
  };
  // The writes: the message, which is its own idempotency record (its id follows from the key a
  // retry must replay: shared/messages/message-id.ts), and its list entry, the limiter's admission
  // (per request), the dispatch guard (no second send on a redelivery), and the two status moves of
  // the timeline (sent, delivered), each with its event in the same item write.
  const writes = (perRequest: number) => ({ message: 1, listEntry: 1, limiter: perRequest, lease: 1, sent: 1, delivered: 1 });
  // A 20 KB HTML body gzips to about 3.8 KB: a content item of 4 units written once, and read once (1 RRU, priced as its WRU share below).
  const content = { content: 4 + PRICE.rru / PRICE.wru };
  const rows: Array<[string, ReturnType<typeof parts>, Record<string, number>, number]> = [
    ['Single send at low traffic', parts(false, 1), writes(1), 8],
    ['Steady single sends', parts(true, 1), writes(1), 8],
    ['1,000-item batch', parts(true, 1 / 1000), writes(1 / 1000), 4],
    ['Single send at low traffic, 20 KB HTML', parts(false, 1), { ...writes(1), ...content }, 10],
    ['Steady single sends, 20 KB HTML', parts(true, 1), { ...writes(1), ...content }, 10],
    ['400-item batch, 20 KB HTML', parts(true, 1 / 400), { ...writes(1 / 400), ...content }, 6],
  ];
  const sumOf = (o: Record<string, number>) => sum(Object.values(o));
  return [
    '### The floor of this design',
    '',
    `What an email costs at the least, whatever the code does: the requests of the path the design fixes (API Gateway → ${apiFn} → SQS → ${consumerOf('send')} → SES → SNS → SQS → ${consumerOf('ses-events')}; ../shared/design/architecture.md) with no other call, and the store writes the spec makes necessary, each one unit, with no read and no usage counter: the message, which is its own idempotency record (its id follows from the account and the key a retry must replay, so one conditional put both claims the key and stores the message), and its list entry, the limiter's admission (one per request), the dispatch guard (no second send when the queue redelivers), and the sent and delivered status moves of the timeline, each event written with its status move. Durations from the model above (API ${fmt(apiMs, 0)} ms, send worker ${fmt(workerMs, 0)} ms, ingest ${fmt(ingestMs, 0)} ms). Arithmetic on the prices above, not a measurement.`,
    '',
    '| Column | API, its SQS send | send worker | SNS, SQS, ingest | DynamoDB (in WRU) | Floor | Target |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(([name, p, w, target]) => {
      const dynamo = sumOf(w) * PRICE.wru;
      const floor = sumOf(p) + dynamo;
      return `| ${name} | ${dollars(p.api)} | ${dollars(p.worker)} | ${dollars(p.events)} | ${fmt(sumOf(w), 3)} WRU = ${dollars(dynamo)} | **${dollars(floor)}** | ${dollars(target)}${floor > target ? ' (below the floor)' : ''} |`;
    }),
    '',
    'Read it as: a target below the floor cannot be met by this design, only by changing it (for instance SES events through EventBridge instead of SNS); a target above it says how little room is left for reads, the usage counter and the crash-safety bookkeeping.',
  ];
}

function render(priced: Priced[], batches: BatchFigures[], notes: { claimsInFlight: number; floorErrors: number; itemBytes: number }): string {
  const singles = priced[0]!.singles;
  const sends = singles.length;
  const steps = stepsOf(singles);
  const sequence = (s: Single, step: string): string => s.calls.filter((c) => c.by === step).map(labelOf).join(' → ');
  const identical = priced.every((p) => p.singles.every((s) => stepsOf(p.singles).every((step) => sequence(s, step) === sequence(p.singles[0]!, step))));
  const walls = batches.map((x) => x.wallMs / 1000);
  const ratios = batches.map((x) => x.wallMs / 1000 / x.floorS);
  const allAccepted = batches.every((x) => x.accepted === S.batchItems && x.status === 200);
  const labels = [...countByLabel(batches[0]!.calls)].sort((a, z) => z[1] - a[1]);
  const headline = priced
    .map((p) => `with ${p.scenario.title} ${dollars(total(p.rows, 'single'))} for single sends at low traffic, ${dollars(total(p.rows, 'steady'))} for steady single sends and ${dollars(total(p.rows, 'batch'))} inside ${fmtInt(p.scenario.batchItems)}-item batches`)
    .join('; ');
  return [
    '## AWS requests per send',
    '',
    `Method: a fresh account (its sending domain marked verified in the store, standing in for the DNS check) sends one email with POST /v1/send, ${sends} times for each body (${priced.map((p) => p.scenario.title).join(', ')}), on a local runtime of its own. ` +
      'The queue consumers are driven by the benchmark: after the API answers, each consumed queue is polled in turn (the runtime\'s QueuePoller and handler exports) until a whole pass finds nothing, so every step of the email runs, one at a time. ' +
      'Every call the code makes at the store, queue, mailer and object store ports is counted by decorators on the running container, booked to the step that made it (the HTTP request or the consumer invocation, through AsyncLocalStorage); each store write first reads, uncounted, the item it replaces, so it is charged as DynamoDB charges it (this adds a read\'s latency to the local ms). ' +
      "Modelled, not counted: the pollers' SQS ReceiveMessage and DeleteMessageBatch (one each per invocation; they are the Lambda event source's in AWS), and for the events ingest the SNS publish and SQS delivery of the SES event (the local SES simulator queues it; SES and SNS do in AWS). " +
      `Every message reached status \`${[...new Set(priced.flatMap((p) => p.singles.map((s) => s.status)))].join('`, `')}\`; the call sequence was ${identical ? `identical in all ${sends} sends of each body` : 'not the same in every send (averages below)'}.`,
    '',
    ...priced.flatMap((p) => [`With ${p.scenario.title}:`, '', ...stepTable(p.singles), '']),
    'In order, for the first send of each body (item kinds from their keys: `ACCT/KEY` an API key, `RATE/LOG` a rate-limit log, `IDEM` an idempotency claim, `MSG` a message\'s status item, `MSG/CONTENT` its content item, `MSG/EVT` a timeline event):',
    '',
    ...priced.flatMap((p) => stepsOf(p.singles).map((step) => `- ${p.scenario.name}, ${step}: ${sequence(p.singles[0]!, step)}`)),
    '',
    'Read it as: what one email asks of AWS, step by step. DynamoDB units follow DynamoDB\'s rules (bench/lib/cost.ts): a write per started KB of the larger of the item before and after it, an index entry written only when it is added, removed or its keys or projected attributes change (a key change is a delete and a put), a failed conditional write for the item it met; consistent reads per started 4 KB, a read that finds nothing as 1 unit.',
    '',
    '## Cost per million emails at list prices',
    '',
    `${priceNote} Lambda durations (memory from functions/manifest.ts) are modelled from the calls counted, since local latencies say nothing about a region's (bench/lib/cost.ts, modelledMs): each round trip (calls that overlap in time) lasts as long as its slowest call, at ${Object.entries(MODEL_MS.latency).map(([k, v]) => `${k} ${v} ms`).join(', ')}, a batch call one round trip per 8 of its requests, plus ${MODEL_MS.cpuPerInvocation} ms of CPU per invocation and ${MODEL_MS.cpuPerMessage} ms per message; the "Modelled AWS ms" column above. A batch request is assumed at ${ASSUMED_MS.apiPerBatchItem} ms per item plus ${ASSUMED_MS.objectPut} ms per object store PUT, ${CLAIM_CONCURRENCY} at once (its claims overlap, which the round trips cannot show).`,
    '',
    `Columns: a **single send** is POST /v1/send at low traffic, each consumer message taken by a receive, an invocation and a delete of its own. **Steady single sends** are the same at 10 or more a second, when the event sources hand the consumers full batches, so a receive, a delete and an invocation are shared by a batch's messages. **In a batch** is one item of a POST /v1/send/batch (1,000 short items; 400 of 20 KB, since 1,000 would pass API Gateway's 10 MB body): the API's calls are a counted batch's divided by its accepted items, and the consumers take full batches of their manifest batch size (${steps.slice(1).map((q) => `${q} ${queueNamed(q as QueueName).batchSize}`).join(', ')}), as a backlog gives them; the consumers' store work per message is the single send's.`,
    '',
    ...priced.flatMap((p) => [`With ${p.scenario.title}:`, '', ...costTable(p), '']),
    `**Overhead per million emails: ${headline}** (SES's own price is ${dollars(PRICE.ses)}). ` +
      'Not included: CloudWatch Logs, data transfer, the event sources\' idle long polls (a fixed cost per queue, not per email), SES extras, storage (DynamoDB $0.25 and S3 $0.023 per GB-month).',
    '',
    ...floorSection(),
    '',
    '## 1,000-item batch against the store floor',
    '',
    `Method: ${batches.length} times, a fresh account posts ${fmtInt(S.batchItems)} distinct email items (each with its own idempotency key) to POST /v1/send/batch; wall time is the client's, request sent to response read. No consumer runs meanwhile, so every port call is the API's. ` +
      `Before the first batch and after each one the floor is measured on the same store and SQS emulator, after ${S.floorWarmupMs} ms warm-up each: ${S.floorMs.single / 1000} s of conditional puts of fresh ${fmtInt(notes.itemBytes)}-byte items (the mean size of the items the single sends wrote) at the claim concurrency (CLAIM_CONCURRENCY = ${CLAIM_CONCURRENCY}, imported from shared/messages/send.ts; the first batch had up to ${notes.claimsInFlight} claims in flight), ` +
      `${S.floorMs.batchPut / 1000} s of batchPut of 25 such items, ${S.floorMs.batchGet / 1000} s of batchGet of 100 missing keys and ${S.floorMs.queue / 1000} s of SQS sendBatch of 10 on a queue of the benchmark's own, each one call at a time as the send path makes them. ` +
      '"Floor s" is the time the batch\'s own calls would take at the rates measured on both sides of it, one part after the other.',
    '',
    '| Batch | Wall s | Accepted | Floor s | Batch ÷ floor |',
    '|---|---:|---:|---:|---:|',
    ...batches.map((x, i) => `| ${i + 1} | ${fmt(x.wallMs / 1000, 2)} | ${fmtInt(x.accepted)} | ${fmt(x.floorS, 2)} | ${fmt(x.wallMs / 1000 / x.floorS, 2)}× |`),
    '',
    `**Wall time for ${fmtInt(S.batchItems)} items: median ${fmt(median(walls), 2)} s (${fmtInt(S.batchItems / median(walls))} items/s), ${fmt(median(ratios), 2)}× the floor** (median of the batches). ${allAccepted ? 'Every item of every batch was accepted.' : '**Not every item was accepted.**'} Floor errors: ${notes.floorErrors}.`,
    '',
    'Read it as: near 1× the API costs little beyond its store and queue calls; what lies above is validation, hashing, marshalling, HTTP and JSON on the shared thread. The floor rates swing with the machine\'s other load, so read several rows.',
    '',
    `The first batch's port calls (${fmtInt(batches[0]!.calls.length)}), and its floor part by part:`,
    '',
    '| Port call | Calls | AWS requests |',
    '|---|---:|---:|',
    ...labels.map(([label, count]) => `| ${label} | ${fmtInt(count)} | ${fmtInt(sum(batches[0]!.calls.filter((x) => labelOf(x) === label).map((x) => unitsOf(x).requests)))} |`),
    '',
    '| Part | In the batch | Floor rate | Floor s |',
    '|---|---:|---:|---:|',
    ...batches[0]!.parts.map((p) => `| ${p.what} | ${p.count} | ${p.rate} | ${fmt(p.s, 2)} |`),
  ].join('\n');
}
