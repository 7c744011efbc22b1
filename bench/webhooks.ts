// The webhook benchmark, on a local runtime of its own (fresh DATA_DIR, WEBHOOK_ALLOW_PRIVATE so
// subscriptions may point at a loopback receiver this file starts; nothing leaves 127.0.0.1):
// - burst: events published straight onto the webhooks queue with publishEvent (the webhook path
//   alone, no sending in front of it) for an account with N subscriptions; deliveries per second
//   from the first publish to the last request the receiver got, and the arrival − publish latency;
// - paced: a few events at a low steady rate, for the latency and batching of a quiet queue;
// - flaky: a receiver path that answers 500 to each delivery's first attempt, so one failed
//   attempt and its retry (through the queue's own delay, 23–38 s later) are counted;
// and every AWS command of all three, counted with bench/aws-tap.ts and priced with
// bench/pricing.ts. The phases overlap the retries' queue delay, so the retry costs little wall time.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { SQSClient } from '@aws-sdk/client-sqs';
import { functions } from '../functions/manifest';
import { queues } from '../shared/platform';
import { createAccount } from '../shared/accounts/service';
import { SqsQueue } from '../shared/adapters/aws/sqs-queue';
import { Store } from '../shared/db/store';
import { readLocalSettings } from '../shared/runtime/config';
import { LOCAL_TABLE, startLocalRuntime, type LocalRuntime } from '../shared/runtime/local/runtime';
import { MAX_ATTEMPTS, publishEvent } from '../shared/webhooks/deliver';
import { createSubscription } from '../shared/webhooks/subscriptions';
import { AwsTap, backgroundKind, messagesOf, type CommandRecord } from './aws-tap';
import { addUnits, noUnits, unitsOf, type Units } from './capacity';
import { gbSeconds, memoryMbOf, perMillion, PRICES } from './pricing';
import { fmt, fmtInt, median, summarize, type LatencySummary } from './stats';

export const WEBHOOK_SETTINGS = {
  /** Subscriptions of the burst and paced accounts, all to the receiver, all event types. */
  subscriptions: 5,
  /** Events published in the burst (half `sent`, half `delivered`, as a test-mode send makes). */
  burstEvents: 300,
  /** publishEvent calls in flight during the burst (several producers at once). */
  publishConcurrency: 8,
  /** The burst stops counting after this, done or not, and reports what arrived. */
  burstLimitMs: 60_000,
  pacedEvents: 20,
  pacedIntervalMs: 250,
  pacedLimitMs: 15_000,
  /** Events for the flaky account (one subscription): each delivery's first attempt gets a 500. */
  flakyEvents: 5,
  /** Waiting for the retries, beyond the longest queue delay the failed attempts chose. */
  retryGraceMs: 20_000,
  stepTimeoutMs: 15_000,
} as const;

/**
 * Lambda durations are assumed, not measured (dynalite and a loopback receiver say nothing about
 * DynamoDB or a customer's endpoint). The worker handles the messages of a batch concurrently
 * (Promise.all), so an invocation is billed for about its slowest message.
 */
export const ASSUMED_WEBHOOK_MS = {
  /** A fan-out job: a Query, two conditional PutItems per subscription one after the other, a SendMessageBatch. */
  fanOutBase: 15,
  fanOutPerSubscription: 10,
  /** An attempt job: two GetItems, a fresh TCP + TLS connection and the endpoint's answer (~120 ms), an UpdateItem. */
  attempt: 150,
  /** What publishEvent adds to the producer (send worker, events ingest): a Query and a SendMessage. */
  producer: 10,
} as const;

const log = (line: string): void => void process.stderr.write(`${line}\n`);

type Group = 'burst' | 'paced' | 'flaky';
type Role = 'producer' | 'fan-out' | 'attempt' | 'other';

interface Arrival {
  group: Group;
  eventId: string;
  /** performance.now() when the request line and headers arrived. */
  atMs: number;
  status: number;
}

/** A loopback receiver: 200 at once, except that /flaky answers 500 to an event's first request. */
class Receiver {
  readonly arrivals: Arrival[] = [];
  private readonly failedOnce = new Set<string>();
  private readonly server: Server;
  url = '';

  constructor() {
    this.server = createServer((req, res) => {
      const atMs = performance.now();
      const path = req.url ?? '/';
      const group: Group = path.startsWith('/burst') ? 'burst' : path.startsWith('/paced') ? 'paced' : 'flaky';
      const eventId = String(req.headers['service-event-id'] ?? '');
      let status = 200;
      if (group === 'flaky' && !this.failedOnce.has(eventId)) {
        this.failedOnce.add(eventId);
        status = 500;
      }
      this.arrivals.push({ group, eventId, atMs, status });
      req.resume();
      req.on('end', () => res.writeHead(status, { 'content-length': '0' }).end());
    });
  }

  async start(): Promise<void> {
    await new Promise<void>((ok, fail) => {
      this.server.once('error', fail);
      this.server.listen(0, '127.0.0.1', () => ok());
    });
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  count(group: Group, status?: number): number {
    return this.arrivals.filter((a) => a.group === group && (status === undefined || a.status === status)).length;
  }

  close(): Promise<void> {
    return new Promise((ok) => {
      this.server.closeAllConnections();
      this.server.close(() => ok());
    });
  }
}

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  return true;
}

