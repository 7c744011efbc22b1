// The sending benchmarks, run inside the local runtime bench/run.ts starts:
// - one live send end to end, its steps run one at a time (queue pollers held at a gate between
//   them) so every AWS command is counted against the step that made it: API, send worker,
//   events ingest of the Delivery notification the local SES simulator enqueues, and any other
//   queue the send reaches (the webhooks fan-out of its events);
// - 1,000-item batches on POST /v1/send/batch, timed with the pollers sending in the background,
//   each between two measurements of the store's raw write rate (the floor) in the same conditions;
// - one more 1,000-item batch with the pollers held, whose commands are all the API's and counted.
import { readFileSync } from 'node:fs';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { CreateQueueCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { functions } from '../functions/manifest';
import { createAccount } from '../shared/accounts/service';
import { keys } from '../shared/db/keys';
import { createDomain } from '../shared/domains/service';
import { Store } from '../shared/db/store';
import type { MessageItem } from '../shared/messages/model';
import { LOCAL_TABLE, type LocalRuntime } from '../shared/runtime/local/runtime';
import { AwsTap, backgroundKind, messagesOf, type CommandRecord } from './aws-tap';
import { itemSize, unitsOf } from './capacity';
import { runClosedLoop, type LoopResult } from './closed-loop';

/** The send path's claim concurrency, read from its source: CLAIM_CONCURRENCY is not exported. */
function claimConcurrency(projectRoot: string): { value: number; fromSource: boolean } {
  try {
    const match = /const CLAIM_CONCURRENCY = (\d+)/.exec(readFileSync(`${projectRoot}shared/messages/send.ts`, 'utf8'));
    if (match) return { value: Number(match[1]), fromSource: true };
  } catch {
    /* fall through */
  }
  return { value: 16, fromSource: false };
}

export const SEND_SETTINGS = {
  singleSends: 3,
  batchItems: 1000,
  batchRepeats: 3,
  /** Per floor segment: warm-up, then the measured window (the claims' PutItem rate matters most). */
  floorWarmupMs: 150,
  floorSegmentMs: { put: 1_000, batchWrite: 800, batchGet: 500, queueBatch: 500 },
  /** Floor item size when the single sends wrote nothing to size them by. */
  floorItemBytes: 1024,
  /** The send path writes 25 items per BatchWriteItem, reads 100 keys per BatchGetItem and sends 10 jobs per SendMessageBatch, one call at a time. */
  batchWriteItems: 25,
  batchGetKeys: 100,
  queueBatch: 10,
  stepTimeoutMs: 20_000,
  batchTimeoutMs: 120_000,
} as const;

export interface Step {
  /** The step's commands, background (scheduler ticks, empty receives) left out. */
  records: CommandRecord[];
  /** First command start to last command end (API: the client-side request time). */
  ms: number;
}

export interface SingleSend {
  status: number;
  messageId: string;
  /** Status of the message after the events ingest. */
  finalStatus: string;
  api: Step;
  /** One step per queue the send reached, by queue name (send, ses-events, webhooks, …), in that order. */
  queues: Record<string, Step>;
  excluded: { scheduler: number; idleReceives: number };
}

export interface FloorRound {
  put: LoopResult;
  batchWrite: LoopResult;
  batchGet: LoopResult;
  queueBatch: LoopResult;
}

export interface BatchRun {
  wallMs: number;
  status: number;
  ok: number;
  failed: Record<string, number>;
  bodyBytes: number;
  /** Emails the send worker handed to the SES emulator while this batch request ran. */
  sentMeanwhile: number;
  /** Events ingested meanwhile (DeleteMessageBatch entries on ses-events). */
  ingestedMeanwhile: number;
}

export interface QueueStats {
  receives: number;
  emptyReceives: number;
  messages: number;
  deletes: number;
  deletedEntries: number;
}

export interface SendResults {
  claimConcurrency: { value: number; fromSource: boolean };
  singles: SingleSend[];
  /** Floor rounds around the live batches: batch i lies between rounds i and i + 1. */
  floors: FloorRound[];
  floorItemBytes: number;
  batches: BatchRun[];
  /** The batch whose pollers were held: every command in it is the API's. Floor rounds before and after it. */
  counted: { run: BatchRun; records: CommandRecord[]; excluded: number; floors: FloorRound[] };
  /** Each polled queue over the live batch phase (from the first floor round to the counted batch). */
  pollers: { seconds: number; queues: Record<string, QueueStats> };
}

const log = (line: string): void => void process.stderr.write(`${line}\n`);

async function postJson(url: string, token: string, body: unknown, timeoutMs: number): Promise<{ status: number; json: unknown; ms: number; bytes: number }> {
  const text = JSON.stringify(body);
  const t0 = performance.now();
  const res = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: text,
    signal: AbortSignal.timeout(timeoutMs),
  });
  const answer = await res.text();
  const ms = performance.now() - t0;
  let json: unknown = answer;
  try {
    json = JSON.parse(answer);
  } catch {
    /* keep the text */
  }
  return { status: res.status, json, ms, bytes: Buffer.byteLength(text) };
}

