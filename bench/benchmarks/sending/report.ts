// The sending benchmark's markdown: the AWS requests per send, the cost per million emails, the
// floor of the design, and the 1,000-item batches against the store floor.
import { noteTarget } from '../../lib/targets';
import { CLAIM_CONCURRENCY } from '../../../shared/sending/messages/send';
import { queueNamed, type QueueName } from '../../../shared/platform';
import { callList, consumerOf, countByLabel, gbSeconds, labelOf, MODEL_MS, modelledMs, PRICE, priceNote, totalUnits, unitsOf } from '../../lib/cost';
import { dollars, fmt, fmtInt, median, sum, units } from '../../lib/measure';
import type { Invocation, PortCall } from '../../lib/runtime';
import { isDynamo, total, type CostRow } from './costs';
import { apiFn, ASSUMED_MS, invocationMs, messagesPerInvocation, S, stepsOf, type Drained, type Scenario, type Single } from './sends';

export type BatchFigures = { wallMs: number; accepted: number; status: number; calls: PortCall[]; floorS: number; parts: Array<{ what: string; count: string; rate: string; s: number }> };

export type Priced = { scenario: Scenario; singles: Single[]; steady: Drained; batch: Drained; rows: CostRow[] };

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

/** The consumers' work per email when they take full batches: the steady sends' and the batch's. */
function batchedTable(priced: Priced[]): string[] {
  const row = (p: Priced, column: string, d: Drained, q: string): string => {
    const calls = d.calls.filter((c) => c.by === q);
    const u = totalUnits(calls);
    const per = (x: number): string => units(x / d.emails);
    return `| ${p.scenario.name} | ${column} | ${q} → ${consumerOf(q)} | ${fmtInt(d.emails)} | ${fmt(messagesPerInvocation(d, q), 1)} | ${per(calls.length)} | ${per(u.wru)} + ${per(u.gsiWru)} | ${per(u.rru)} | ${fmt(sum(invocationMs(d, q)) / d.emails, 1)} | ${callList(calls, d.emails)} |`;
  };
  return [
    '| Body | Column | Consumer | Emails | Messages per invocation | Port calls per email | WRU table + GSI per email | RRU per email | Modelled AWS ms per email | Calls per email |',
    '|---|---|---|---:|---:|---:|---:|---:|---:|---|',
    ...priced.flatMap((p) => stepsOf(p.singles).slice(1).flatMap((q) => [row(p, 'steady single sends', p.steady, q), row(p, `${fmtInt(p.scenario.batchItems)}-item batch`, p.batch, q)])),
  ];
}

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
interface FloorRow {
  name: string;
  parts: { api: number; worker: number; events: number };
  /** The store writes the floor counts, in WRU. */
  wru: number;
  /** The floor, then with the delivered write at the spec's two units, then with one usage write per request. */
  floor: number;
  withPayload: number;
  withUsage: number;
  /** Issue 31's target for the row. */
  target: number;
}

/** The floor's arithmetic per column and body, in the order of the cost tables (short body's three columns, then 20 KB's). */
function floorRows(): { rows: FloorRow[]; ms: { apiMs: number; workerMs: number; ingestMs: number } } {
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
  // retry must replay: shared/sending/messages/message-id.ts), and its list entry, the limiter's admission
  // (per request), the dispatch guard (no second send on a redelivery), and the two status moves of
  // the timeline (sent, delivered), each with its event in the same item write.
  const writes = (perRequest: number) => ({ message: 1, listEntry: 1, limiter: perRequest, lease: 1, sent: 1, delivered: 1 });
  // A 20 KB HTML body gzips to about 3.8 KB: a content item of 4 units written once, and read once (1 RRU, priced as its WRU share below).
  const content = { content: 4 + PRICE.rru / PRICE.wru };
  // Issue 31's targets, in the order of the rows.
  const rows: Array<[string, ReturnType<typeof parts>, Record<string, number>, number]> = [
    ['Single send at low traffic', parts(false, 1), writes(1), 10.5],
    ['Steady single sends', parts(true, 1), writes(1), 8.5],
    ['1,000-item batch', parts(true, 1 / 1000), writes(1 / 1000), 6],
    ['Single send at low traffic, 20 KB HTML', parts(false, 1), { ...writes(1), ...content }, 13],
    ['Steady single sends, 20 KB HTML', parts(true, 1), { ...writes(1), ...content }, 11],
    ['400-item batch, 20 KB HTML', parts(true, 1 / 400), { ...writes(1 / 400), ...content }, 8.5],
  ];
  const sumOf = (o: Record<string, number>) => sum(Object.values(o));
  return {
    ms: { apiMs, workerMs, ingestMs },
    rows: rows.map(([name, p, w, target]) => {
      const floor = sumOf(p) + sumOf(w) * PRICE.wru;
      // The delivered write at the two units the spec's unchanged SES notification takes it to (measured above), then one usage write per request.
      const withPayload = floor + PRICE.wru;
      return { name, parts: p, wru: sumOf(w), floor, withPayload, withUsage: withPayload + w.limiter! * PRICE.wru, target };
    }),
  };
}