/** A command's kind as the report names it: `PutItem DLVCLAIM`, `GetItem ACCT/WEBHOOK`, `SendMessage webhooks (delayed)`, … */
export function webhookLabel(r: CommandRecord): string {
  const i = r.input as Record<string, any>;
  const kindOf = (pk: unknown, sk: unknown): string => {
    const p = String(pk ?? '?').split('#')[0] as string;
    if (p === 'DELIVERIES') return 'DELIVERY';
    const s = String(sk ?? '');
    return s.includes('#') ? `${p}/${s.split('#')[0]}` : p;
  };
  const failed = r.error ? ` → ${r.error.replace(/Exception$/, '')}` : '';
  switch (r.command) {
    case 'GetItem':
    case 'UpdateItem':
    case 'DeleteItem':
      return `${r.command} ${kindOf(i.Key?.pk, i.Key?.sk)}${failed}`;
    case 'PutItem':
      return `PutItem ${kindOf(i.Item?.pk, i.Item?.sk)}${failed}`;
    case 'Query': {
      const [pk, sk] = Object.values(i.ExpressionAttributeValues ?? {}).map(String);
      return `Query ${i.IndexName ? `${i.IndexName} ` : ''}${kindOf(pk, sk ?? '')}`;
    }
    default:
      if (r.service === 'SQS') return `${r.command} ${r.queue ?? '?'}${r.command === 'SendMessage' && Number(i.DelaySeconds) > 0 ? ' (delayed)' : ''}${failed}`;
      return `${r.service} ${r.command}${failed}`;
  }
}

/** Which part of the webhook path makes a command (from deliver.ts: fanOut, attempt). */
const roleOfLabel = (label: string): Role => {
  if (/^(Query ACCT\/WEBHOOK|PutItem DLVCLAIM|GetItem DLVCLAIM|PutItem DELIVERY|SendMessageBatch webhooks)/.test(label)) return 'fan-out';
  if (/^(GetItem DELIVERY|GetItem ACCT\/WEBHOOK|UpdateItem DELIVERY|SendMessage webhooks \(delayed\))/.test(label)) return 'attempt';
  return 'other';
};

const roleOfBody = (body: string | undefined): Role => {
  try {
    const kind = (JSON.parse(body ?? '') as { kind?: string })?.kind;
    return kind === 'event' ? 'fan-out' : kind === 'attempt' ? 'attempt' : 'other';
  } catch {
    return 'other';
  }
};

/** One command, or the share of a batched receive/delete, booked to a group and a role. */
interface Share {
  group: Group | 'flaky-retry';
  role: Role;
  label: string;
  /** Fraction of the command (1, or messages of this group and role ÷ messages in the batch). */
  weight: number;
  record: CommandRecord;
  /** ReceiveMessage shares: the invocation's billed ms share, and messages. */
  billedMs?: number;
  messages?: number;
}

/** Per group and role: calls and billing units, weighted. */
interface Tally {
  /** By command label: calls (weighted) and their billing units. */
  calls: Map<string, { calls: number; wru: number; rru: number; sqs: number }>;
  units: Units;
  sqsRequests: number;
  /** SQS requests that put messages on a queue. */
  sends: number;
  receives: number;
  deletes: number;
  invocations: number;
  billedMs: number;
  messages: number;
}

const newTally = (): Tally => ({ calls: new Map(), units: noUnits(), sqsRequests: 0, sends: 0, receives: 0, deletes: 0, invocations: 0, billedMs: 0, messages: 0 });

export interface GroupFigures {
  events: number;
  subscriptions: number;
  expected: number;
  received: number;
  /** First publish to last first-attempt arrival. */
  wallMs: number;
  publishMs: number;
  latency: LatencySummary;
  /** Webhook-queue messages of this group per non-empty receive (the achieved batch size). */
  messagesPerReceive: number;
  /** Local receive → delete time of the batches that held this group's messages (median). */
  localBatchMs: number;
  timedOut: boolean;
}

export interface WebhookResults {
  settings: typeof WEBHOOK_SETTINGS;
  startupMs: number;
  totalMs: number;
  workerFn: string;
  workerMemoryMb: number;
  producerMemoryMb: number;
  producerFn: string;
  burst: GroupFigures;
  paced: GroupFigures;
  flaky: {
    events: number;
    failures: number;
    retries: number;
    delaysS: number[];
    /** Failed arrival → retry arrival, seconds. */
    gapsS: number[];
    settled: boolean;
  };
  /** tallies[group][role] */
  tallies: Record<string, Record<Role, Tally>>;
  excluded: { scheduler: number; idleReceives: number; unattributed: number; unattributedLabels: Record<string, number> };
  retried: number;
}

const fanOutMs = (subscriptions: number): number => ASSUMED_WEBHOOK_MS.fanOutBase + ASSUMED_WEBHOOK_MS.fanOutPerSubscription * subscriptions;

/**
 * Books every command to its group (by the account or subscription ids in it) and role. A
 * ReceiveMessage is one invocation of the worker; it and its DeleteMessageBatch are split over
 * their messages, and the invocation is billed its slowest message's assumed duration.
 */