/** An account that may send live mail to anyone: its key and the address it sends from. */
interface Sender {
  key: string;
  from: string;
}

/**
 * A fresh account with a verified sending domain: without one an account is in sandbox mode and
 * may mail only its own address and verified test recipients. The domain is registered through
 * the domains service and then marked verified in the store, standing in for the DNS check
 * (which is not what this benchmark measures).
 */
async function newSender(rt: LocalRuntime, name: string, domain: string): Promise<Sender> {
  const account = await createAccount(rt.container, { name });
  await createDomain(rt.container, account.account_id, domain);
  await rt.container.store.update(keys.domain(account.account_id, domain), {
    expression: 'SET dkim_status = :v, spf_status = :v, dmarc_status = :v',
    condition: 'attribute_exists(pk)',
    values: { ':v': 'verified' },
  });
  return { key: account.admin_key, from: `bench@${domain}` };
}

const emailItem = (sender: Sender, tag: string, i: number, to = `user${i}@example.com`): Record<string, unknown> => ({
  channel: 'email',
  idempotency_key: `${tag}-${i}`,
  destination: { email: to },
  payload: { subject: `Benchmark message ${i}`, body_text: `Hello user ${i}, this is message ${i} of a benchmark batch.` },
  metadata: { from_email: sender.from },
});

function foreground(records: CommandRecord[]): { records: CommandRecord[]; scheduler: number; idleReceives: number } {
  const out = { records: [] as CommandRecord[], scheduler: 0, idleReceives: 0 };
  for (const r of records) {
    const kind = backgroundKind(r);
    if (kind === 'scheduler') out.scheduler++;
    else if (kind === 'idle-receive') out.idleReceives++;
    else out.records.push(r);
  }
  return out;
}

const span = (records: CommandRecord[]): number =>
  records.length ? Math.max(...records.map((r) => r.endMs)) - Math.min(...records.map((r) => r.startMs)) : Number.NaN;

/** The queues the local runtime polls, in the order one send reaches them. */
export function consumerQueues(): string[] {
  const order = ['send', 'ses-events', 'webhooks'];
  const polled = functions.flatMap((f) => (f.queue ? [f.queue as string] : []));
  return [...order.filter((q) => polled.includes(q)), ...polled.filter((q) => !order.includes(q))];
}

/** Lets held queue pollers through one queue at a time, in order, until nothing the send caused is left on any. */
async function runQueueSteps(tap: AwsTap, queues: string[]): Promise<{ steps: Record<string, CommandRecord[]>; scheduler: number; idleReceives: number }> {
  const out = { steps: {} as Record<string, CommandRecord[]>, scheduler: 0, idleReceives: 0 };
  for (let pass = 0; pass < 3 && queues.some((q) => tap.pending(q) > 0); pass++) {
    for (const queue of queues) {
      if (tap.pending(queue) <= 0) continue;
      const collector = tap.collect();
      try {
        await tap.drain(queue, SEND_SETTINGS.stepTimeoutMs);
      } finally {
        const fg = foreground(collector.stop());
        out.steps[queue] = [...(out.steps[queue] ?? []), ...fg.records];
        out.scheduler += fg.scheduler;
        out.idleReceives += fg.idleReceives;
      }
    }
  }
  const left = queues.filter((q) => tap.pending(q) > 0);
  if (left.length) throw new Error(`messages left on ${left.join(', ')} after three passes`);
  return out;
}

