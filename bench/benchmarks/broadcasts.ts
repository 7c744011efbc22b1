// Broadcast fan-out: a 10,000-contact static list sent with POST /v1/send/bulk on a local runtime in
// this process, its fanout and send consumers run here with the runtime's lanes (the list walk,
// the chunk jobs, the send worker to the SES emulator). Time from the send call to the last
// message `sent`, recipients per second against the store's raw write rate measured in the same
// run, and the AWS requests and dollars per million broadcast recipients, counted at the ports and
// priced with bench/lib/cost.ts, next to SES's own $100 per million.
import type { SQSEvent } from 'aws-lambda';
import type { Benchmark } from '../run';
import { functions } from '../../functions/manifest';
import { RECIPIENTS_PER_CHUNK } from '../../shared/broadcasts/limits';
import type { BroadcastItem } from '../../shared/broadcasts/model';
import type { ContactItem, ListMemberItem } from '../../shared/contacts/repository';
import { keys } from '../../shared/db/keys';
import { queueNamed, type QueueName } from '../../shared/platform';
import { CONSUMER_LANES, loadFunction } from '../../shared/runtime/local/runtime';
import { QueuePoller, type QueueHandler } from '../../shared/runtime/local/queue-poller';
import { callList, consumerOf, gbSeconds, memoryMbOf, modelledMs, PRICE, priceNote, totalUnits } from '../lib/cost';
import { closedLoop, fmt, fmtInt, rate, sleep } from '../lib/measure';
import { actingAs, http, newSender, startBenchRuntime, type PortCall } from '../lib/runtime';

const S = { contacts: 10_000, floorWarmupMs: 200, floorMs: 1_500, floorConcurrency: 16, timeoutMs: 600_000 } as const;
/** The local runtime's lanes for these queues. */
const LANES = { send: CONSUMER_LANES.send ?? 1, fanout: CONSUMER_LANES.fanout ?? 1 } as const;

interface Invocation {
  tag: string;
  queue: QueueName;
  messages: number;
  startMs: number;
  ms: number;
}

/** The largest of many numbers (a spread into Math.max overflows the stack past ~100k arguments). */
const latest = (xs: readonly number[]): number => xs.reduce((a, x) => (x > a ? x : a), -Infinity);

const usd = (x: number): string => (x === 0 ? '$0' : `$${x.toFixed(Math.max(2, 1 - Math.floor(Math.log10(x))))}`);

