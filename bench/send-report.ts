// Turns the sending measurements (bench/send.ts) into the markdown sections of bench/results.md:
// requests per send by step, the cost per million emails at list prices, and the 1,000-item
// batch against the store's floor.
import { addUnits, noUnits, unitsOf, type Units } from './capacity';
import { functions } from '../functions/manifest';
import { queues } from '../shared/platform';
import { messagesOf, type CommandRecord } from './aws-tap';
import { ASSUMED_LAMBDA_MS, assumedMsPerMessage, gbSeconds, memoryMbOf, perMillion, PRICES, type CostLine } from './pricing';
import { consumerQueues, rate, SEND_SETTINGS, type FloorRound, type QueueStats, type SendResults, type Step } from './send';
import { fmt, fmtInt, median } from './stats';

/** Short name of an item from its key: `ACCT/KEY`, `MSG/EVT`, `IDEM`, … */
function itemKind(key: { pk?: unknown; sk?: unknown } | undefined): string {
  const pk = String(key?.pk ?? '?').split('#')[0] as string;
  const sk = String(key?.sk ?? '').split('#')[0] as string;
  return !sk || sk === pk ? pk : `${pk}/${sk}`;
}

const kindsOf = (keyList: Array<{ pk?: unknown; sk?: unknown }>): string => [...new Set(keyList.map(itemKind))].join('+');

/** One command as a reader can place it: what it is and which items it touches. */
export function describe(r: CommandRecord): { label: string; items: number } {
  // The recorded input is the document client's, whose shape depends on the command.
  const i = r.input as Record<string, any>;
  const failed = r.error ? ` → ${r.error.replace(/Exception$/, '')}` : '';
  switch (r.command) {
    case 'GetItem':
    case 'DeleteItem':
      return { label: `${r.command} ${itemKind(i.Key)}${failed}`, items: 1 };
    case 'PutItem':
      return { label: `PutItem ${itemKind(i.Item)}${i.ConditionExpression ? ' (conditional)' : ''}${failed}`, items: 1 };
    case 'UpdateItem':
      return { label: `UpdateItem ${itemKind(i.Key)}${i.ConditionExpression ? ' (conditional)' : ''}${failed}`, items: 1 };
    case 'Query': {
      // Key condition values: the partition, then (for begins_with) the sort key prefix.
      const [pk, sk] = Object.values(i.ExpressionAttributeValues ?? {}).map((v) => String(v).split('#')[0]);
      return { label: `Query ${i.IndexName ? `${i.IndexName} ` : ''}${pk}${sk ? `/${sk}` : ''}`, items: 1 };
    }
    case 'BatchGetItem': {
      const keyList = Object.values(i.RequestItems ?? {}).flatMap((t: any) => t.Keys ?? []);
      return { label: `BatchGetItem ${kindsOf(keyList)}`, items: keyList.length };
    }
    case 'BatchWriteItem': {
      const reqs = Object.values(i.RequestItems ?? {}).flat() as any[];
      return { label: `BatchWriteItem ${kindsOf(reqs.map((q) => q.PutRequest?.Item ?? q.DeleteRequest?.Key))}`, items: reqs.length };
    }
    default:
      if (r.service === 'SQS') {
        const entries = (i.Entries as unknown[] | undefined)?.length;
        return { label: `${r.command} ${r.queue ?? '?'}${failed}`, items: entries ?? 1 };
      }
      return { label: `${r.service === 'SES' ? 'SES ' : ''}${r.command}${failed}`, items: 1 };
  }
}

interface Grouped {
  label: string;
  calls: number;
  items: number;
}

function group(records: CommandRecord[]): Grouped[] {
  const out = new Map<string, Grouped>();
  for (const r of records) {
    const d = describe(r);
    const g = out.get(d.label) ?? { label: d.label, calls: 0, items: 0 };
    g.calls++;
    g.items += d.items;
    out.set(d.label, g);
  }
  return [...out.values()];
}

const unitsOfAll = (records: CommandRecord[]): Units => records.reduce((u, r) => addUnits(u, unitsOf(r)), noUnits());

/** A consumer step as the report names it. */
function consumerOf(queue: string): { name: string; what: string; fn: string } {
  const fn = functions.find((f) => f.queue === queue)?.name ?? queue;
  switch (queue) {
    case 'send':
      return { name: 'send worker', what: 'send queue → send-worker Lambda → SES', fn };
    case 'ses-events':
      return { name: 'events ingest', what: 'SES Delivery → SNS → ses-events queue → ses-events Lambda', fn };
    case 'webhooks':
      return { name: 'webhooks fan-out', what: `each recorded event → webhooks queue → ${fn} Lambda (the account has no subscriptions)`, fn };
    default:
      return { name: `${fn} (${queue} queue)`, what: `${queue} queue → ${fn} Lambda`, fn };
  }
}