function book(
  consumer: CommandRecord[],
  producer: CommandRecord[],
  tokens: Array<[string, Group]>,
  subscriptionsOf: Record<Group, number>,
): { shares: Share[]; excluded: WebhookResults['excluded']; batchMs: Record<Group, number[]> } {
  const groupOf = (text: string): Group | undefined => tokens.find(([t]) => text.includes(t))?.[1];
  const attemptOf = (body: string | undefined): number => {
    try {
      return Number((JSON.parse(body ?? '') as { attempt?: unknown })?.attempt ?? 0);
    } catch {
      return 0;
    }
  };
  const shares: Share[] = [];
  const excluded: WebhookResults['excluded'] = { scheduler: 0, idleReceives: 0, unattributed: 0, unattributedLabels: {} };
  const unattributed = (r: CommandRecord, weight: number): void => {
    excluded.unattributed += weight;
    const label = webhookLabel(r);
    excluded.unattributedLabels[label] = (excluded.unattributedLabels[label] ?? 0) + weight;
  };
  const byHandle = new Map<string, { group: Share['group']; role: Role; receive: CommandRecord }>();
  const batchMs: Record<Group, number[]> = { burst: [], paced: [], flaky: [] };
  const deleteOf = new Map<CommandRecord, CommandRecord>();

  const receives = consumer.filter((r) => r.command === 'ReceiveMessage' && r.queue === 'webhooks' && messagesOf(r) > 0);
  // A retry is an attempt job past the first: its receive and delete say so; the store commands
  // of the flaky account after the first retry was received belong to the retries (the failed
  // first attempts were settled 23 s or more before).
  let retryFrom = Number.POSITIVE_INFINITY;
  for (const r of receives) {
    for (const m of (r.output?.Messages as Array<{ Body?: string; ReceiptHandle?: string }>) ?? []) {
      const g = groupOf(m.Body ?? '');
      if (!g || !m.ReceiptHandle) continue;
      const retry = g === 'flaky' && attemptOf(m.Body) > 1;
      if (retry) retryFrom = Math.min(retryFrom, r.startMs);
      byHandle.set(m.ReceiptHandle, { group: retry ? 'flaky-retry' : g, role: roleOfBody(m.Body), receive: r });
    }
  }
  const refine = (g: Group, startMs: number): Share['group'] => (g === 'flaky' && startMs >= retryFrom ? 'flaky-retry' : g);

  for (const r of producer) {
    const g = groupOf(JSON.stringify(r.input));
    if (!g) unattributed(r, 1);
    else shares.push({ group: refine(g, r.startMs), role: 'producer', label: webhookLabel(r), weight: 1, record: r });
  }
  for (const r of consumer) {
    const kind = backgroundKind(r);
    if (kind === 'scheduler') {
      excluded.scheduler++;
      continue;
    }
    if (kind === 'idle-receive') {
      excluded.idleReceives++;
      continue;
    }
    const label = webhookLabel(r);
    if (r.command === 'ReceiveMessage' || r.command === 'DeleteMessageBatch') {
      const parts =
        r.command === 'ReceiveMessage'
          ? ((r.output?.Messages as Array<{ ReceiptHandle?: string }>) ?? []).map((m) => m.ReceiptHandle ?? '')
          : ((r.input.Entries as Array<{ ReceiptHandle?: string }>) ?? []).map((e) => e.ReceiptHandle ?? '');
      const known = parts.map((h) => byHandle.get(h));
      if (r.command === 'DeleteMessageBatch') for (const k of known) if (k && !deleteOf.has(k.receive)) deleteOf.set(k.receive, r);
      const subs = (g: Share['group']): number => subscriptionsOf[g === 'flaky-retry' ? 'flaky' : g];
      const billed = r.command === 'ReceiveMessage' ? Math.max(0, ...known.map((k) => (k?.role === 'fan-out' ? fanOutMs(subs(k.group)) : k?.role === 'attempt' ? ASSUMED_WEBHOOK_MS.attempt : 0))) : 0;
      for (const k of known) {
        if (!k) {
          unattributed(r, 1 / parts.length);
          continue;
        }
        shares.push({
          group: k.group,
          role: k.role,
          label,
          weight: 1 / parts.length,
          record: r,
          ...(r.command === 'ReceiveMessage' ? { billedMs: billed / parts.length, messages: 1 } : {}),
        });
      }
      continue;
    }
    const g = groupOf(JSON.stringify(r.input));
    if (!g) {
      unattributed(r, 1);
      continue;
    }
    shares.push({ group: refine(g, r.startMs), role: roleOfLabel(label), label, weight: 1, record: r });
  }
  for (const r of receives) {
    const del = deleteOf.get(r);
    const g = byHandle.get(((r.output?.Messages as Array<{ ReceiptHandle?: string }>) ?? [])[0]?.ReceiptHandle ?? '')?.group;
    if (del && g) batchMs[g === 'flaky-retry' ? 'flaky' : g].push(del.startMs - r.endMs);
  }
  return { shares, excluded, batchMs };
}

