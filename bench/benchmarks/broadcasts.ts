// Broadcast fan-out: a 10,000-contact static list sent with POST /v1/send/bulk on a local runtime in
// this process, its fanout and send consumers run here with the runtime's lanes (the list walk,
// the chunk jobs, the send worker to the SES emulator). Time from the send call to the last
// message `sent`, recipients per second against the store's raw write rate measured in the same
// run, and the AWS requests and dollars per million broadcast recipients, counted at the ports and
// priced with bench/lib/cost.ts, next to SES's own $100 per million.
import type { Benchmark } from '../run';
import { noteTarget } from '../lib/targets';
import { RECIPIENTS_PER_CHUNK } from '../../shared/audiences/broadcasts/limits';
import type { BroadcastItem } from '../../shared/audiences/broadcasts/model';
import type { ContactItem } from '../../shared/audiences/contacts/repository';
import type { ListMemberItem } from '../../shared/audiences/contacts/members-repository';
import { keys } from '../../shared/db/keys';
import { CONSUMER_LANES } from '../../local/runtime';
import { awsBill, billTotal, usd, type Bill } from '../lib/bill';
import { lanedConsumers, type LanedConsumers } from '../lib/consumers';
import { callList, consumerOf, gbSeconds, memoryMbOf, modelledMs, PRICE, priceNote, totalUnits, type Units } from '../lib/cost';
import { closedLoop, fmt, fmtInt, rate, sleep } from '../lib/measure';
import { http, newSender, startBenchRuntime, type BenchRuntime, type PortCall } from '../lib/runtime';
import { benchContact } from '../lib/seed';

const S = { contacts: 10_000, floorWarmupMs: 200, floorMs: 1_500, floorConcurrency: 16, timeoutMs: 600_000 } as const;
/** The local runtime's lanes for these queues. */
const LANES = { send: CONSUMER_LANES.send ?? 1, fanout: CONSUMER_LANES.fanout ?? 1 } as const;

/** The largest of many numbers (a spread into Math.max overflows the stack past ~100k arguments). */
const latest = (xs: readonly number[]): number => xs.reduce((a, x) => (x > a ? x : a), -Infinity);

interface Sender {
  token: string;
  accountId: string;
  from: string;
}

/**
 * The audience: a static list, its contacts written as the contacts area stores them (setup, not
 * measured). Raw batch writes on purpose: ContactRepository adds a member one conditional write at
 * a time, 20,000 round trips for this audience.
 */
async function seedAudience(b: BenchRuntime, sender: Sender, log: (line: string) => void): Promise<string> {
  const list = await http(b.rt, 'POST', '/v1/lists', sender.token, { name: 'bench audience', type: 'static' });
  if (list.status !== 201) throw new Error(`list answered ${list.status}`);
  const listId = (list.json as { id: string }).id;
  const now = new Date().toISOString();
  const items: Array<ContactItem | ListMemberItem> = [];
  for (let i = 0; i < S.contacts; i++) {
    const contact = benchContact(b.c, sender.accountId, i, { plan: ['free', 'pro', 'team'][i % 3]! }, now);
    items.push({ ...keys.contact(sender.accountId, contact.id), entity: 'contact', ...contact, list_ids: new Set([listId]) });
    items.push({ ...keys.listMember(sender.accountId, listId, contact.id), entity: 'list_member', account_id: sender.accountId, list_id: listId, contact_id: contact.id, op: '0123456789abcdef', created_at: now });
  }
  await b.c.store.batchPut(items);
  log(`  seeded ${fmtInt(S.contacts)} contacts in list ${listId}`);
  return listId;
}

/** The store's raw write rate in this run: conditional puts of message-sized items at the send path's claim concurrency. */
async function rawConditionalPutRate(b: BenchRuntime): Promise<number> {
  let n = 0;
  const floorItem = () => ({ pk: `BENCHFLOOR#${n++}`, sk: 'FLOOR', entity: 'bench_floor', pad: 'x'.repeat(600) });
  const floor = await closedLoop(async () => (await b.c.store.create(floorItem()), 'ok'), { concurrency: S.floorConcurrency, warmupMs: S.floorWarmupMs, durationMs: S.floorMs });
  return rate(floor);
}

interface Sent {
  calls: PortCall[];
  t0: number;
  tAnswered: number;
  /** Every chunk counted: the broadcast is `sent`. */
  tFanned: number;
}