interface StepView {
  name: string;
  what: string;
  /** The queue a consumer step drains (none for the API). */
  queue?: string;
  fn: string;
  records: CommandRecord[];
  localMs: number[];
}

/**
 * The steps of one send with each command booked where AWS would bill it: a message sent to a
 * consumer queue other than the send queue counts with the step that consumes it (the Delivery
 * notification is SNS's doing in AWS, not the worker's; the events published for webhooks are
 * shown with their fan-out), everything else with the step that made it.
 */
function stepsOf(results: SendResults): StepView[] {
  const queues = consumerQueues().filter((q) => results.singles.some((s) => s.queues[q]));
  const views = new Map<string, StepView>([['api', { name: 'API', what: 'POST /v1/send (HTTP API → send Lambda)', fn: 'send', records: [], localMs: [] }]]);
  for (const q of queues) views.set(q, { ...consumerOf(q), queue: q, records: [], localMs: [] });
  const book = (r: CommandRecord, recordedIn: string): void => {
    const to = r.service === 'SQS' && r.command.startsWith('SendMessage') && r.queue && r.queue !== 'send' && views.has(r.queue) ? r.queue : recordedIn;
    views.get(to)?.records.push(r);
  };
  for (const s of results.singles) {
    for (const r of s.api.records) book(r, 'api');
    views.get('api')?.localMs.push(s.api.ms);
    for (const [q, step] of Object.entries(s.queues)) {
      for (const r of step.records) book(r, q);
      views.get(q)?.localMs.push(step.ms);
    }
  }
  return [...views.values()];
}

const perSend = (n: number, sends: number): string => fmt(n / Math.max(1, sends), 2).replace(/\.00$/, '');

function sequenceOf(step: Step | undefined): string {
  if (!step) return '(none)';
  return step.records.map((r) => describe(r).label).join(' → ');
}

const receivesPerMessage = (q: QueueStats): number => (q.receives - q.emptyReceives) / Math.max(1, q.messages);
const deletesPerMessage = (q: QueueStats): number => q.deletes / Math.max(1, q.messages);
const batchSize = (q: QueueStats): number => q.messages / Math.max(1, q.receives - q.emptyReceives);

interface CostTable {
  lines: Array<{ line: CostLine; batch: CostLine }>;
  totals: { single: number; batch: number };
}

/** The HTML body size of the "what if" line: a typical marketing or transactional HTML email. */
const HTML_BODY_BYTES = 20 * 1024;

type Plain = Record<string, unknown>;

/** The same commands as if every message item carried `bytes` of HTML body (the benchmark's are a few dozen bytes of text). */
function withMessageBody(records: CommandRecord[], bytes: number): CommandRecord[] {
  const body = 'x'.repeat(bytes);
  const grow = (item: unknown): unknown => {
    const i = item as Plain | undefined;
    return i && String(i.pk).startsWith('MSG#') && i.sk === 'MSG' ? { ...i, body_html: body } : item;
  };
  return records.map((r) => {
    if (r.service !== 'DynamoDB') return r;
    const input: Plain = { ...r.input };
    const output: Plain | undefined = r.output ? { ...r.output } : undefined;
    if (input.Item) input.Item = grow(input.Item);
    if (input.RequestItems && r.command === 'BatchWriteItem') {
      input.RequestItems = Object.fromEntries(
        Object.entries(input.RequestItems as Record<string, Array<{ PutRequest?: { Item: Plain } }>>).map(([table, reqs]) => [
          table,
          reqs.map((q) => (q.PutRequest ? { PutRequest: { Item: grow(q.PutRequest.Item) } } : q)),
        ]),
      );
    }
    if (output?.Item) output.Item = grow(output.Item);
    if (output?.Attributes) output.Attributes = grow(output.Attributes);
    return { ...r, input, output };
  });
}