function floorSection(): string[] {
  const { rows, ms: { apiMs, workerMs, ingestMs } } = floorRows();
  return [
    '### The floor of this design',
    '',
    `What an email costs at the least, whatever the code does: the requests of the path the design fixes (API Gateway → ${apiFn} → SQS → ${consumerOf('send')} → SES → SNS → SQS → ${consumerOf('ses-events')}; ../shared/design/architecture.md) with no other call, and the store writes the spec makes necessary, each one unit, with no read and no usage counter: the message, which is its own idempotency record (its id follows from the account and the key a retry must replay, so one conditional put both claims the key and stores the message), and its list entry, the limiter's admission (one per request), the dispatch guard (no second send when the queue redelivers), and the sent and delivered status moves of the timeline, each event written with its status move. Durations from the model above (API ${fmt(apiMs, 0)} ms, send worker ${fmt(workerMs, 0)} ms, ingest ${fmt(ingestMs, 0)} ms). Arithmetic on the prices above, not a measurement.`,
    '',
    '| Column | API, its SQS send | send worker | SNS, SQS, ingest | DynamoDB (in WRU) | Floor | With the spec\'s SES payload | and the usage counter | Target (issue 31) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(({ name, parts: p, wru, floor, withPayload, withUsage, target }) => {
      const below = (x: number) => (x > target ? ' (above the target)' : '');
      return `| ${name} | ${dollars(p.api)} | ${dollars(p.worker)} | ${dollars(p.events)} | ${fmt(wru, 3)} WRU = ${dollars(wru * PRICE.wru)} | **${dollars(floor)}** | ${dollars(withPayload)}${below(withPayload)} | ${dollars(withUsage)}${below(withUsage)} | ${dollars(target)}${floor > target ? ' (below the floor)' : ''} |`;
    }),
    '',
    'Read it as: a target below the floor cannot be met by this design, only by changing it (for instance SES events through EventBridge instead of SNS); a target above it says how little room is left for reads, the usage counter and the crash-safety bookkeeping. ' +
      'The floor counts the delivered write as one unit; the spec stores the provider\'s notification unchanged (interface-specification.md, "Payload shapes"), and SES\'s Delivery notification, folded onto the message item with its status move, takes the item past 1 KB (the ses-events rows above: 2 WRU), so the floor the spec allows is one unit higher. ' +
      'The usage counter is the month\'s usage item, counted and reserved once per request (the spend caps compare with it): the least an API that reports usage and enforces caps writes. Where that column passes the target, the target is out of reach before any read, the key\'s use, the reputation\'s counter or a Lambda millisecond beyond the model\'s is counted.',
  ];
}