function tally(shares: Share[]): Record<string, Record<Role, Tally>> {
  const out: Record<string, Record<Role, Tally>> = {};
  for (const s of shares) {
    const byRole = (out[s.group] ??= { producer: newTally(), 'fan-out': newTally(), attempt: newTally(), other: newTally() });
    const t = byRole[s.role];
    const u = unitsOf(s.record);
    const c = t.calls.get(s.label) ?? { calls: 0, wru: 0, rru: 0, sqs: 0 };
    c.calls += s.weight;
    if (s.record.service === 'DynamoDB') {
      c.wru += u.wru + u.gsiWru;
      c.rru += u.rru;
    } else if (s.record.service === 'SQS') c.sqs += u.sqsRequests * s.weight;
    t.calls.set(s.label, c);
    if (s.record.service === 'DynamoDB') addUnits(t.units, u);
    else if (s.record.service === 'SQS') {
      t.sqsRequests += u.sqsRequests * s.weight;
      if (s.record.command.startsWith('SendMessage')) t.sends += u.sqsRequests * s.weight;
    }
    if (s.record.command === 'ReceiveMessage') {
      t.receives += s.weight;
      t.invocations += s.weight;
      t.billedMs += s.billedMs ?? 0;
      t.messages += s.messages ?? 0;
    }
    if (s.record.command === 'DeleteMessageBatch') t.deletes += s.weight;
  }
  return out;
}