async function traceSingleSends(rt: LocalRuntime, tap: AwsTap, sender: Sender, runTag: string): Promise<SingleSend[]> {
  const out: SingleSend[] = [];
  const queues = consumerQueues();
  for (const q of queues) await tap.close(q);
  try {
    for (let i = 0; i < SEND_SETTINGS.singleSends; i++) {
      const apiCollector = tap.collect();
      const res = await postJson(`${rt.url}/v1/send`, sender.key, emailItem(sender, `${runTag}-single`, i, `single${i}@example.com`), SEND_SETTINGS.stepTimeoutMs);
      const api = foreground(apiCollector.stop());
      const messageId = (res.json as { id?: string })?.id;
      if (res.status !== 201 || !messageId) throw new Error(`POST /v1/send answered ${res.status} ${JSON.stringify(res.json).slice(0, 300)}`);
      const consumed = await runQueueSteps(tap, queues);
      const message = await rt.container.store.get<MessageItem>(keys.message(messageId));
      out.push({
        status: res.status,
        messageId,
        finalStatus: message?.status ?? 'missing',
        api: { records: api.records, ms: res.ms },
        queues: Object.fromEntries(Object.entries(consumed.steps).map(([q, records]) => [q, { records, ms: span(records) }])),
        excluded: { scheduler: api.scheduler + consumed.scheduler, idleReceives: api.idleReceives + consumed.idleReceives },
      });
    }
  } finally {
    for (const q of queues) tap.open(q);
  }
  return out;
}

/** A fresh item of about `bytes` bytes as DynamoDB counts them. */
function floorItem(runTag: string, i: number, bytes: number): Record<string, unknown> & { pk: string; sk: string } {
  const base = { pk: `BENCHFLOOR#${runTag}#${i}`, sk: 'FLOOR', entity: 'bench_floor', pad: '' };
  base.pad = 'x'.repeat(Math.max(0, bytes - itemSize(base)));
  return base;
}

/** Mean size of the items the API wrote for the single sends (claims, messages): the floor writes items like them. */
function sendItemBytes(singles: SingleSend[]): number {
  const isClaimOrMessage = (r: CommandRecord): boolean =>
    r.command === 'BatchWriteItem' || (r.command === 'PutItem' && String((r.input.Item as { pk?: unknown } | undefined)?.pk).startsWith('IDEM#'));
  const sizes = singles.flatMap((s) => s.api.records.filter(isClaimOrMessage)).flatMap((r) => unitsOf(r).writtenSizes);
  return sizes.length ? Math.round(sizes.reduce((a, b) => a + b, 0) / sizes.length) : SEND_SETTINGS.floorItemBytes;
}

/** The store and queue at the send path's own concurrency, through clients of the benchmark's own. */
class Floor {
  private readonly dynamo: DynamoDBClient;
  private readonly store: Store;
  private readonly sqs: SQSClient;
  private queueUrl = '';
  private next = 0;