export function render(priced: Priced[], batches: BatchFigures[], notes: { claimsInFlight: number; floorErrors: number; itemBytes: number }): string {
  const singles = priced[0]!.singles;
  const sends = singles.length;
  const steps = stepsOf(singles);
  const sequence = (s: Single, step: string): string => s.calls.filter((c) => c.by === step).map(labelOf).join(' → ');
  const identical = priced.every((p) => p.singles.every((s) => stepsOf(p.singles).every((step) => sequence(s, step) === sequence(p.singles[0]!, step))));
  const walls = batches.map((x) => x.wallMs / 1000);
  const ratios = batches.map((x) => x.wallMs / 1000 / x.floorS);
  const allAccepted = batches.every((x) => x.accepted === S.batchItems && x.status === 200);
  const labels = [...countByLabel(batches[0]!.calls)].sort((a, z) => z[1] - a[1]);
  // Issue 31's cost targets, each beside this design's floor with the spec's payload and the usage counter.
  const floors = floorRows().rows;
  const costTargets = priced.flatMap((p) =>
    (['single', 'steady', 'batch'] as const).map((column, i) => {
      const f = floors[(p.scenario.name === 'small' ? 0 : 3) + i]!;
      const overhead = total(p.rows, column);
      return noteTarget({
        item: 5,
        what: `Overhead per million emails, ${f.name.charAt(0).toLowerCase()}${f.name.slice(1)}${p.scenario.name === 'small' ? ', short body' : ''}: ≤ ${dollars(f.target)}`,
        figure: `${dollars(overhead)}; this design's floor with the spec's SES payload and the usage counter ${dollars(f.withUsage)}${f.withUsage > f.target ? ', above the target' : ''}`,
        met: overhead <= f.target,
      });
    }),
  );
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
    `Columns: a **single send** is POST /v1/send at low traffic: each consumer message is taken by a receive, an invocation and a delete of its own, and its store work is the single sends' above. ` +
      `**Steady single sends** are the same requests at 10 or more a second, when the event sources hand the consumers full batches: measured by ${S.steadySends} single sends of two accounts in turn (one account may make 10 requests a second) accepted one after another, and only then their send jobs handed to the send worker and their SES events to the ses-events consumer, each queue polled until empty at up to its manifest batch size a poll (${steps.slice(1).map((q) => `${q} ${queueNamed(q as QueueName).batchSize}`).join(', ')}); the API's work is the single send's. ` +
      `**In a batch** is one item of a POST /v1/send/batch (1,000 short items; 400 of 20 KB, since 1,000 would pass API Gateway's 10 MB body): the API's calls are a counted batch's divided by its accepted items, and its jobs and SES events are then handed to the consumers the same way. ` +
      'In both batched columns the consumers\' port calls, their SQS receives, deletes and invocations (one each per invocation) and their modelled durations (each invocation\'s round trips, bench/lib/cost.ts modelledMs) are counted over every invocation and divided by the emails: what a batch shares (the account read, the suppressions read, the webhook subscriptions, the counters summed and written once per batch and item) is shared as it was measured.',
    '',
    'The consumers in full batches, per email:',
    '',
    ...batchedTable(priced),
    '',
    ...priced.flatMap((p) => [`With ${p.scenario.title}:`, '', ...costTable(p), '']),
    `**Overhead per million emails: ${headline}** (SES's own price is ${dollars(PRICE.ses)}). ` +
      'Not included: CloudWatch Logs, data transfer, the event sources\' idle long polls (a fixed cost per queue, not per email), SES extras, storage (DynamoDB $0.25 and S3 $0.023 per GB-month).',
    '',
    'Targets (issue 31):',
    '',
    ...costTargets,
    '',
    ...floorSection(),
    '',
    '## 1,000-item batch against the store floor',
    '',
    `Method: ${batches.length} times, a fresh account posts ${fmtInt(S.batchItems)} distinct email items (each with its own idempotency key) to POST /v1/send/batch; wall time is the client's, request sent to response read. No consumer runs meanwhile, so every port call is the API's. ` +
      `Before the first batch and after each one the floor is measured on the same store and SQS emulator, after ${S.floorWarmupMs} ms warm-up each: ${S.floorMs.single / 1000} s of conditional puts of fresh ${fmtInt(notes.itemBytes)}-byte items (the mean size of the items the single sends wrote) at the claim concurrency (CLAIM_CONCURRENCY = ${CLAIM_CONCURRENCY}, imported from shared/sending/messages/send.ts; the first batch had up to ${notes.claimsInFlight} claims in flight), ` +
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