export async function measureWebhooks(): Promise<WebhookResults> {
  const S = WEBHOOK_SETTINGS;
  const started = performance.now();
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-bench-webhooks-'));
  const receiver = new Receiver();
  const tap = new AwsTap();
  const producerTap = new AwsTap();
  let rt: LocalRuntime | undefined;
  let producerDynamo: DynamoDBClient | undefined;
  let producerSqs: SQSClient | undefined;
  try {
    await receiver.start();
    const settings = readLocalSettings({ HOST: '127.0.0.1', PORT: '0', SES_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'warn', WEBHOOK_ALLOW_PRIVATE: 'true' });
    rt = await startLocalRuntime(settings, functions);
    const startupMs = performance.now() - started;
    const c = rt.container;

    // The producer (publishEvent, as the send worker and the events ingest call it) on clients of
    // its own, counted apart from the webhook worker's.
    const common = { region: c.config.region, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } };
    producerDynamo = new DynamoDBClient({ ...common, endpoint: rt.dynamodbEndpoint, maxAttempts: 5 });
    producerSqs = new SQSClient({ ...common, endpoint: rt.sqsEndpoint });
    const producer = { store: new Store(producerDynamo, LOCAL_TABLE), queue: new SqsQueue(producerSqs, c.config.queueUrls) };
    tap.exclude(producerSqs);
    producerTap.tap(producer.store.doc as unknown as Parameters<AwsTap['tap']>[0], 'DynamoDB');
    producerTap.tap(producerSqs, 'SQS');
    tap.attach(c);

    const tokens: Array<[string, Group]> = [];
    const subscriptionsOf: Record<Group, number> = { burst: S.subscriptions, paced: S.subscriptions, flaky: 1 };
    const accountOf = {} as Record<Group, string>;
    for (const group of ['burst', 'paced', 'flaky'] as const) {
      const account = await createAccount(c, { name: `bench webhooks ${group}` });
      accountOf[group] = account.account_id;
      tokens.push([account.account_id, group]);
      for (let i = 0; i < subscriptionsOf[group]; i++) {
        const sub = await createSubscription(c, account.account_id, { endpoint_url: `${receiver.url}/${group}/${i}` });
        tokens.push([sub.id, group]);
      }
    }

    const consumer = tap.collect();
    const produced = producerTap.collect();
    const publishedAt = new Map<string, number>();
    let n = 0;
    const publish = async (group: Group): Promise<void> => {
      const i = n++;
      const messageId = c.ids.next('msg');
      const type = i % 2 === 0 ? 'sent' : 'delivered';
      const now = new Date().toISOString();
      const eventId = c.ids.next('evt');
      publishedAt.set(eventId, performance.now());
      await publishEvent(producer, {
        event_id: eventId,
        event_type: type,
        message_id: messageId,
        account_id: accountOf[group],
        payload: type === 'sent' ? { provider_message_id: `0100019${String(i).padStart(6, '0')}-bench-ses-message-id-000000` } : { detail: 'simulated delivery (test mode)' },
        occurred_at: now,
        created_at: now,
      });
    };
    const sentOnQueue = (): number =>
      [...produced.records, ...consumer.records]
        .filter((r) => r.queue === 'webhooks' && !r.error && r.command.startsWith('SendMessage'))
        .reduce((k, r) => k + (r.command === 'SendMessage' ? 1 : ((r.input.Entries as unknown[]) ?? []).length - ((r.output?.Failed as unknown[]) ?? []).length), 0);
    const deletedFromQueue = (): number =>
      consumer.records.filter((r) => r.queue === 'webhooks' && r.command === 'DeleteMessageBatch' && !r.error).reduce((k, r) => k + ((r.input.Entries as unknown[]) ?? []).length, 0);
    const delayed = (): CommandRecord[] => consumer.records.filter((r) => r.command === 'SendMessage' && r.queue === 'webhooks' && Number(r.input.DelaySeconds) > 0 && !r.error);

    // ---- flaky: the failed first attempts, whose retries wait in the queue meanwhile ----
    log(`  flaky: ${S.flakyEvents} events to a subscription whose endpoint answers 500 once per event`);
    await Promise.all(Array.from({ length: S.flakyEvents }, () => publish('flaky')));
    if (!(await until(() => delayed().length >= S.flakyEvents, S.stepTimeoutMs))) log(`  flaky: only ${delayed().length}/${S.flakyEvents} retries queued`);
    const delaysS = delayed().map((r) => Number(r.input.DelaySeconds));
    const retriesDueAt = performance.now() + Math.max(0, ...delaysS) * 1000;

    // ---- burst ----
    const burstExpected = S.burstEvents * S.subscriptions;
    log(`  burst: ${S.burstEvents} events × ${S.subscriptions} subscriptions = ${burstExpected} deliveries (at most ${S.burstLimitMs / 1000} s)`);
    const burstStart = performance.now();
    let burstPublished = 0;
    await Promise.all(
      Array.from({ length: S.publishConcurrency }, async () => {
        while (burstPublished < S.burstEvents && performance.now() - burstStart < S.burstLimitMs) {
          burstPublished++;
          await publish('burst');
        }
      }),
    );
    const burstPublishMs = performance.now() - burstStart;
    const burstDone = await until(() => receiver.count('burst') >= burstExpected, Math.max(0, S.burstLimitMs - burstPublishMs));
    log(`  burst: ${receiver.count('burst')}/${burstExpected} deliveries in ${fmt((performance.now() - burstStart) / 1000, 1)} s`);

    // ---- paced ----
    const pacedExpected = S.pacedEvents * S.subscriptions;
    log(`  paced: ${S.pacedEvents} events, one every ${S.pacedIntervalMs} ms`);
    const pacedStart = performance.now();
    const pacedCalls: Array<Promise<void>> = [];
    for (let i = 0; i < S.pacedEvents; i++) {
      pacedCalls.push(publish('paced'));
      if (i < S.pacedEvents - 1) await new Promise((resolve) => setTimeout(resolve, S.pacedIntervalMs));
    }
    await Promise.all(pacedCalls);
    const pacedPublishMs = performance.now() - pacedStart;
    const pacedDone = await until(() => receiver.count('paced') >= pacedExpected, S.pacedLimitMs);

    // ---- the retries, and every message off the queue ----
    log(`  flaky: waiting for ${delaysS.length} retries (queue delays ${delaysS.join(', ')} s)`);
    const settled = await until(
      () => receiver.count('flaky', 200) >= S.flakyEvents && deletedFromQueue() >= sentOnQueue(),
      Math.max(S.stepTimeoutMs, retriesDueAt + S.retryGraceMs - performance.now()),
    );
    // The last UpdateItem/DeleteMessageBatch of the other groups lands just after their arrivals.
    await until(() => deletedFromQueue() >= sentOnQueue(), 5_000);
    const consumerRecords = consumer.stop();
    const producerRecords = produced.stop();

    const { shares, excluded, batchMs } = book(consumerRecords, producerRecords, tokens, subscriptionsOf);
    const tallies = tally(shares);

    const figures = (group: Group, events: number, expected: number, start: number, publishMs: number, timedOut: boolean): GroupFigures => {
      const firsts = new Map<string, number[]>();
      const arrivals = receiver.arrivals.filter((a) => a.group === group);
      const latencies = arrivals.map((a) => a.atMs - (publishedAt.get(a.eventId) ?? Number.NaN)).filter(Number.isFinite);
      for (const a of arrivals) firsts.set(a.eventId, [...(firsts.get(a.eventId) ?? []), a.atMs]);
      const last = arrivals.length ? Math.max(...arrivals.map((a) => a.atMs)) : Number.NaN;
      const t = tallies[group];
      const messages = t ? Object.values(t).reduce((k, x) => k + x.messages, 0) : 0;
      const receives = t ? Object.values(t).reduce((k, x) => k + x.receives, 0) : 0;
      return {
        events,
        subscriptions: subscriptionsOf[group],
        expected,
        received: arrivals.length,
        wallMs: last - start,
        publishMs,
        latency: summarize(latencies),
        messagesPerReceive: messages / Math.max(1e-9, receives),
        localBatchMs: median(batchMs[group]),
        timedOut,
      };
    };
    const flakyArrivals = receiver.arrivals.filter((a) => a.group === 'flaky');
    const gapsS = [...new Set(flakyArrivals.map((a) => a.eventId))].flatMap((id) => {
      const fail = flakyArrivals.find((a) => a.eventId === id && a.status !== 200);
      const ok = flakyArrivals.find((a) => a.eventId === id && a.status === 200);
      return fail && ok ? [(ok.atMs - fail.atMs) / 1000] : [];
    });
    const workerFn = functions.find((f) => f.queue === 'webhooks')?.name ?? 'webhook-worker';
    const producerFn = functions.find((f) => f.queue === 'ses-events')?.name ?? 'ses-events';
    return {
      settings: S,
      startupMs,
      totalMs: performance.now() - started,
      workerFn,
      workerMemoryMb: memoryMbOf(workerFn),
      producerFn,
      producerMemoryMb: memoryMbOf(producerFn),
      burst: figures('burst', burstPublished, burstPublished * S.subscriptions, burstStart, burstPublishMs, !burstDone),
      paced: figures('paced', S.pacedEvents, pacedExpected, pacedStart, pacedPublishMs, !pacedDone),
      flaky: { events: S.flakyEvents, failures: receiver.count('flaky', 500), retries: receiver.count('flaky', 200), delaysS, gapsS, settled },
      tallies,
      excluded,
      retried: [...consumerRecords, ...producerRecords].filter((r) => r.attempts > 1).length,
    };
  } finally {
    tap.detach();
    producerTap.detach();
    if (rt) await rt.close().catch(() => undefined);
    producerDynamo?.destroy();
    producerSqs?.destroy();
    await receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

// ---- report ---------------------------------------------------------------------------------------

const units = (x: number): string => (x === 0 ? '0' : x >= 0.1 ? fmt(x, 2).replace(/\.00$/, '') : x.toPrecision(2));
const dollars = (x: number): string => `$${x < 0.01 && x > 0 ? x.toFixed(4) : x.toFixed(2)}`;

interface CostRow {
  role: string;
  resource: string;
  unit: string;
  /** Units per delivery, by column. */
  units: number[];
  perMillion: number[];
}

const roleName: Record<Role, string> = {
  producer: 'producer (publishEvent)',
  'fan-out': 'fan-out job',
  attempt: 'attempt job',
  other: 'other',
};

/** Cost rows per delivery for a set of columns, each a group's tallies divided by its deliveries. */
function costRows(r: WebhookResults, columns: Array<{ tallies: Record<Role, Tally> | undefined; deliveries: number }>, roles: Role[]): CostRow[] {
  const rows: CostRow[] = [];
  const add = (role: Role, resource: string, unit: string, price: (x: number) => number, pick: (t: Tally) => number): void => {
    const u = columns.map((col) => (col.tallies ? pick(col.tallies[role]) / Math.max(1, col.deliveries) : 0));
    if (u.every((x) => x === 0)) return;
    rows.push({ role: roleName[role], resource, unit, units: u, perMillion: u.map(price) });
  };
  const mem = r.workerMemoryMb;
  for (const role of roles) {
    if (role === 'producer') {
      add(role, 'DynamoDB reads (Query of the subscriptions)', 'RRU', perMillion.rru, (t) => t.units.rru);
      add(role, 'SQS SendMessage (the fan-out job)', 'requests', perMillion.sqs, (t) => t.sqsRequests);
      add(role, `Lambda duration added to the producer (${r.producerFn}, ${r.producerMemoryMb} MB, ${ASSUMED_WEBHOOK_MS.producer} ms)`, 'GB-s', perMillion.gbSeconds, (t) =>
        gbSeconds(r.producerMemoryMb, ASSUMED_WEBHOOK_MS.producer) * (t.calls.get('SendMessage webhooks')?.calls ?? 0),
      );
      continue;
    }
    add(role, 'SQS ReceiveMessage + DeleteMessageBatch (share)', 'requests', perMillion.sqs, (t) => t.receives + t.deletes);
    add(role, role === 'fan-out' ? 'SQS SendMessageBatch (attempt jobs)' : role === 'attempt' ? 'SQS SendMessage (the delayed retry)' : 'SQS sends', 'requests', perMillion.sqs, (t) => t.sends);
    add(role, `Lambda invocations (${r.workerFn}, share)`, 'invocations', perMillion.invocations, (t) => t.invocations);
    add(role, `Lambda duration (${r.workerFn}, ${mem} MB)`, 'GB-s', perMillion.gbSeconds, (t) => gbSeconds(mem, t.billedMs));
    add(role, 'DynamoDB writes (table + GSI)', 'WRU', perMillion.wru, (t) => t.units.wru + t.units.gsiWru);
    add(role, 'DynamoDB reads', 'RRU', perMillion.rru, (t) => t.units.rru);
  }
  return rows;
}

const callList = (t: Tally | undefined, per: number, only: (label: string) => boolean = () => true, withUnits = false): string =>
  t
    ? [...t.calls.entries()]
        .filter(([label, v]) => v.calls > 0 && only(label))
        .map(([label, v]) => {
          const d = Math.max(1, per);
          const billed = [v.wru ? `${units(v.wru / d)} WRU` : '', v.rru ? `${units(v.rru / d)} RRU` : ''].filter(Boolean).join(' + ');
          return `${label} ×${units(v.calls / d)}${withUnits && billed ? ` (${billed})` : ''}`;
        })
        .join(', ') || '—'
    : '—';

export function renderWebhookSection(r: WebhookResults): string[] {
  const S = r.settings;
  const b = r.burst;
  const p = r.paced;
  const bt = r.tallies.burst;
  const pt = r.tallies.paced;
  const lines: string[] = [
    '## Webhooks',
    '',
    `Method: a local runtime of its own (started in ${fmt(r.startupMs / 1000, 1)} s; fresh DATA_DIR, LOG_LEVEL warn, WEBHOOK_ALLOW_PRIVATE=true so subscriptions may point at http://127.0.0.1) and a loopback HTTP receiver in the same process that answers 200 as soon as a request's body is read. ` +
      `Events are published straight onto the webhooks queue with \`publishEvent\` (shared/webhooks/deliver.ts), as the send worker and the events ingest do, so the figures are the webhook path alone with nothing sending in front of it; envelopes alternate \`sent\` and \`delivered\`, shaped as a test-mode send's. ` +
      `The producer runs on store and queue clients of its own so its commands are counted apart from the webhook worker's. ` +
      `**Burst**: ${fmtInt(b.events)} events for an account with ${S.subscriptions} subscriptions (every event type) published ${S.publishConcurrency} at a time, so ${fmtInt(b.expected)} deliveries; throughput runs from the first publish to the last request the receiver got, latency is receiver arrival − publish of the event, backlog included (limit ${S.burstLimitMs / 1000} s). ` +
      `**Paced**: ${S.pacedEvents} events to another such account, one every ${S.pacedIntervalMs} ms, for a quiet queue. ` +
      `**Flaky**: ${r.flaky.events} events to an account with one subscription whose endpoint answers 500 to each event's first request; the retry goes back on the queue with the computed delay (30 s ±25 %) and runs while the burst and paced phases do. ` +
      `The local pollers (one per queue, a batch of up to ${queues.find((q) => q.name === 'webhooks')?.batchSize ?? 10} at a time, the messages of a batch handled concurrently, 100 ms pause after an empty receive) and dynalite share the one main thread with the receiver, so absolute rates are this machine's, not Lambda's.`,
    '',
    '| Phase | Events × subscriptions | Deliveries received | Wall s (first publish → last arrival) | Deliveries/s | Events/s | Publishing took s | Latency p50 ms | p90 ms | p99 ms | max ms | Messages per receive | Local batch ms (median) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [name, g] of [
    ['burst', b],
    ['paced', p],
  ] as const) {
    lines.push(
      `| ${name}${g.timedOut ? ' (**stopped at the limit; partial**)' : ''} | ${fmtInt(g.events)} × ${g.subscriptions} | ${fmtInt(g.received)} / ${fmtInt(g.expected)} | ${fmt(g.wallMs / 1000, 2)} | ${name === 'paced' ? `— (paced at ${fmt(1000 / S.pacedIntervalMs, 0)} events/s)` : `**${fmt((g.received * 1000) / g.wallMs, 0)}**`} | ${name === 'paced' ? '—' : fmt((g.events * 1000) / g.wallMs, 0)} | ${fmt(g.publishMs / 1000, 2)} | ${fmt(g.latency.p50, 0)} | ${fmt(g.latency.p90, 0)} | ${fmt(g.latency.p99, 0)} | ${fmt(g.latency.max, 0)} | ${fmt(g.messagesPerReceive, 1)} | ${fmt(g.localBatchMs, 0)} |`,
    );
  }
  lines.push(
    '',
    "Read it as: the burst row is how fast one local webhook worker drains a backlog (its latency is mostly time spent queued behind earlier events), the paced row is the latency one event sees on a quiet queue (two queue hops, fan-out then attempt, each up to a 100 ms idle poll locally); in AWS the worker scales out per batch, so the local rate is a floor per worker, not the service's ceiling.",
    '',
  );

  // ---- requests per event and per delivery ----
  const perEvent = (t: Tally | undefined, events: number): string => callList(t, events, undefined, true);
  lines.push(
    `AWS commands in the burst (counted with bench/aws-tap.ts; receives and deletes split over the messages they carried; DynamoDB units from bench/capacity.ts), per event (${S.subscriptions} deliveries each):`,
    '',
    `- producer: ${perEvent(bt?.producer, b.events)}`,
    `- fan-out job: ${perEvent(bt?.['fan-out'], b.events)}`,
    `- attempt jobs: ${perEvent(bt?.attempt, b.events)}`,
    ...(bt && bt.other.calls.size ? [`- other: ${perEvent(bt.other, b.events)}`] : []),
    '',
    `Per delivery the attempt side is ${callList(bt?.attempt, b.received, undefined, true)}; the paced phase made the same DynamoDB commands per delivery (${callList(pt?.attempt, p.received, (label) => !/^(ReceiveMessage|DeleteMessageBatch)/.test(label))}) at ${fmt(p.messagesPerReceive, 1)} messages per receive instead of ${fmt(b.messagesPerReceive, 1)}. ` +
      `Left out: local scheduler ticks (${r.excluded.scheduler}), idle pollers' empty receives (${r.excluded.idleReceives}), commands not attributable to a benchmark account (${fmt(r.excluded.unattributed, 1)}${r.excluded.unattributed ? `: ${Object.entries(r.excluded.unattributedLabels).map(([k, v]) => `${k} ×${units(v)}`).join(', ')}` : ''}). HTTP attempts below the SDK retry layer: ${r.retried === 0 ? 'one per command' : `${r.retried} commands retried`}.`,
    '',
  );

  // ---- cost ----
  const columns = [
    { tallies: pt, deliveries: p.received },
    { tallies: bt, deliveries: b.received },
  ];
  const rows = costRows(r, columns, ['producer', 'fan-out', 'attempt', 'other']);
  const total = (k: number): number => rows.reduce((x, row) => x + (row.perMillion[k] ?? 0), 0);
  const fanMs = fanOutMs(S.subscriptions);
  lines.push(
    `Cost per million deliveries at list prices (bench/pricing.ts: SQS $${PRICES.sqsRequestsPerMillion.toFixed(2)} per million requests, Lambda arm64 $${PRICES.lambdaInvocationsPerMillion.toFixed(2)} per million invocations + $${PRICES.lambdaArmGbSecond} per GB-s, DynamoDB on-demand $${PRICES.dynamodbWruPerMillion} per million WRU and $${PRICES.dynamodbRruPerMillion} per million RRU). ` +
      `One worker invocation per non-empty receive, billed for its slowest message at assumed durations (${r.workerFn} ${r.workerMemoryMb} MB from the manifest): a fan-out job ${fanMs} ms for ${S.subscriptions} subscriptions (${ASSUMED_WEBHOOK_MS.fanOutBase} ms + ${ASSUMED_WEBHOOK_MS.fanOutPerSubscription} ms each: the conditional writes go one after the other), an attempt ${ASSUMED_WEBHOOK_MS.attempt} ms (a fresh TCP + TLS connection per attempt and the endpoint's answer dominate); the local batch times above are for scale only. ` +
      `The event's own costs (producer, fan-out job) are shared by its ${S.subscriptions} deliveries.`,
    '',
    `Read it as: what each delivery adds to the AWS bill, line by line, quiet (paced, ${fmt(p.messagesPerReceive, 1)} messages per receive) and under a backlog (burst, ${fmt(b.messagesPerReceive, 1)}); units are per delivery.`,
    '',
    '| Part | Resource | Unit | Paced: units per delivery | $ per million deliveries | Burst: units per delivery | $ per million deliveries |',
    '|---|---|---|---:|---:|---:|---:|',
    ...rows.map((row) => `| ${row.role} | ${row.resource} | ${row.unit} | ${units(row.units[0] ?? 0)} | ${dollars(row.perMillion[0] ?? 0)} | ${units(row.units[1] ?? 0)} | ${dollars(row.perMillion[1] ?? 0)} |`),
  );
  for (const role of ['producer (publishEvent)', 'fan-out job', 'attempt job']) {
    const part = rows.filter((row) => row.role === role);
    lines.push(`| ${role} | *subtotal* | | | ${dollars(part.reduce((x, row) => x + (row.perMillion[0] ?? 0), 0))} | | ${dollars(part.reduce((x, row) => x + (row.perMillion[1] ?? 0), 0))} |`);
  }
  lines.push(`| **all** | **per million deliveries** | | | **${dollars(total(0))}** | | **${dollars(total(1))}** |`, '');

  // ---- one failed attempt and its retry ----
  const fail = r.tallies.flaky?.attempt;
  const retry = r.tallies['flaky-retry']?.attempt;
  const failRows = costRows(r, [{ tallies: r.tallies.flaky, deliveries: r.flaky.failures }], ['attempt']);
  const retryRows = costRows(r, [{ tallies: r.tallies['flaky-retry'], deliveries: r.flaky.retries }], ['attempt']);
  const sum = (rs: CostRow[]): number => rs.reduce((x, row) => x + (row.perMillion[0] ?? 0), 0);
  const gaps = r.flaky.gapsS;
  lines.push(
    `One failed attempt and its retry (flaky phase: ${r.flaky.failures} first attempts answered 500, ${r.flaky.retries} retries answered 200${r.flaky.settled ? '' : ', **not all settled before the limit**'}; queue delays chosen ${r.flaky.delaysS.join(', ')} s, the retry arrived ${gaps.length ? `${fmt(Math.min(...gaps), 1)}–${fmt(Math.max(...gaps), 1)} s` : 'n/a'} after the failure). ` +
      `Read it as: a failure costs its own attempt plus the delayed SendMessage, and the retry then costs what a first attempt costs; the retry's receive usually carries it alone, so it pays a whole receive, delete and invocation.`,
    '',
    '| Attempt | Commands per delivery | Resource | Units | $ per million |',
    '|---|---|---|---:|---:|',
  );
  const attemptRows = (name: string, t: Tally | undefined, deliveries: number, rs: CostRow[]): void => {
    const cmds = callList(t, deliveries);
    rs.forEach((row, i) => lines.push(`| ${i === 0 ? name : ''} | ${i === 0 ? cmds : ''} | ${row.resource} (${row.unit}) | ${units(row.units[0] ?? 0)} | ${dollars(row.perMillion[0] ?? 0)} |`));
    lines.push(`| | | *subtotal* | | **${dollars(sum(rs))}** |`);
  };
  attemptRows('failed first attempt (500)', fail, r.flaky.failures, failRows);
  attemptRows('retry (200)', retry, r.flaky.retries, retryRows);
  lines.push(
    '',
    `**A delivery that fails once costs ${dollars(sum(failRows) + sum(retryRows))} per million in attempts, against ${dollars(
      costRows(r, [{ tallies: pt, deliveries: p.received }], ['attempt']).reduce((x, row) => x + (row.perMillion[0] ?? 0), 0),
    )} for an attempt that succeeds first time (paced)**; a failing endpoint retried to the limit (${MAX_ATTEMPTS} attempts) costs about ${MAX_ATTEMPTS} such attempts per delivery.`,
    '',
    `Not included: CloudWatch Logs, data transfer out to the endpoints, the event source's idle long polls (a fixed cost per queue, not per delivery), and retries later than 15 minutes, which go through EventBridge Scheduler (its own price per schedule) instead of the queue's delay. The benchmark took ${fmt(r.totalMs / 1000, 1)} s, most of it waiting for the retries.`,
  );
  return lines;
}