  constructor(
    rt: LocalRuntime,
    tap: AwsTap,
    private readonly runTag: string,
    private readonly putConcurrency: number,
    readonly itemBytes: number,
  ) {
    // Same client settings as the composition root (shared/runtime/container.ts).
    const common = { region: rt.container.config.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    this.dynamo = new DynamoDBClient({ ...common, endpoint: rt.dynamodbEndpoint, maxAttempts: 5 });
    this.store = new Store(this.dynamo, LOCAL_TABLE);
    this.sqs = new SQSClient({ ...common, endpoint: rt.sqsEndpoint });
    tap.exclude(this.sqs);
  }

  private item(): Record<string, unknown> & { pk: string; sk: string } {
    return floorItem(this.runTag, this.next++, this.itemBytes);
  }

  async round(): Promise<FloorRound> {
    if (!this.queueUrl) this.queueUrl = (await this.sqs.send(new CreateQueueCommand({ QueueName: `bench-floor-${this.runTag}` }))).QueueUrl as string;
    const ms = SEND_SETTINGS.floorSegmentMs;
    const loop = (concurrency: number, durationMs: number) => ({ concurrency, warmupMs: SEND_SETTINGS.floorWarmupMs, durationMs, maxOps: 1_000_000 });
    // Conditional puts of fresh keys, as the idempotency claims do.
    const put = await runClosedLoop(async () => {
      await this.store.create(this.item());
      return 'ok';
    }, loop(this.putConcurrency, ms.put));
    const batchWrite = await runClosedLoop(async () => {
      await this.store.batchPut(Array.from({ length: SEND_SETTINGS.batchWriteItems }, () => this.item()));
      return 'ok';
    }, loop(1, ms.batchWrite));
    // Keys that are not there, as in the suppression check of a clean list.
    const batchGet = await runClosedLoop(async (i) => {
      await this.store.batchGet(Array.from({ length: SEND_SETTINGS.batchGetKeys }, (_, k) => ({ pk: `BENCHMISSING#${this.runTag}#${i}#${k}`, sk: 'NONE' })));
      return 'ok';
    }, loop(1, ms.batchGet));
    const queueBatch = await runClosedLoop(async (i) => {
      const entries = Array.from({ length: SEND_SETTINGS.queueBatch }, (_, k) => ({ Id: String(k), MessageBody: JSON.stringify({ message_id: `msg_${i}_${k}_benchmarkfloor00000`, account_id: 'acct_benchmarkfloor0000000000' }) }));
      const res = await this.sqs.send(new SendMessageBatchCommand({ QueueUrl: this.queueUrl, Entries: entries }));
      return res.Failed?.length ? 'partial' : 'ok';
    }, loop(1, ms.queueBatch));
    return { put, batchWrite, batchGet, queueBatch };
  }

  close(): void {
    this.dynamo.destroy();
    this.sqs.destroy();
  }
}

async function postBatch(rt: LocalRuntime, tap: AwsTap, sender: Sender, tag: string): Promise<BatchRun> {
  const items = Array.from({ length: SEND_SETTINGS.batchItems }, (_, i) => emailItem(sender, tag, i));
  const meanwhile = tap.collect();
  const res = await postJson(`${rt.url}/v1/send/batch`, sender.key, items, SEND_SETTINGS.batchTimeoutMs);
  const during = meanwhile.stop();
  const results = Array.isArray(res.json) ? (res.json as Array<{ success?: boolean; error?: { code?: string } }>) : [];
  const failed: Record<string, number> = {};
  for (const r of results) if (!r?.success) failed[r?.error?.code ?? 'unknown'] = (failed[r?.error?.code ?? 'unknown'] ?? 0) + 1;
  if (res.status !== 200) failed[`HTTP ${res.status}`] = SEND_SETTINGS.batchItems;
  else if (results.length !== SEND_SETTINGS.batchItems) failed['missing results'] = SEND_SETTINGS.batchItems - results.length;
  return {
    wallMs: res.ms,
    status: res.status,
    ok: results.filter((r) => r?.success).length,
    failed,
    bodyBytes: res.bytes,
    sentMeanwhile: during.filter((r) => r.service === 'SES' && r.command === 'SendEmail' && !r.error).length,
    ingestedMeanwhile: during
      .filter((r) => r.command === 'DeleteMessageBatch' && r.queue === 'ses-events')
      .reduce((n, r) => n + ((r.input.Entries as unknown[] | undefined) ?? []).length, 0),
  };
}

function queueStats(records: CommandRecord[], queue: string): QueueStats {
  const receives = records.filter((r) => r.command === 'ReceiveMessage' && r.queue === queue && !r.error);
  const deletes = records.filter((r) => r.command === 'DeleteMessageBatch' && r.queue === queue && !r.error);
  return {
    receives: receives.length,
    emptyReceives: receives.filter((r) => messagesOf(r) === 0).length,
    messages: receives.reduce((n, r) => n + messagesOf(r), 0),
    deletes: deletes.length,
    deletedEntries: deletes.reduce((n, r) => n + ((r.input.Entries as unknown[] | undefined) ?? []).length, 0),
  };
}

export async function measureSends(rt: LocalRuntime, projectRoot: string): Promise<SendResults> {
  const runTag = Date.now().toString(36);
  const tap = new AwsTap();
  tap.attach(rt.container);
  const concurrency = claimConcurrency(projectRoot);
  let senders = 0;
  const newAccount = (name: string): Promise<Sender> => newSender(rt, name, `s${++senders}-${runTag}.bench.test`);
  let floor: Floor | undefined;
  try {
    log(`  one live send, step by step (${SEND_SETTINGS.singleSends} times)`);
    const singles = await traceSingleSends(rt, tap, await newAccount('bench single sends'), runTag);
    floor = new Floor(rt, tap, runTag, concurrency.value, sendItemBytes(singles));

    const live = tap.collect();
    const liveStart = performance.now();
    const floors: FloorRound[] = [];
    const batches: BatchRun[] = [];
    const logFloor = (f: FloorRound): void =>
      log(`  floor: PutItem ${rate(f.put).toFixed(0)}/s @${concurrency.value}, BatchWriteItem ${(rate(f.batchWrite) * SEND_SETTINGS.batchWriteItems).toFixed(0)} items/s`);
    floors.push(await floor.round());
    logFloor(floors[0] as FloorRound);
    for (let i = 0; i < SEND_SETTINGS.batchRepeats; i++) {
      const account = await newAccount(`bench batch ${i + 1}`);
      const run = await postBatch(rt, tap, account, `${runTag}-batch${i}`);
      batches.push(run);
      log(`  batch ${i + 1}/${SEND_SETTINGS.batchRepeats}: ${run.ok}/${SEND_SETTINGS.batchItems} accepted in ${(run.wallMs / 1000).toFixed(2)} s (worker sent ${run.sentMeanwhile} meanwhile)`);
      floors.push(await floor.round());
      logFloor(floors[i + 1] as FloorRound);
    }

    log('  one more batch with the queue pollers held, to count its commands');
    const queues = consumerQueues();
    for (const q of queues) await tap.close(q);
    const pollerWindow = live.stop();
    const seconds = (performance.now() - liveStart) / 1000;
    let counted: SendResults['counted'];
    try {
      const before = await floor.round();
      const account = await newAccount('bench counted batch');
      const collector = tap.collect();
      const run = await postBatch(rt, tap, account, `${runTag}-counted`);
      const fg = foreground(collector.stop());
      const after = await floor.round();
      counted = { run, records: fg.records, excluded: fg.scheduler + fg.idleReceives, floors: [before, after] };
      log(`  counted batch: ${run.ok}/${SEND_SETTINGS.batchItems} accepted in ${(run.wallMs / 1000).toFixed(2)} s`);
    } finally {
      for (const q of queues) tap.open(q);
    }
    return {
      claimConcurrency: concurrency,
      singles,
      floors,
      floorItemBytes: itemSize(floorItem(runTag, 0, floor.itemBytes)),
      batches,
      counted,
      pollers: { seconds, queues: Object.fromEntries(queues.map((q) => [q, queueStats(pollerWindow, q)])) },
    };
  } finally {
    floor?.close();
    tap.detach();
  }
}

/** Completions per second inside the measured window(s), pooled. */
export const rate = (...loops: LoopResult[]): number =>
  (loops.reduce((n, r) => n + r.latenciesMs.length, 0) * 1000) / loops.reduce((n, r) => n + r.windowMs, 0);