/**
 * The broadcast sent and followed to its last message. The two steps one after the other, so each
 * has the machine to itself (in AWS each is its own Lambda): the fan-out until every chunk is
 * counted (the broadcast is `sent`: every recipient's message accepted and on the send queue),
 * then the send worker until the last message is sent.
 */
async function sendBroadcast(b: BenchRuntime, consumers: LanedConsumers, sender: Sender, listId: string, log: (line: string) => void, rawRate: number): Promise<Sent> {
  b.count();
  const calls: PortCall[] = [];
  const t0 = performance.now();
  const res = await http(b.rt, 'POST', '/v1/send/bulk', sender.token, { from_email: sender.from, subject: 'Our news', body_text: 'Hello, this is the monthly news.', audience_list_id: listId });
  const tAnswered = performance.now();
  if (res.status !== 202) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(res.json)}`);
  const key = keys.broadcast(sender.accountId, (res.json as { id: string }).id);
  const [fanoutPoller, sendPoller] = consumers.pollers;
  fanoutPoller!.start();
  const mailed = (): number => calls.filter((c) => c.port === 'mailer' && c.op === 'send' && !c.failed).length;
  let tFanned = 0;
  for (;;) {
    for (const call of b.take()) calls.push(call);
    const item = await b.c.store.get<BroadcastItem>(key);
    if (item && item.status !== 'sending' && tFanned === 0) {
      tFanned = performance.now();
      log(`  fanned out (every chunk counted) in ${fmt((tFanned - t0) / 1000, 1)} s: ${fmtInt((S.contacts * 1000) / (tFanned - t0))} recipients/s; raw conditional puts ${fmtInt(rawRate)}/s`);
      sendPoller!.start();
    }
    if (item && item.status !== 'sending' && mailed() >= (item.sent_count ?? 0)) break;
    if (performance.now() - t0 > S.timeoutMs) throw new Error(`broadcast still ${item?.status} after ${S.timeoutMs / 1000} s (${mailed()} mailed)`);
    await sleep(tFanned === 0 ? 20 : 100);
  }
  await consumers.stop();
  for (const call of b.take()) calls.push(call);
  b.uncount();
  const item = (await b.c.store.get<BroadcastItem>(key))!;
  if (item.status !== 'sent' || item.sent_count !== S.contacts) throw new Error(`broadcast ended ${item.status} with ${item.sent_count} sent`);
  return { calls, t0, tAnswered, tFanned };
}

interface Figures {
  apiCalls: PortCall[];
  fanoutCalls: PortCall[];
  sendCalls: PortCall[];
  fanoutMs: number;
  sendMs: number;
  perSecond: number;
  sentPerSecond: number;
  writesPerRecipient: number;
  u: Units;
  bill: Bill;
}

// Items written, a batch write counting each of its items.
const itemsWritten = (cs: PortCall[]) =>
  cs.filter((c) => c.port === 'store' && ['put', 'create', 'update', 'delete', 'batchPut'].includes(c.op)).reduce((s, c) => s + (c.op === 'batchPut' ? (c.args[0] as unknown[]).length : 1), 0);

/** The run's rates, calls by step and AWS bill (SES apart). */
function figuresOf({ calls, t0, tAnswered, tFanned }: Sent, consumers: LanedConsumers): Figures {
  const by = (queue: string) => calls.filter((c) => c.by.split('#')[0] === queue);
  const sendCalls = by('send');
  const fanoutCalls = by('fanout');
  // The runtime's own timers (acceptance sweep, local scheduler) also act as `api`: the request's calls are those inside it.
  const apiCalls = calls.filter((c) => c.by === 'api' && c.startMs >= t0 && c.startMs <= tAnswered);
  const fanoutMs = tFanned - t0;
  const sendMs = latest(sendCalls.map((c) => c.startMs + c.ms)) - tFanned;
  const mine = [...apiCalls, ...fanoutCalls, ...sendCalls];
  const { invocations } = consumers;
  const lambdaGbS = invocations.reduce((s, i) => s + gbSeconds(consumerOf(i.queue), modelledMs(calls.filter((c) => c.by === i.tag), i.bodies.length)), 0);
  const u = totalUnits(mine);
  // Port sends, plus the consumers' receive and delete per non-empty batch.
  const bill = awsBill(u, { batches: invocations.length, lambdaInvocations: invocations.length, gbSeconds: lambdaGbS, apiRequests: 1 });
  return {
    apiCalls,
    fanoutCalls,
    sendCalls,
    fanoutMs,
    sendMs,
    perSecond: (S.contacts * 1000) / fanoutMs,
    sentPerSecond: (S.contacts * 1000) / sendMs,
    writesPerRecipient: itemsWritten(mine) / S.contacts,
    u,
    bill,
  };
}

function report(sent: Sent, f: Figures, consumers: LanedConsumers, rawWritesPerSecond: number): string {
  const { invocations } = consumers;
  const { u, bill: cost, perSecond, sentPerSecond, fanoutMs, sendMs } = f;
  const inv = (queue: string) => invocations.filter((i) => i.queue === queue).length;
  const busy = (queue: string) => invocations.filter((i) => i.queue === queue).reduce((s, i) => s + i.ms, 0) / 1000;
  const per = 1_000_000 / S.contacts;
  const ses = (u.ses * PRICE.ses) / 1e6;
  const total = billTotal(cost);
  const requests = u.requests - u.ses + 2 * invocations.length + 1;
  const fanRatio = perSecond / rawWritesPerSecond;
  const sendRatio = sentPerSecond / rawWritesPerSecond;
  const target = noteTarget({
    item: 4,
    what: "A broadcast at ≥ 0.3× the store's conditional PutItem ops/s, in recipients sent",
    figure: `fan-out ${fmt(fanRatio, 2)}× and send worker ${fmt(sendRatio, 2)}× of the store's ${fmtInt(rawWritesPerSecond)} puts/s (the slower bounds a broadcast); ${fmt(f.writesPerRecipient, 1)} store writes per recipient, at least 3 of them conditional`,
    met: Math.min(fanRatio, sendRatio) >= 0.3,
  });
  return [
    '## Broadcast fan-out',
    '',
    `Method: a local runtime in this process, one account with a verified domain; a static list of ${fmtInt(S.contacts)} contacts written straight into the store (setup, not timed). ` +
      `POST /v1/send/bulk with \`audience_list_id\` and inline content; then the fanout consumer (${LANES.fanout} lanes, as the runtime runs it) walks the list a page of ${RECIPIENTS_PER_CHUNK} at a time and sends each chunk through acceptSends ` +
      `(the recipients' idempotency claims, their messages, their send jobs), until every chunk is counted and the broadcast is \`sent\`; only then does the send worker (${LANES.send} lanes) start, and it hands each message to the SES emulator (bench/benchmarks/broadcasts.ts). ` +
      `The two run one after the other so that each is timed on the machine alone (in AWS each is a Lambda of its own; here both share one event loop). The SES event ingest is not run. ` +
      `The floor is ${fmt(S.floorMs / 1000, 1)} s of conditional puts of 600-byte items at ${S.floorConcurrency} in flight (the send path's claim concurrency) on the same store, after ${S.floorWarmupMs} ms warm-up.`,
    '',
    '| Step | Time | Rate |',
    '|---|---:|---:|',
    `| POST /v1/send/bulk (202) | ${fmt(sent.tAnswered - sent.t0, 0)} ms | |`,
    `| request → every chunk counted (${fmtInt(S.contacts)} recipients accepted and queued) | ${fmt(fanoutMs / 1000, 1)} s | **${fmtInt(perSecond)} recipients/s** |`,
    `| the send worker: first receive → last of ${fmtInt(S.contacts)} messages \`sent\` | ${fmt(sendMs / 1000, 1)} s | ${fmtInt(sentPerSecond)} messages/s |`,
    `| the store's raw conditional puts (same run) | ${fmt(S.floorMs / 1000, 1)} s | ${fmtInt(rawWritesPerSecond)} writes/s |`,
    '',
    `**The fan-out runs at ${fmt(perSecond / rawWritesPerSecond, 2)}× the store's raw conditional put rate in recipients** (busy ${fmt(busy('fanout'), 1)} s in all; each recipient's one conditional write is its idempotency claim, the rest are batch writes and batched queue sends). ` +
      `The send worker delivers at ${fmt(sentPerSecond / rawWritesPerSecond, 2)}× it (its ${LANES.send} lanes busy ${fmt(busy('send'), 1)} s in all): each message takes two store writes in turn (the lease, which answers the message, and the \`sent\` event with its status move) and the SES emulator; a batch of ten shares the account read, one read of its recipients' suppressions, the webhook subscriptions, and one write of the reputation counters at its end (a broadcast's stats are written with each send; usage was counted at acceptance, with the spend reservation). ` +
      `In all each recipient takes ${fmt(f.writesPerRecipient, 1)} store writes besides reads. ` +
      `The fanout queue ran ${fmtInt(inv('fanout'))} jobs (a start's safety net may fall outside the run): ${Math.ceil(S.contacts / RECIPIENTS_PER_CHUNK) + 1} walk pages and ${Math.ceil(S.contacts / RECIPIENTS_PER_CHUNK)} chunks; the send queue ${fmtInt(inv('send'))} batches.`,
    '',
    'Target (issue 31):',
    '',
    target,
    '',
    'Read it as: each recipient needs at least three conditional writes, one after another on its way (its message, which is its idempotency claim; the dispatch lease, so that a redelivered job sends nothing twice; the `sent` move), and its broadcast\'s `sent` count a fourth; at the store\'s own conditional put rate those alone bound a broadcast at 0.25–0.33× before the SES call, the queue and the batch writes. The target sits within a tenth of that bound: out of reach of this design on this store, whose writes cannot be batched with a condition (no transactions).',
    '',
    `Port calls per recipient: the request ${callList(f.apiCalls, S.contacts)}; the fanout consumer ${callList(f.fanoutCalls, S.contacts)}; the send worker ${callList(f.sendCalls, S.contacts)}.`,
    '',
    `AWS per million broadcast recipients (this run's ${fmtInt(S.contacts)} scaled by ${fmtInt(per)}), SES apart: **${fmtInt(requests * per)} requests, ${usd(total * per)}**: DynamoDB ${fmtInt((u.wru + u.gsiWru) * per)} WRU (${fmtInt(u.gsiWru * per)} of them index writes) and ${fmtInt(u.rru * per)} RRU (${usd(cost.dynamo * per)}), ` +
      `SQS ${usd(cost.sqs * per)}, Lambda ${usd(cost.lambda * per)} (${fmtInt(invocations.length * per)} invocations; durations modelled from each invocation's port calls at AWS latencies, bench/lib/cost.ts modelledMs, at ${consumerOf('fanout')}'s ${memoryMbOf(consumerOf('fanout'))} MB and ${consumerOf('send')}'s ${memoryMbOf(consumerOf('send'))} MB), ` +
      `S3 ${usd(cost.s3 * per)}, API Gateway ${usd(cost.api * per)}. **SES itself: ${usd(ses * per)}** (${fmtInt(u.ses * per)} emails): Postbox's own AWS cost is ${fmt((100 * total) / ses, 1)} % on top of SES's. ` +
      `The broadcast item each chunk count rewrites holds no content (it is on its own item), so those writes are one unit each. ${priceNote}`,
  ].join('\n');
}

export const broadcasts: Benchmark = {
  name: 'Broadcast fan-out',
  async run({ log }) {
    const b = await startBenchRuntime();
    let consumers: LanedConsumers | undefined;
    try {
      const { key: token, accountId, from } = await newSender(b.c, 'bench broadcasts');
      const sender = { token, accountId, from };
      const listId = await seedAudience(b, sender, log);
      const rawWritesPerSecond = await rawConditionalPutRate(b);
      // The fanout and send consumers, with an invocation tag on every port call they make.
      consumers = await lanedConsumers(b, ['fanout', 'send']);
      const sent = await sendBroadcast(b, consumers, sender, listId, log, rawWritesPerSecond);
      const f = figuresOf(sent, consumers);
      log(`  ${fmtInt(S.contacts)} recipients fanned out in ${fmt(f.fanoutMs / 1000, 1)} s: ${fmtInt(f.perSecond)}/s; then sent in ${fmt(f.sendMs / 1000, 1)} s: ${fmtInt(f.sentPerSecond)}/s; raw conditional puts ${fmtInt(rawWritesPerSecond)}/s`);
      return report(sent, f, consumers, rawWritesPerSecond);
    } finally {
      await consumers?.stop();
      await b.close();
    }
  },
};
