// Webhook deliveries to a loopback receiver: how fast one local worker drains a burst, the latency
// of a quiet queue, and what a delivery costs in AWS, healthy and failing once. Events go straight
// onto the webhooks queue with publishEvent, as the send worker and the events ingest do.
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { publishEvent } from '../../shared/webhooks/deliver';
import type { Benchmark } from '../run';
import { callList, consumerOf, gbSeconds, memoryMbOf, PRICE, priceNote, totalUnits } from '../lib/cost';
import { startReceiver, type LoopbackReceiver } from '../lib/loopback';
import { dollars, fmt, fmtInt, latencyCells, sleep, sum, units, until } from '../lib/measure';
import { actingAs, http, startBenchRuntime, type BenchRuntime, type Invocation, type PortCall } from '../lib/runtime';

const GROUPS = {
  /** Events published 8 at a time to an account with 5 subscriptions: a backlog. */
  burst: { subscriptions: 5, events: 300 },
  /** One event every 250 ms: a quiet queue. */
  paced: { subscriptions: 5, events: 20 },
  /** One subscription whose endpoint answers 500 to each event's first request: one failure and its retry. */
  flaky: { subscriptions: 1, events: 5 },
  /** The same as flaky, answered 200 at once: what the failure adds. */
  steady: { subscriptions: 1, events: 5 },
} as const;
type Group = keyof typeof GROUPS;
const groups = Object.keys(GROUPS) as Group[];

/** Assumed Lambda durations; an invocation is billed for its slowest message (a batch runs concurrently). */
const ASSUMED_MS = { fanOutBase: 15, fanOutPerSubscription: 10, attempt: 150, producer: 10 } as const;

interface Arrival {
  group: Group;
  eventId: string;
  atMs: number;
  status: number;
}

interface Endpoint {
  receiver: LoopbackReceiver;
  arrivals: Arrival[];
}

/** Answers 200 at once; the flaky group's first request per event gets a 500. */
async function startEndpoint(): Promise<Endpoint> {
  const arrivals: Arrival[] = [];
  const receiver = await startReceiver((req) => {
    const group = (req.url ?? '/').split('/')[1] as Group;
    const eventId = String(req.headers['service-event-id'] ?? '');
    const status = group === 'flaky' && !arrivals.some((a) => a.eventId === eventId) ? 500 : 200;
    arrivals.push({ group, eventId, atMs: performance.now(), status });
    return status;
  });
  return { receiver, arrivals };
}

interface Accounts {
  accountOf: Record<Group, string>;
  /** The group whose account or subscription id `x` (a call's arguments, a message body) names. */
  groupOf(x: unknown): Group | undefined;
}

/** An account per group, with its subscriptions to the receiver made through the API. */
async function subscribe(b: BenchRuntime, url: string): Promise<Accounts> {
  const accountOf = {} as Record<Group, string>;
  const tokens: Array<[string, Group]> = [];
  for (const g of groups) {
    const account = await createAccount(b.c, { name: `bench webhooks ${g}` });
    accountOf[g] = account.account_id;
    tokens.push([account.account_id, g]);
    for (let i = 0; i < GROUPS[g].subscriptions; i++) {
      const sub = await http(b.rt, 'POST', '/v1/webhooks', account.admin_key, { endpoint_url: `${url}/${g}/${i}` });
      if (sub.status !== 201) throw new Error(`POST /v1/webhooks answered ${sub.status} ${JSON.stringify(sub.json).slice(0, 300)}`);
      tokens.push([sub.json.id, g]);
    }
  }
  return { accountOf, groupOf: (x) => tokens.find(([t]) => JSON.stringify(x).includes(t))?.[1] };
}

interface Driven {
  delaysS: number[];
  start: { burst: number; paced: number };
  publishedAt: Map<string, number>;
  settled: boolean;
  calls: PortCall[];
  invocations: Invocation[];
}