function costTable(results: SendResults, steps: StepView[], messageBodyBytes?: number): CostTable {
  const sends = results.singles.length;
  const view = (records: CommandRecord[]): CommandRecord[] => (messageBodyBytes === undefined ? records : withMessageBody(records, messageBodyBytes));
  const accepted = Math.max(1, results.counted.run.ok);
  const httpChunks = Math.ceil(results.counted.run.bodyBytes / (512 * 1024));
  const sqsUnits = (records: CommandRecord[], pred: (r: CommandRecord) => boolean): number =>
    records.filter((r) => r.service === 'SQS' && pred(r)).reduce((n, r) => n + unitsOf(r).sqsRequests, 0);
  const rows: Array<{ line: CostLine; batch: CostLine }> = [];
  const add = (step: string, resource: string, unit: string, price: (n: number) => number, single: number, inBatch: number): void => {
    rows.push({
      line: { step, resource, unit, units: single, perMillion: price(single) },
      batch: { step, resource, unit, units: inBatch, perMillion: price(inBatch) },
    });
  };
  const dynamo = (step: string, single: Units, inBatch: Units): void => {
    add(step, 'DynamoDB writes (table)', 'WRU', perMillion.wru, single.wru, inBatch.wru);
    add(step, 'DynamoDB writes (GSI)', 'WRU', perMillion.wru, single.gsiWru, inBatch.gsiWru);
    add(step, 'DynamoDB reads', 'RRU', perMillion.rru, single.rru, inBatch.rru);
  };
  const perEmail = (u: Units, n: number): Units => ({ ...u, rru: u.rru / n, wru: u.wru / n, gsiWru: u.gsiWru / n, sqsRequests: u.sqsRequests / n });

  for (const step of steps) {
    const records = view(step.records);
    const single = perEmail(unitsOfAll(records.filter((r) => r.service === 'DynamoDB')), sends);
    const mem = memoryMbOf(step.fn);
    if (!step.queue) {
      const batchApi = perEmail(unitsOfAll(view(results.counted.records).filter((r) => r.service === 'DynamoDB')), accepted);
      add(step.name, 'HTTP API requests', 'requests', perMillion.httpApi, 1, httpChunks / accepted);
      add(step.name, `Lambda invocations (${step.fn})`, 'invocations', perMillion.invocations, 1, 1 / accepted);
      add(step.name, `Lambda duration (${step.fn}, ${mem} MB)`, 'GB-s', perMillion.gbSeconds, gbSeconds(mem, ASSUMED_LAMBDA_MS.apiSingleSend), gbSeconds(mem, ASSUMED_LAMBDA_MS.apiBatchOf1000) / 1000);
      dynamo(step.name, single, batchApi);
      add(step.name, 'SQS SendMessageBatch (send queue)', 'requests', perMillion.sqs, sqsUnits(records, () => true) / sends, sqsUnits(results.counted.records, (r) => r.queue === 'send') / accepted);
      continue;
    }
    const q = step.queue;
    const stats = results.pollers.queues[q];
    // Messages this queue carries per email. A single send's messages arrive apart (the events of
    // one message come a second or more after each other), so each is taken by a receive, an
    // invocation and a delete of its own; in the batch phase as the pollers' batches went.
    const messagesPerEmail = records.filter((r) => r.command === 'ReceiveMessage').reduce((n, r) => n + messagesOf(r), 0) / sends;
    const receives = messagesPerEmail;
    const receiveDeleteSingle = 2 * messagesPerEmail;
    const receiveDeleteBatch = stats ? messagesPerEmail * (receivesPerMessage(stats) + deletesPerMessage(stats)) : receiveDeleteSingle;
    if (q === 'ses-events') {
      add(step.name, 'SNS publish (SES event destination)', 'publishes', perMillion.snsPublish, messagesPerEmail, messagesPerEmail);
      add(step.name, 'SNS → SQS delivery', 'deliveries', () => 0, messagesPerEmail, messagesPerEmail);
    }
    const published = sqsUnits(records, (r) => r.queue === q && r.command.startsWith('SendMessage')) / sends;
    if (published > 0) add(step.name, q === 'ses-events' ? 'SQS SendMessage made by that delivery' : `SQS SendMessage onto ${q}`, 'requests', perMillion.sqs, published, published);
    add(step.name, 'SQS ReceiveMessage + DeleteMessageBatch', 'requests', perMillion.sqs, receiveDeleteSingle, receiveDeleteBatch);
    add(step.name, `Lambda invocations (${step.fn})`, 'invocations', perMillion.invocations, receives, stats ? messagesPerEmail * receivesPerMessage(stats) : receives);
    const gb = gbSeconds(mem, assumedMsPerMessage(q)) * messagesPerEmail;
    add(step.name, `Lambda duration (${step.fn}, ${mem} MB)`, 'GB-s', perMillion.gbSeconds, gb, gb);
    dynamo(step.name, single, single);
    // Anything else the step called (none today) still shows up, unpriced.
    const other = records.filter((r) => r.service !== 'DynamoDB' && r.service !== 'SQS' && !(r.service === 'SES' && r.command === 'SendEmail'));
    if (other.length) add(step.name, `other: ${[...new Set(other.map((r) => `${r.service} ${r.command}`))].join(', ')} (not priced)`, 'requests', () => 0, other.length / sends, other.length / sends);
  }
  return {
    lines: rows,
    totals: { single: rows.reduce((n, r) => n + r.line.perMillion, 0), batch: rows.reduce((n, r) => n + r.batch.perMillion, 0) },
  };
}