export const broadcasts: Benchmark = {
  name: 'Broadcast fan-out',
  async run({ log }) {
    const b = await startBenchRuntime();
    const pollers: QueuePoller[] = [];
    try {
      const raw = b.c.store;
      const { key: token, accountId, from } = await newSender(b.c, 'bench broadcasts');
      const list = await http(b.rt, 'POST', '/v1/lists', token, { name: 'bench audience', type: 'static' });
      if (list.status !== 201) throw new Error(`list answered ${list.status}`);
      const listId = (list.json as { id: string }).id;

      // The audience, written as the contacts area stores it (setup, not measured).
      const now = new Date().toISOString();
      const items: Array<ContactItem | ListMemberItem> = [];
      for (let i = 0; i < S.contacts; i++) {
        const id = b.c.ids.next('ctc');
        items.push({
          ...keys.contact(accountId, id),
          entity: 'contact',
          id,
          account_id: accountId,
          email: `reader${i}@example.com`,
          first_name: 'Ada',
          last_name: 'Lovelace',
          data: { plan: ['free', 'pro', 'team'][i % 3]! },
          unsubscribed: false,
          list_ids: new Set([listId]),
          created_at: now,
          updated_at: now,
        });
        items.push({ ...keys.listMember(accountId, listId, id), entity: 'list_member', account_id: accountId, list_id: listId, contact_id: id, op: '0123456789abcdef', created_at: now });
      }
      await raw.batchPut(items);
      log(`  seeded ${fmtInt(S.contacts)} contacts in list ${listId}`);

      // The store's raw write rate in this run: conditional puts of message-sized items at the send path's claim concurrency.
      let n = 0;
      const floorItem = () => ({ pk: `BENCHFLOOR#${n++}`, sk: 'FLOOR', entity: 'bench_floor', pad: 'x'.repeat(600) });
      const floor = await closedLoop(async () => (await raw.create(floorItem()), 'ok'), { concurrency: S.floorConcurrency, warmupMs: S.floorWarmupMs, durationMs: S.floorMs });
      const rawWritesPerSecond = rate(floor);

      // The fanout and send consumers, with an invocation tag on every port call they make.
      const invocations: Invocation[] = [];
      for (const queueName of ['fanout', 'send'] as const) {
        const fn = functions.find((f) => f.queue === queueName)!;
        const queue = queueNamed(queueName);
        const handler = await loadFunction<QueueHandler>(fn);
        const invoke: QueueHandler = async (event: SQSEvent) => {
          const inv: Invocation = { tag: `${queueName}#${invocations.length}`, queue: queueName, messages: event.Records.length, startMs: performance.now(), ms: 0 };
          invocations.push(inv);
          try {
            return await actingAs(inv.tag, () => handler(event));
          } finally {
            inv.ms = performance.now() - inv.startMs;
          }
        };
        const { queueUrls, queueArns, region } = b.c.config;
        pollers.push(
          new QueuePoller(b.rt.sqsClient, { queue, url: queueUrls[queueName]!, arn: queueArns[queueName]!, region, handler: invoke, retryDelaySeconds: 30, logger: b.c.logger, lanes: LANES[queueName], idleMs: 20 }),
        );
      }

      b.count();
      const calls: PortCall[] = [];
      const t0 = performance.now();
      const res = await http(b.rt, 'POST', '/v1/send/bulk', token, { from_email: from, subject: 'Our news', body_text: 'Hello, this is the monthly news.', audience_list_id: listId });
      const tAnswered = performance.now();
      if (res.status !== 202) throw new Error(`bulk answered ${res.status}: ${JSON.stringify(res.json)}`);
      const broadcastId = (res.json as { id: string }).id;
      // The two steps one after the other, so each has the machine to itself (in AWS each is its own
      // Lambda): the fan-out until every chunk is counted (the broadcast is `sent`: every recipient's
      // message accepted and on the send queue), then the send worker until the last message is sent.
      const [fanoutPoller, sendPoller] = pollers as [QueuePoller, QueuePoller];
      fanoutPoller.start();
      const mailed = (): number => calls.filter((c) => c.port === 'mailer' && c.op === 'send' && !c.failed).length;
      let tFanned = 0;
      let tSendStart = 0;
      for (;;) {
        for (const call of b.take()) calls.push(call);
        const item = await raw.get<BroadcastItem>(keys.broadcast(accountId, broadcastId));
        if (item && item.status !== 'sending' && tFanned === 0) {
          tFanned = performance.now();
          tSendStart = tFanned;
          log(`  fanned out (every chunk counted) in ${fmt((tFanned - t0) / 1000, 1)} s: ${fmtInt((S.contacts * 1000) / (tFanned - t0))} recipients/s; raw conditional puts ${fmtInt(rawWritesPerSecond)}/s`);
          sendPoller.start();
        }
        if (item && item.status !== 'sending' && mailed() >= (item.sent_count ?? 0)) break;
        if (performance.now() - t0 > S.timeoutMs) throw new Error(`broadcast still ${item?.status} after ${S.timeoutMs / 1000} s (${mailed()} mailed)`);
        await sleep(tFanned === 0 ? 20 : 100);
      }
      await Promise.all(pollers.map((p) => p.stop()));
      for (const call of b.take()) calls.push(call);
      b.uncount();
      const item = (await raw.get<BroadcastItem>(keys.broadcast(accountId, broadcastId)))!;
      if (item.status !== 'sent' || item.sent_count !== S.contacts) throw new Error(`broadcast ended ${item.status} with ${item.sent_count} sent`);

      const by = (queue: string) => calls.filter((c) => c.by.split('#')[0] === queue);
      const sendCalls = by('send');
      const fanoutCalls = by('fanout');
      // The runtime's own timers (acceptance sweep, local scheduler) also act as `api`: the request's calls are those inside it.
      const apiCalls = calls.filter((c) => c.by === 'api' && c.startMs >= t0 && c.startMs <= tAnswered);
      const lastSent = latest(sendCalls.map((c) => c.startMs + c.ms));
      const fanoutMs = tFanned - t0;
      const perSecond = (S.contacts * 1000) / fanoutMs;
      const sendMs = lastSent - tSendStart;
      const sentPerSecond = (S.contacts * 1000) / sendMs;
      const walkJobs = invocations.filter((i) => i.queue === 'fanout').length;
      // Items written, a batch write counting each of its items.
      const itemsWritten = (cs: PortCall[]) =>
        cs.filter((c) => c.port === 'store' && ['put', 'create', 'update', 'delete', 'batchPut'].includes(c.op)).reduce((s, c) => s + (c.op === 'batchPut' ? (c.args[0] as unknown[]).length : 1), 0);
      const writesPerRecipient = itemsWritten([...apiCalls, ...fanoutCalls, ...sendCalls]) / S.contacts;
      const busy = (queue: QueueName) => invocations.filter((i) => i.queue === queue).reduce((s, i) => s + i.ms, 0) / 1000;
      log(`  ${fmtInt(S.contacts)} recipients fanned out in ${fmt(fanoutMs / 1000, 1)} s: ${fmtInt(perSecond)}/s; then sent in ${fmt(sendMs / 1000, 1)} s: ${fmtInt(sentPerSecond)}/s; raw conditional puts ${fmtInt(rawWritesPerSecond)}/s`);

      // Per million recipients, Postbox's own AWS bill (SES apart).
      const u = totalUnits([...apiCalls, ...fanoutCalls, ...sendCalls]);
      const lambdaGbS = (queue: QueueName) =>
        invocations.filter((i) => i.queue === queue).reduce((s, i) => s + gbSeconds(consumerOf(queue), modelledMs(calls.filter((c) => c.by === i.tag), i.messages)), 0);
      const inv = (queue: QueueName) => invocations.filter((i) => i.queue === queue).length;
      const per = 1_000_000 / S.contacts;
      const cost = {
        dynamo: (u.wru * PRICE.wru + u.rru * PRICE.rru) / 1e6,
        // Port sends, plus the consumers' receive and delete per non-empty batch.
        sqs: ((u.sqs + 2 * invocations.length) * PRICE.sqs) / 1e6,
        lambda: (invocations.length * PRICE.invocations + (lambdaGbS('fanout') + lambdaGbS('send')) * PRICE.gbSeconds) / 1e6,
        s3: (u.s3Put * PRICE.s3Put + u.s3Get * PRICE.s3Get) / 1e6,
        api: PRICE.httpApi / 1e6,
      };
      const ses = (u.ses * PRICE.ses) / 1e6;
      const total = Object.values(cost).reduce((a, x) => a + x, 0);
      const requests = u.requests - u.ses + 2 * invocations.length + 1;

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
        `| POST /v1/send/bulk (202) | ${fmt(tAnswered - t0, 0)} ms | |`,
        `| request → every chunk counted (${fmtInt(S.contacts)} recipients accepted and queued) | ${fmt(fanoutMs / 1000, 1)} s | **${fmtInt(perSecond)} recipients/s** |`,
        `| the send worker: first receive → last of ${fmtInt(S.contacts)} messages \`sent\` | ${fmt(sendMs / 1000, 1)} s | ${fmtInt(sentPerSecond)} messages/s |`,
        `| the store's raw conditional puts (same run) | ${fmt(S.floorMs / 1000, 1)} s | ${fmtInt(rawWritesPerSecond)} writes/s |`,
        '',
        `**The fan-out runs at ${fmt(perSecond / rawWritesPerSecond, 2)}× the store's raw conditional put rate in recipients** (busy ${fmt(busy('fanout'), 1)} s in all; each recipient's one conditional write is its idempotency claim, the rest are batch writes and batched queue sends). ` +
          `The send worker delivers at ${fmt(sentPerSecond / rawWritesPerSecond, 2)}× it (its ${LANES.send} lanes busy ${fmt(busy('send'), 1)} s in all): each message takes its own store calls in turn (lease, status, the \`sent\` event, the broadcast's stats, the usage and reputation counters) and the SES emulator. ` +
          `In all each recipient takes ${fmt(writesPerRecipient, 1)} store writes besides reads. ` +
          `The fanout queue ran ${fmtInt(walkJobs)} jobs (a start's safety net may fall outside the run): ${Math.ceil(S.contacts / RECIPIENTS_PER_CHUNK) + 1} walk pages and ${Math.ceil(S.contacts / RECIPIENTS_PER_CHUNK)} chunks; the send queue ${fmtInt(inv('send'))} batches.`,
        '',
        `Port calls per recipient: the request ${callList(apiCalls, S.contacts)}; the fanout consumer ${callList(fanoutCalls, S.contacts)}; the send worker ${callList(sendCalls, S.contacts)}.`,
        '',
        `AWS per million broadcast recipients (this run's ${fmtInt(S.contacts)} scaled by ${fmtInt(per)}), SES apart: **${fmtInt(requests * per)} requests, ${usd(total * per)}**: DynamoDB ${fmtInt(u.wru * per)} WRU (${fmtInt(u.gsiWru * per)} of them index writes) and ${fmtInt(u.rru * per)} RRU (${usd(cost.dynamo * per)}), ` +
          `SQS ${usd(cost.sqs * per)}, Lambda ${usd(cost.lambda * per)} (${fmtInt(invocations.length * per)} invocations; durations modelled from each invocation's port calls at AWS latencies, bench/lib/cost.ts modelledMs, at ${consumerOf('fanout')}'s ${memoryMbOf(consumerOf('fanout'))} MB and ${consumerOf('send')}'s ${memoryMbOf(consumerOf('send'))} MB), ` +
          `S3 ${usd(cost.s3 * per)}, API Gateway ${usd(cost.api * per)}. **SES itself: ${usd(ses * per)}** (${fmtInt(u.ses * per)} emails): Postbox's own AWS cost is ${fmt((100 * total) / ses, 1)} % on top of SES's. ` +
          `The broadcast item each chunk count rewrites holds no content (it is on its own item), so those writes are one unit each. ${priceNote}`,
      ].join('\n');
    } finally {
      await Promise.all(pollers.map((p) => p.stop()));
      await b.close();
    }
  },
};