/** The four groups' events published, and waited for until their deliveries (and retries) arrived. */
async function drive(b: BenchRuntime, accountOf: Record<Group, string>, arrivals: Arrival[], log: (line: string) => void): Promise<Driven> {
  const { c } = b;
  b.count();
  b.startConsumers();
  const calls: PortCall[] = [];
  const seen = (): PortCall[] => (calls.push(...b.take()), calls);
  const publishedAt = new Map<string, number>();
  let n = 0;
  const publish = (g: Group): Promise<void> => {
    const i = n++;
    const type = i % 2 ? 'delivered' : 'sent';
    const now = new Date().toISOString();
    const eventId = c.ids.next('evt');
    publishedAt.set(eventId, performance.now());
    const envelope = { event_id: eventId, event_type: type, message_id: c.ids.next('msg'), account_id: accountOf[g], payload: { detail: 'benchmark event' }, occurred_at: now, created_at: now };
    return actingAs('producer', () => publishEvent(c, envelope));
  };
  const delayed = (): PortCall[] => seen().filter((x) => x.op === 'send' && (x.args[2] as { delaySeconds?: number } | undefined)?.delaySeconds);
  const count = (g: Group, status?: number): number => arrivals.filter((a) => a.group === g && (status === undefined || a.status === status)).length;

  log('  flaky and steady: 5 events each; the failed attempts\' retries wait on the queue meanwhile');
  await Promise.all([...Array(GROUPS.flaky.events).fill('flaky'), ...Array(GROUPS.steady.events).fill('steady')].map(publish));
  await until(() => delayed().length >= GROUPS.flaky.events, 15_000);
  const delaysS = delayed().map((x) => (x.args[2] as { delaySeconds: number }).delaySeconds);

  log(`  burst: ${GROUPS.burst.events} events × ${GROUPS.burst.subscriptions} subscriptions`);
  const start = { burst: performance.now(), paced: 0 };
  let published = 0;
  await Promise.all(Array.from({ length: 8 }, async () => {
    while (published++ < GROUPS.burst.events) await publish('burst');
  }));
  await until(() => count('burst') >= GROUPS.burst.events * GROUPS.burst.subscriptions, 60_000);

  log(`  paced: ${GROUPS.paced.events} events, one every 250 ms`);
  start.paced = performance.now();
  const paced: Array<Promise<void>> = [];
  for (let i = 0; i < GROUPS.paced.events; i++) {
    paced.push(publish('paced'));
    await sleep(250);
  }
  await Promise.all(paced);
  await until(() => count('paced') >= GROUPS.paced.events * GROUPS.paced.subscriptions, 15_000);

  log(`  waiting for the retries (queue delays ${delaysS.join(', ')} s)`);
  const settled = await until(() => count('flaky', 200) >= GROUPS.flaky.events, Math.max(0, ...delaysS) * 1000 + 20_000);
  const invocations: Invocation[] = [];
  const onQueue = (): number => sum(seen().filter((x) => x.port === 'queue' && x.args[0] === 'webhooks').map((x) => (x.op === 'sendBatch' ? (x.args[1] as unknown[]).length : 1)));
  await until(() => (invocations.push(...b.takeInvocations()), sum(invocations.map((i) => i.bodies.length)) >= onQueue()), 5_000);
  b.uncount();
  return { delaysS, start, publishedAt, settled, calls: seen(), invocations };
}

type Share = Record<Group, { invocations: number; billedMs: number; messages: number }>;

/** Each invocation's receive, delete, run and billed time shared by its messages' groups. */
function shareOf(invocations: readonly Invocation[], groupOf: Accounts['groupOf']): Share {
  const share = Object.fromEntries(groups.map((g) => [g, { invocations: 0, billedMs: 0, messages: 0 }])) as Share;
  for (const inv of invocations) {
    const kinds = inv.bodies.map((body) => ({ g: groupOf(body), event: (body as { kind?: string }).kind === 'event' }));
    const billed = Math.max(...kinds.map((k) => (k.event && k.g ? ASSUMED_MS.fanOutBase + ASSUMED_MS.fanOutPerSubscription * GROUPS[k.g].subscriptions : ASSUMED_MS.attempt)));
    for (const k of kinds) if (k.g) Object.assign(share[k.g], { invocations: share[k.g].invocations + 1 / kinds.length, billedMs: share[k.g].billedMs + billed / kinds.length, messages: share[k.g].messages + 1 });
  }
  return share;
}