const units = (n: number): string => (n === 0 ? '0' : n >= 0.1 ? fmt(n, 2).replace(/\.00$/, '') : n.toPrecision(2));
const dollars = (n: number): string => `$${n < 0.01 && n > 0 ? n.toFixed(4) : n.toFixed(2)}`;

/** Rates pooled over floor rounds (completions over total measured time). */
function floorFigures(floors: FloorRound[]) {
  return {
    putPerSecond: rate(...floors.map((r) => r.put)),
    batchWriteCalls: rate(...floors.map((r) => r.batchWrite)),
    batchGetCalls: rate(...floors.map((r) => r.batchGet)),
    queueBatchCalls: rate(...floors.map((r) => r.queueBatch)),
    errors: floors.reduce((n, r) => n + [r.put, r.batchWrite, r.batchGet, r.queueBatch].reduce((k, l) => k + Object.entries(l.outcomes).filter(([o]) => o !== 'ok').reduce((s, [, v]) => s + v, 0), 0), 0),
  };
}

const floorSeconds = (parts: FloorPart[]): number => parts.reduce((n, p) => n + p.seconds, 0);

interface FloorPart {
  what: string;
  inBatch: string;
  rate: string;
  seconds: number;
}

/** The counted batch's store and queue work, timed at floor rates, part by part as the send path runs them. */
function floorParts(counted: CommandRecord[], f: ReturnType<typeof floorFigures>, claimConcurrency: number): FloorPart[] {
  const g = group(counted);
  const sum = (pred: (x: Grouped) => boolean, k: 'calls' | 'items'): number => g.filter(pred).reduce((n, x) => n + x[k], 0);
  const isClaim = (x: Grouped): boolean => x.label === 'PutItem IDEM (conditional)';
  const isBatchWrite = (x: Grouped): boolean => x.label.startsWith('BatchWriteItem');
  const isBatchGet = (x: Grouped): boolean => x.label.startsWith('BatchGetItem');
  const isQueue = (x: Grouped): boolean => x.label.startsWith('SendMessageBatch');
  const claims = sum(isClaim, 'calls');
  const bwItems = sum(isBatchWrite, 'items');
  const bgCalls = sum(isBatchGet, 'calls');
  const qCalls = sum(isQueue, 'calls');
  const others = sum((x) => !isClaim(x) && !isBatchWrite(x) && !isBatchGet(x) && !isQueue(x), 'calls');
  const bwRate = f.batchWriteCalls * SEND_SETTINGS.batchWriteItems;
  return [
    { what: `conditional PutItem (idempotency claims), ${claimConcurrency} in flight`, inBatch: `${fmtInt(claims)} items`, rate: `${fmtInt(f.putPerSecond)} items/s`, seconds: claims / f.putPerSecond },
    { what: `BatchWriteItem of ${SEND_SETTINGS.batchWriteItems} (messages, then claims marked done), one at a time`, inBatch: `${fmtInt(bwItems)} items in ${fmtInt(sum(isBatchWrite, 'calls'))} calls`, rate: `${fmtInt(bwRate)} items/s`, seconds: bwItems / bwRate },
    { what: `BatchGetItem of up to ${SEND_SETTINGS.batchGetKeys} keys (suppression check; auth and rate limit), one at a time`, inBatch: `${fmtInt(sum(isBatchGet, 'items'))} keys in ${fmtInt(bgCalls)} calls`, rate: `${fmtInt(f.batchGetCalls)} calls/s`, seconds: bgCalls / f.batchGetCalls },
    { what: `SQS SendMessageBatch of ${SEND_SETTINGS.queueBatch}, one at a time`, inBatch: `${fmtInt(qCalls)} calls`, rate: `${fmtInt(f.queueBatchCalls)} calls/s`, seconds: qCalls / f.queueBatchCalls },
    { what: 'other single-item commands (auth, rate limit, account), at the PutItem rate', inBatch: `${fmtInt(others)} calls`, rate: `${fmtInt(f.putPerSecond)} ops/s`, seconds: others / f.putPerSecond },
  ];
}