interface CostLine {
  part: string;
  resource: string;
  unit: string;
  price: number;
  per: (g: Group) => number;
}

const worker = consumerOf('webhooks');
const producerFn = consumerOf('ses-events');

/** What a group's deliveries used, resource by resource. */
function costLines(callsOf: (g: Group, by: string) => PortCall[], share: Share): CostLine[] {
  return [
    { part: 'producer (publishEvent)', resource: 'DynamoDB reads (subscriptions query)', unit: 'RRU', price: PRICE.rru, per: (g) => totalUnits(callsOf(g, 'producer')).rru },
    { part: 'producer (publishEvent)', resource: 'SQS send (the event job)', unit: 'requests', price: PRICE.sqs, per: (g) => totalUnits(callsOf(g, 'producer')).sqs },
    { part: 'producer (publishEvent)', resource: `Lambda duration added to ${producerFn} (${ASSUMED_MS.producer} ms)`, unit: 'GB-s', price: PRICE.gbSeconds, per: (g) => gbSeconds(producerFn, ASSUMED_MS.producer) * GROUPS[g].events },
    { part: worker, resource: 'SQS ReceiveMessage + DeleteMessageBatch (modelled: one each per invocation)', unit: 'requests', price: PRICE.sqs, per: (g) => 2 * share[g].invocations },
    { part: worker, resource: 'SQS sends (attempt jobs, delayed retries)', unit: 'requests', price: PRICE.sqs, per: (g) => totalUnits(callsOf(g, 'webhooks')).sqs },
    { part: worker, resource: 'Lambda invocations (share)', unit: 'invocations', price: PRICE.invocations, per: (g) => share[g].invocations },
    { part: worker, resource: 'Lambda duration', unit: 'GB-s', price: PRICE.gbSeconds, per: (g) => gbSeconds(worker, share[g].billedMs) },
    { part: worker, resource: 'DynamoDB writes (table + GSI)', unit: 'WRU', price: PRICE.wru, per: (g) => ((u) => u.wru + u.gsiWru)(totalUnits(callsOf(g, 'webhooks'))) },
    { part: worker, resource: 'DynamoDB reads', unit: 'RRU', price: PRICE.rru, per: (g) => totalUnits(callsOf(g, 'webhooks')).rru },
  ];
}

function report(run: Driven, arrivals: readonly Arrival[], groupOf: Accounts['groupOf']): string {
  const { delaysS, start, publishedAt, settled } = run;
  const share = shareOf(run.invocations, groupOf);
  const callsOf = (g: Group, by: string): PortCall[] => run.calls.filter((x) => x.by === by && groupOf(x.args) === g);
  const unattributed = run.calls.filter((x) => !groupOf(x.args)).length;
  const deliveries = (g: Group): number => arrivals.filter((a) => a.group === g && a.status === 200).length;
  const lines = costLines(callsOf, share);
  const perDelivery = (g: Group, line: CostLine): number => line.per(g) / Math.max(1, deliveries(g));
  const totalOf = (g: Group): number => sum(lines.map((l) => perDelivery(g, l) * l.price));

  const phaseRow = (g: 'burst' | 'paced'): string => {
    const mine = arrivals.filter((a) => a.group === g);
    const wallS = (Math.max(...mine.map((a) => a.atMs)) - start[g]) / 1000;
    const expected = GROUPS[g].events * GROUPS[g].subscriptions;
    return `| ${g} | ${GROUPS[g].events} × ${GROUPS[g].subscriptions} | ${fmtInt(mine.length)} / ${fmtInt(expected)} | ${fmt(wallS, 2)} | ${g === 'burst' ? `**${fmt(mine.length / wallS, 0)}**` : '— (paced)'} | ${latencyCells(mine.map((a) => a.atMs - (publishedAt.get(a.eventId) ?? Number.NaN)), 0)} | ${fmt(share[g].messages / share[g].invocations, 1)} |`;
  };
  return [
    '## Webhooks',
    '',
    'Method: a local runtime of its own (WEBHOOK_ALLOW_PRIVATE=true so subscriptions may point at 127.0.0.1) and a loopback receiver in the same process. Events are published straight onto the webhooks queue with `publishEvent`, as the send worker and the events ingest do; subscriptions are made with POST /v1/webhooks. ' +
      `The webhook worker runs continuously on the runtime's QueuePoller (batches of up to 10, handled concurrently, 100 ms pause after an empty receive), sharing the main thread with dynalite and the receiver, so rates are this machine's. ` +
      `**Burst**: ${GROUPS.burst.events} events, 8 published at a time, for an account with ${GROUPS.burst.subscriptions} subscriptions; throughput from the first publish to the last arrival, latency = arrival − publish, backlog included. **Paced**: ${GROUPS.paced.events} events one every 250 ms. ` +
      `**Flaky** and **steady**: ${GROUPS.flaky.events} events each for an account with one subscription; flaky's endpoint answers each event's first request with 500, and the retry rides the queue's delay (${delaysS.join(', ')} s) while the other phases run.`,
    '',
    '| Phase | Events × subscriptions | Deliveries | Wall s | Deliveries/s | Latency p50 ms | p90 ms | p99 ms | max ms | Messages per invocation |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    phaseRow('burst'),
    phaseRow('paced'),
    '',
    'Read it as: the burst row is how fast one local worker drains a backlog (the latency is mostly queueing behind earlier events); the paced row is what one event sees on a quiet queue (two queue hops, fan-out then attempt). In AWS the worker scales out per batch, so the local rate is a floor per worker.',
    '',
    `Port calls per delivery in the burst: producer ${callList(callsOf('burst', 'producer'), deliveries('burst'))}; worker ${callList(callsOf('burst', 'webhooks'), deliveries('burst'))}. ` +
      `Flaky, per delivery that failed once: worker ${callList(callsOf('flaky', 'webhooks'), deliveries('flaky'))}. Port calls not attributable to a benchmark account: ${unattributed}.`,
    '',
    `Cost per million deliveries. ${priceNote} Invocations and their receives and deletes are shared by the messages of each batch; an invocation is billed for its slowest message at assumed durations (${worker} at ${memoryMbOf(worker)} MB, from the manifest): a fan-out job ${ASSUMED_MS.fanOutBase} ms + ${ASSUMED_MS.fanOutPerSubscription} ms per subscription, an attempt ${ASSUMED_MS.attempt} ms (a fresh TLS connection and the endpoint's answer dominate). The event's own costs are shared by its deliveries.`,
    '',
    `| Part | Resource | Unit | ${groups.map((g) => `${g}: units | $/M`).join(' | ')} |`,
    `|---|---|---|${groups.map(() => '---:|---:').join('|')}|`,
    ...lines.map((l) => `| ${l.part} | ${l.resource} | ${l.unit} | ${groups.map((g) => `${units(perDelivery(g, l))} | ${dollars(perDelivery(g, l) * l.price)}`).join(' | ')} |`),
    `| **all** | **per million deliveries** | | ${groups.map((g) => ` | **${dollars(totalOf(g))}**`).join(' | ')} |`,
    '',
    `**Per million deliveries: ${dollars(totalOf('paced'))} on a quiet queue, ${dollars(totalOf('burst'))} under a backlog (5 subscriptions per event); with one subscription ${dollars(totalOf('steady'))}, and ${dollars(totalOf('flaky'))} for a delivery that fails once${settled ? '' : ' (**not every retry arrived in time**)'}.** ` +
      'Not included: CloudWatch Logs, data transfer to the endpoints, idle long polls, retries later than 15 minutes (EventBridge Scheduler).',
  ].join('\n');
}

export const webhooks: Benchmark = {
  name: 'Webhooks',
  async run({ log }) {
    const b = await startBenchRuntime({ WEBHOOK_ALLOW_PRIVATE: 'true' });
    const { receiver, arrivals } = await startEndpoint();
    try {
      const { accountOf, groupOf } = await subscribe(b, receiver.url);
      const run = await drive(b, accountOf, arrivals, log);
      return report(run, arrivals, groupOf);
    } finally {
      await receiver.close();
      await b.close();
    }
  },
};