export function renderSendSections(results: SendResults): string[] {
  const steps = stepsOf(results);
  const sends = results.singles.length;
  const first = results.singles[0];
  const lines: string[] = [];
  const queueNames = consumerQueues().filter((q) => results.singles.some((s) => s.queues[q]));
  const sequences = (s: SendResults['singles'][number]): string[] => [sequenceOf(s.api), ...queueNames.map((q) => sequenceOf(s.queues[q]))];
  const commandsIdentical = first !== undefined && results.singles.every((s) => sequences(s).join('|') === sequences(first).join('|'));
  const gated = queueNames.join(', ');

  // ---- requests per send -------------------------------------------------------------------
  lines.push(
    '## AWS requests per send',
    '',
    `Method: a fresh account's live admin key sends one email with POST /v1/send on the same in-process local runtime, ${sends} times. ` +
      'Every benchmark account gets a sending domain that the benchmark marks verified in the store (standing in for the DNS check), so it is out of sandbox mode and may mail anyone; items carry metadata.from_email at that domain. ' +
      "Every AWS SDK command is counted by middleware on the runtime's clients: the store's DynamoDB document client (`container.store.doc`), the queue adapter's SQS client and the mailer's SES client (reached through their private fields), and the queue pollers' own SQS client (not reachable from the container; caught by hooking `SQSClient.prototype.send`). " +
      `The steps run one at a time: the pollers of every consumed queue (${gated}) are held at a gate while the API answers; then each queue in turn is let through until every message the send put on it has been handled and deleted (the worker sends through the SES emulator, and the local SES simulator enqueues the Delivery notification that SES → SNS would in AWS). ` +
      `Left out of the counts: the local scheduler's ticks (commands: ${results.singles.reduce((n, s) => n + s.excluded.scheduler, 0)}) and idle pollers' empty ReceiveMessage calls (${results.singles.reduce((n, s) => n + s.excluded.idleReceives, 0)}). ` +
      'A message put on a consumed queue other than the send queue is booked to the step that consumes it: the Delivery notification to the events ingest (SNS sends it in AWS, not the worker), the events published for webhooks to the webhooks fan-out. ' +
      `Every message reached status \`${[...new Set(results.singles.map((s) => s.finalStatus))].join('`, `')}\`; the command sequence was ${commandsIdentical ? `identical in all ${sends} sends` : 'not the same in every send (averages below)'}.`,
    '',
    'Read it as: what one email costs in AWS requests, step by step. DynamoDB units follow the item sizes (writes per started KB, consistent reads per started 4 KB, a read that finds nothing as 1 unit, each GSI entry written as a write of the whole item since the indexes project ALL).',
    '',
    '| Step | AWS requests per send | DynamoDB commands | WRU table + GSI | RRU | SQS requests | SES | Local ms (median) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|',
  );
  for (const s of steps) {
    const u = unitsOfAll(s.records);
    const count = (service: string): number => s.records.filter((r) => r.service === service).length;
    lines.push(
      `| ${s.name}: ${s.what} | ${perSend(s.records.length, sends)} | ${perSend(count('DynamoDB'), sends)} | ${perSend(u.wru, sends)} + ${perSend(u.gsiWru, sends)} | ${perSend(u.rru, sends)} | ${perSend(u.sqsRequests, sends)} | ${perSend(count('SES'), sends)} | ${fmt(median(s.localMs), 1)} |`,
    );
  }
  const all = steps.flatMap((s) => s.records);
  const ua = unitsOfAll(all);
  lines.push(`| **end to end** | **${perSend(all.length, sends)}** | ${perSend(all.filter((r) => r.service === 'DynamoDB').length, sends)} | ${perSend(ua.wru, sends)} + ${perSend(ua.gsiWru, sends)} | ${perSend(ua.rru, sends)} | ${perSend(ua.sqsRequests, sends)} | ${perSend(all.filter((r) => r.service === 'SES').length, sends)} | |`);
  const retried = all.filter((r) => r.attempts > 1).length;
  lines.push('', 'In order, for the first send, as each step made them (item kinds from their keys: `ACCT/KEY` an API key, `RATE/SLOT` a rate-limit slot, `IDEM` an idempotency claim, `MSG` a message, `MSG/EVT` a timeline event, …):', '');
  if (first) {
    lines.push(`- API: ${sequenceOf(first.api)}`);
    for (const q of queueNames) lines.push(`- ${consumerOf(q).name}: ${sequenceOf(first.queues[q])}`);
  }
  lines.push('', `HTTP attempts below the SDK retry layer: ${retried === 0 ? 'one per command (no retries)' : `${retried} commands were retried`}.`);

  // ---- cost ---------------------------------------------------------------------------------
  const cost = costTable(results, steps);
  const stats = Object.entries(results.pollers.queues);
  const consumerSteps = steps.filter((s) => s.queue);
  lines.push(
    '',
    '## Cost per million emails at list prices',
    '',
    'AWS us-east-1 list prices, pay per request, 2025, free tiers ignored (constants in bench/pricing.ts): ' +
      `DynamoDB on-demand $${PRICES.dynamodbWruPerMillion} per million WRU and $${PRICES.dynamodbRruPerMillion} per million RRU; SQS $${PRICES.sqsRequestsPerMillion.toFixed(2)} per million requests (64 KB chunks); ` +
      `Lambda arm64 $${PRICES.lambdaInvocationsPerMillion.toFixed(2)} per million invocations + $${PRICES.lambdaArmGbSecond} per GB-second; API Gateway HTTP API $${PRICES.httpApiRequestsPerMillion.toFixed(2)} per million requests (512 KB chunks); ` +
      `SNS publish $${PRICES.snsPublishPerMillion.toFixed(2)} per million, SNS → SQS delivery free (the SQS request it makes is charged as an SQS request here, to be safe); SES $0.10 per 1,000 emails = $${PRICES.sesPerMillionEmails} per million.`,
    '',
    `Lambda durations are assumptions, not measurements (dynalite and the emulators on this machine say nothing about regional latencies); memory is the manifest's: send ${ASSUMED_LAMBDA_MS.apiSingleSend} ms per single send and ${fmtInt(ASSUMED_LAMBDA_MS.apiBatchOf1000)} ms per 1,000-item batch; per message ${consumerSteps.map((s) => `${s.fn} ${assumedMsPerMessage(s.queue as string)} ms`).join(', ')}. ` +
      `For scale, this run took locally (median): ${steps.map((s) => `${fmt(median(s.localMs), 0)} ms for the ${s.name} step`).join(', ')}, ${fmtInt(median(results.batches.map((b) => b.wallMs)))} ms per 1,000-item batch.`,
    '',
    `Columns: a **single send** is POST /v1/send alone at low traffic: every message a consumer gets is taken by a receive, an invocation and a delete of its own. **In a batch** is one of 1,000 items of POST /v1/send/batch: the API's requests are the counted batch's divided by ${fmtInt(results.counted.run.ok)} accepted items; the consumers' receives, deletes and invocations follow the batch sizes the local pollers reached while the batches drained (${stats.map(([q, st]) => `${q} ${fmt(batchSize(st), 1)} messages per receive`).join(', ')}); the consumers' DynamoDB work per message is the single send's.`,
    '',
    "Read it as: our AWS bill per million emails, besides SES's own $100, line by line; units are per email.",
    '',
    '| Step | Resource | Unit | Single send: units per email | $ per million emails | In a batch: units per email | $ per million emails |',
    '|---|---|---|---:|---:|---:|---:|',
  );
  for (const { line, batch } of cost.lines) {
    lines.push(`| ${line.step} | ${line.resource} | ${line.unit} | ${units(line.units)} | ${dollars(line.perMillion)} | ${units(batch.units)} | ${dollars(batch.perMillion)} |`);
  }
  const byStep = (step: string, k: 'line' | 'batch'): number => cost.lines.filter((l) => l.line.step === step).reduce((n, l) => n + l[k].perMillion, 0);
  for (const step of steps) {
    lines.push(`| ${step.name} | *subtotal* | | | ${dollars(byStep(step.name, 'line'))} | | ${dollars(byStep(step.name, 'batch'))} |`);
  }
  const dynamoOf = (table: CostTable, k: 'line' | 'batch'): number => table.lines.filter((l) => l.line.resource.startsWith('DynamoDB')).reduce((n, l) => n + l[k].perMillion, 0);
  const html = costTable(results, steps, HTML_BODY_BYTES);
  const isMessage = (item: unknown): boolean => itemKind(item as { pk?: unknown; sk?: unknown }) === 'MSG';
  const isMessageWrite = (r: CommandRecord): boolean =>
    (r.command === 'UpdateItem' && isMessage(r.input.Key)) || (r.command === 'PutItem' && isMessage(r.input.Item)) || (r.command === 'BatchWriteItem' && describe(r).label.includes('MSG'));
  const messageWrites = all.filter(isMessageWrite).length;
  const messageReads = all.filter((r) => r.command === 'GetItem' && isMessage(r.input.Key)).length;
  lines.push(
    `| **all** | **our overhead (everything but SES)** | | | **${dollars(cost.totals.single)}** | | **${dollars(cost.totals.batch)}** |`,
    `| | of which DynamoDB | | | ${dollars(dynamoOf(cost, 'line'))} | | ${dollars(dynamoOf(cost, 'batch'))} |`,
    `| SES | SES's own price | emails | 1 | ${dollars(PRICES.sesPerMillionEmails)} | 1 | ${dollars(PRICES.sesPerMillionEmails)} |`,
    '',
    `**Overhead per million emails: ${dollars(cost.totals.single)} for single sends (${fmt((100 * cost.totals.single) / PRICES.sesPerMillionEmails, 1)}% on top of SES's $100), ${dollars(cost.totals.batch)} inside 1,000-item batches (${fmt((100 * cost.totals.batch) / PRICES.sesPerMillionEmails, 1)}%).** ` +
      "Not included: CloudWatch Logs ingestion, data transfer, the idle pollers (Lambda's SQS event source long-polls each queue whether or not mail flows: a fixed monthly cost, not a per-email one), and SES extras (dedicated IPs, attachments by the GB).",
    '',
    `What if the mail were real HTML: the benchmark's messages carry a few dozen bytes of text. With a ${HTML_BODY_BYTES / 1024} KB body_html in every message item and the same commands, the overhead would be **${dollars(html.totals.single)} per million single sends and ${dollars(html.totals.batch)} inside batches**, DynamoDB ${dollars(dynamoOf(html, 'line'))} and ${dollars(dynamoOf(html, 'batch'))} of it: ` +
      `the message item is written ${perSend(messageWrites, sends)} times per email (${[...new Set(all.filter(isMessageWrite).map((r) => describe(r).label))].join(', ')}) and each write also rewrites its by-filter index entry (projection ALL), each by the started KB; it is read ${perSend(messageReads, sends)} times, by the started 4 KB.`,
    '',
    `Queue consumers while the batches drained (${fmt(results.pollers.seconds, 1)} s): ` +
      stats
        .map(
          ([q, st]) =>
            `${q} ${fmtInt(st.messages)} messages in ${fmtInt(st.receives - st.emptyReceives)} non-empty receives (${fmt(batchSize(st), 1)} per receive; ${fmt(receivesPerMessage(st), 3)} ReceiveMessage and ${fmt(deletesPerMessage(st), 3)} DeleteMessageBatch per message; ${fmtInt(st.emptyReceives)} empty receives left out)`,
        )
        .join('; ') +
      `. In AWS each queue's event source takes up to its manifest batch size per invocation (${stats.map(([q]) => `${q} ${queues.find((d) => d.name === q)?.batchSize ?? '?'}`).join(', ')}), and a batching window (ses-events: ${queues.find((d) => d.name === 'ses-events')?.maxBatchingWindowSeconds ?? 0} s) waits to fill it; the local pollers never wait, so a queue that keeps up with its producer shows small batches here.`,
  );

  // ---- batch against the floor ------------------------------------------------------------------
  const counted = results.counted;
  const claimC = results.claimConcurrency.value;
  const liveParts = floorParts(counted.records, floorFigures(results.floors), claimC);
  const quietParts = floorParts(counted.records, floorFigures(counted.floors), claimC);
  /** Each live batch against the two floor rounds around it. */
  const perBatch = results.batches.map((b, i) => {
    const around = [results.floors[i], results.floors[i + 1]].filter((f): f is FloorRound => f !== undefined);
    const floorS = floorSeconds(floorParts(counted.records, floorFigures(around), claimC));
    return { b, around, floorS, ratio: b.wallMs / 1000 / floorS };
  });
  const cr = counted.run;
  const quietS = floorSeconds(quietParts);
  const walls = results.batches.map((b) => b.wallMs / 1000);
  const okAll = [...results.batches, cr].every((b) => b.ok === SEND_SETTINGS.batchItems && b.status === 200);
  const failedText = (b: { failed: Record<string, number> }): string => Object.entries(b.failed).map(([k, v]) => `${k}×${v}`).join(', ') || '0';
  const sizes = (pred: (r: CommandRecord) => boolean): string => {
    const list = counted.records.filter(pred).flatMap((r) => unitsOf(r).writtenSizes);
    return list.length ? `${fmtInt(list.reduce((a, b) => a + b, 0) / list.length)} B` : 'n/a';
  };
  const errors = floorFigures([...results.floors, ...counted.floors]).errors;
  const seg = SEND_SETTINGS.floorSegmentMs;
  lines.push(
    '',
    '## 1,000-item batch against the store floor',
    '',
    `Method: ${results.batches.length} times, a fresh account's live admin key posts ${fmtInt(SEND_SETTINGS.batchItems)} distinct email items (user0@example.com … user999@example.com, each with its own idempotency key) to POST /v1/send/batch on the same local runtime; wall time is the client's, request sent to response read (one request per account, so the limit of 10 requests/s never applies). ` +
      "The queue pollers run meanwhile: each batch's 1,000 jobs start going through the worker to the SES emulator and back through the events ingest while later batches are posted. That is realistic load and it slows the batches; \"sent meanwhile\" shows how much of it fell inside each request. " +
      `Before the first batch and after each one the floor is measured in the same conditions, through store and queue clients of the benchmark's own against the same dynalite and SQS emulator (after ${SEND_SETTINGS.floorWarmupMs} ms warm-up each): ${seg.put / 1000} s of conditional PutItem of fresh ${fmtInt(results.floorItemBytes)}-byte items (the size of the send path's own) at the send path's claim concurrency (${claimC}, CLAIM_CONCURRENCY in shared/messages/send.ts${results.claimConcurrency.fromSource ? ', read from the source' : ' — NOT found in the source; assumed'}), ` +
      `${seg.batchWrite / 1000} s of BatchWriteItem of ${SEND_SETTINGS.batchWriteItems} such items, ${seg.batchGet / 1000} s of BatchGetItem of ${SEND_SETTINGS.batchGetKeys} missing keys and ${seg.queueBatch / 1000} s of SQS SendMessageBatch of ${SEND_SETTINGS.queueBatch}, each one call at a time as the send path makes them. ` +
      'Each batch is compared with the floor rounds on both sides of it. A fourth batch, "counted", runs with every queue poller held (after each finished the batch in hand), between two floor rounds in the same quiet: every AWS command in it is the API\'s.',
    '',
    'Read it as: "floor s" is the time the batch\'s own store and queue calls would take at the rates the store and queue sustained around it, one part after the other as the send path runs them; "batch ÷ floor" near 1 means the API costs little beyond its store and queue calls, and what lies above is validation, hashing, marshalling, HTTP and JSON on the shared thread (and, in the live rows, the background sending). The floor rates swing with the machine\'s other load, so read the ratios of several rows, not one.',
    '',
    '| Batch | Wall s | Accepted | Not accepted | Sent meanwhile | Ingested meanwhile | Floor PutItem items/s | Floor BatchWriteItem items/s | Floor s | Batch ÷ floor |',
    '|---|---:|---:|---|---:|---:|---:|---:|---:|---:|',
  );
  for (const [i, x] of perBatch.entries()) {
    lines.push(
      `| ${i + 1} | ${fmt(x.b.wallMs / 1000, 2)} | ${fmtInt(x.b.ok)} | ${failedText(x.b)} | ${fmtInt(x.b.sentMeanwhile)} | ${fmtInt(x.b.ingestedMeanwhile)} | ${fmtInt(rate(...x.around.map((f) => f.put)))} | ${fmtInt(rate(...x.around.map((f) => f.batchWrite)) * SEND_SETTINGS.batchWriteItems)} | ${fmt(x.floorS, 2)} | ${fmt(x.ratio, 2)}× |`,
    );
  }
  lines.push(
    `| counted (pollers held) | ${fmt(cr.wallMs / 1000, 2)} | ${fmtInt(cr.ok)} | ${failedText(cr)} | ${fmtInt(cr.sentMeanwhile)} | ${fmtInt(cr.ingestedMeanwhile)} | ${fmtInt(rate(...counted.floors.map((f) => f.put)))} | ${fmtInt(rate(...counted.floors.map((f) => f.batchWrite)) * SEND_SETTINGS.batchWriteItems)} | ${fmt(quietS, 2)} | ${fmt(cr.wallMs / 1000 / quietS, 2)}× |`,
    '',
    `**Wall time for ${fmtInt(SEND_SETTINGS.batchItems)} items with background sending: min ${fmt(Math.min(...walls), 2)} s, median ${fmt(median(walls), 2)} s** (${fmtInt(SEND_SETTINGS.batchItems / median(walls))} items/s), ${fmt(median(perBatch.map((x) => x.ratio)), 2)}× the floor (median of the batches); ` +
      `**without it (counted) ${fmt(cr.wallMs / 1000, 2)} s, ${fmt(cr.wallMs / 1000 / quietS, 2)}× the floor.** ${okAll ? 'Every item of every batch was accepted.' : '**Not every item was accepted** (see the table).'} Floor errors: ${errors}.`,
    '',
    `The counted batch made these ${fmtInt(counted.records.length)} AWS commands (background commands left out: ${counted.excluded}); read it as the batch's whole conversation with AWS, one line per kind of call:`,
    '',
    '| Command | Calls | Items or keys |',
    '|---|---:|---:|',
    ...group(counted.records)
      .sort((a, b) => b.calls - a.calls)
      .map((x) => `| ${x.label} | ${fmtInt(x.calls)} | ${fmtInt(x.items)} |`),
    '',
    `Average written item sizes: idempotency claims ${sizes((r) => r.command === 'PutItem' && describe(r).label.startsWith('PutItem IDEM'))}, batch-written items ${sizes((r) => r.command === 'BatchWriteItem')} (the floor's items: ${fmtInt(results.floorItemBytes)} B, the mean of the claims and messages the single sends wrote).`,
    '',
    'The floor part by part; read it as where the store and queue time of one batch goes:',
    '',
    '| Part | In the batch | Floor rate, with background sending (all live rounds) | Floor s | Floor rate, pollers held | Floor s |',
    '|---|---:|---:|---:|---:|---:|',
    ...liveParts.map((p, i) => `| ${p.what} | ${p.inBatch} | ${p.rate} | ${fmt(p.seconds, 2)} | ${quietParts[i]!.rate} | ${fmt(quietParts[i]!.seconds, 2)} |`),
    `| **sum** | | | **${fmt(floorSeconds(liveParts), 2)}** | | **${fmt(quietS, 2)}** |`,
  );
  return lines;
}
