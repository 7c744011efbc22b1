// The send worker's batch: what its messages share (the account read, the suppressions of the
// recipients its jobs name, the webhook subscriptions) and its counters (a broadcast's `sent` with each
// send, the reputation's sends summed and written once at the batch's end), for events stored for the
// first time only: a redelivered batch adds nothing. Usage was counted at acceptance: no write here.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { FanOutJob } from '../../shared/audiences/broadcasts/messages';
import { getUsage } from '../../shared/billing/usage/service';
import { readWindow } from '../../shared/billing/reputation/service';
import { suppress } from '../../shared/sending/suppressions/service';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { call } from '../support/api';
import { type TestContainer } from '../support/container';
import { drain, sqsEvent, sqsRecord, takeJobs } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { fanOut, sendWorker } from '../support/consumers';
import { storeCommandsDuring } from '../support/store-commands';

let c: TestContainer;
const bed = useTestbed({ scopedKeys: true });
beforeEach(() => {
  c = bed.c;
});
afterEach(() => vi.restoreAllMocks());

type Command = { constructor: { name: string }; input: Record<string, any> };
type SendJobBody = { message_id: string; account_id: string; recipient?: string; channel?: string };

/** The store commands sent while `run` runs, by command name and key (or, for a query, its partition). */
async function commandsOf(run: () => Promise<unknown>): Promise<string[]> {
  const first = (k: unknown) => String(k ?? '').split('#')[0];
  return (await storeCommandsDuring(c.store, run)).map(({ name, input }) => {
    const values = input.ExpressionAttributeValues ?? {};
    const where = input.Key
      ? `${first(input.Key.pk)}/${first(input.Key.sk)}`
      : input.KeyConditionExpression
        ? `${first(values[':pk'])}/${first(values[':prefix'])}`
        : Object.values(input.RequestItems ?? {}).flatMap((r: any) => (r.Keys ?? []).map((k: any) => `${first(k.pk)}/${first(k.sk)}`))[0];
    return `${name} ${where}`;
  });
}
const count = (seen: string[], what: string) => seen.filter((s) => s === what).length;

/** A bulk send to `recipients`, fanned out: its send jobs, not yet handled. */
async function bulk(recipients: string[]): Promise<{ broadcastId: string; jobs: SendJobBody[] }> {
  const res = await call({ method: 'POST', path: '/v1/send/bulk', key: bed.sendKey, body: { from_email: 'news@acme.test', subject: 'News', body_text: 'News', recipients: recipients.map((email) => ({ email })) } });
  expect(res.status).toBe(202);
  const broadcastId: string = res.body.id;
  await drain(c.sent, 'fanout', fanOut, { where: (body: FanOutJob) => body.broadcast_id === broadcastId });
  return { broadcastId, jobs: takeJobs(c.sent, 'send') as SendJobBody[] };
}

const stats = async (broadcastId: string) => {
  const res = await call({ method: 'GET', path: `/v1/broadcasts/${broadcastId}`, key: bed.readKey });
  expect(res.status).toBe(200);
  return res.body.stats as Record<string, number>;
};
const tenRecipients = Array.from({ length: 10 }, (_, i) => `reader${i}@example.com`);

describe('a batch of ten messages of one broadcast', () => {
  it('adds 10 to its stats with each send and to its reputation sends with one write, and writes no usage', async () => {
    const { broadcastId, jobs } = await bulk(tenRecipients);
    expect(jobs).toHaveLength(10);
    expect(jobs.every((j) => j.channel === 'email' && tenRecipients.includes(j.recipient ?? ''))).toBe(true);
    const hook = await call({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['sent'] } });
    expect(hook.status).toBe(201);

    let out: Awaited<ReturnType<typeof sendWorker>> | undefined;
    const seen = await commandsOf(async () => (out = await sendWorker(sqsEvent(jobs.map((j) => sqsRecord(j))))));

    expect(out?.batchItemFailures).toEqual([]);
    expect(c.mailed).toHaveLength(10);
    // Per message: the take (one conditional write that answers the message, no read before it) and the `sent` with its status move.
    expect(seen.filter((s) => s.startsWith('QueryCommand MSG') || s.startsWith('GetCommand MSG'))).toEqual([]);
    expect(count(seen, 'UpdateCommand MSG/MSG')).toBe(20);
    // The stats are shown: each written with its send, so a crash loses no batch of them. Usage was counted at acceptance.
    expect(count(seen, 'UpdateCommand BSTATS/BSTATS')).toBe(10);
    expect(seen.filter((s) => s.includes('ACCT/USAGE'))).toEqual([]);
    expect(count(seen, 'UpdateCommand ACCT/REPUTATION')).toBe(1);
    // The broadcast's `sent` has no marker of its own: its event, stored once on the message, is what counts.
    expect(seen.filter((s) => s.startsWith('PutCommand MSG/BSTAT') || s.startsWith('GetCommand MSG/BSTAT'))).toEqual([]);
    // The recipients' suppressions in one read, the account and its subscriptions looked up once.
    expect(count(seen, 'BatchGetCommand ACCT/SUPP')).toBe(1);
    expect(count(seen, 'GetCommand ACCT/SUPP')).toBe(0);
    expect(count(seen, 'GetCommand ACCT/ACCOUNT')).toBe(1);
    expect(count(seen, 'QueryCommand ACCT/WEBHOOK')).toBe(1);
    // Every `sent` still goes to the webhooks.
    expect(c.sent.filter((s) => s.queue === 'webhooks')).toHaveLength(10);

    expect(await stats(broadcastId)).toMatchObject({ total: 10, sent: 10 });
    const usage = await getUsage(c, bed.account.account_id);
    expect(usage.broadcast_send_count).toBe(10);
    expect(usage.total_send_count).toBe(0);
    expect((await readWindow(c, { id: bed.account.account_id })).sends).toBe(10);
  });

  it('adds nothing when the batch is delivered again, or again with a message’s job twice in it', async () => {
    const { broadcastId, jobs } = await bulk(tenRecipients);
    const records = jobs.map((j) => sqsRecord(j));
    await sendWorker(sqsEvent(records));

    let again: Awaited<ReturnType<typeof sendWorker>> | undefined;
    const seen = await commandsOf(async () => (again = await sendWorker(sqsEvent([...records.map((r) => ({ ...r, attributes: { ...r.attributes, ApproximateReceiveCount: '2' } })), sqsRecord(jobs[0])]))));

    expect(again?.batchItemFailures).toEqual([]);
    expect(c.mailed).toHaveLength(10);
    expect(seen.filter((s) => s.startsWith('UpdateCommand BSTATS') || s === 'UpdateCommand ACCT/USAGE' || s === 'UpdateCommand ACCT/REPUTATION')).toEqual([]);
    expect(await stats(broadcastId)).toMatchObject({ total: 10, sent: 10 });
    expect((await getUsage(c, bed.account.account_id)).broadcast_send_count).toBe(10);
    expect((await readWindow(c, { id: bed.account.account_id })).sends).toBe(10);
  });

  it('counts two broadcasts and transactional sends apart, the reputation sends summed in one write', async () => {
    const first = await bulk(tenRecipients.slice(0, 4));
    const second = await bulk(tenRecipients.slice(4, 7));
    const single = await call({ method: 'POST', path: '/v1/send', key: bed.sendKey, body: { channel: 'email', idempotency_key: 'one', destination: { email: 'solo@example.com' }, payload: { subject: 'Hi', body_text: 'hi' }, metadata: { from_email: 'hi@acme.test' } } });
    expect(single.status).toBe(201);
    const jobs = [...first.jobs, ...second.jobs, ...(takeJobs(c.sent, 'send') as SendJobBody[])];

    const seen = await commandsOf(() => sendWorker(sqsEvent(jobs.map((j) => sqsRecord(j)))));

    expect(count(seen, 'UpdateCommand BSTATS/BSTATS')).toBe(7);
    expect(seen.filter((s) => s.includes('ACCT/USAGE'))).toEqual([]);
    expect(count(seen, 'UpdateCommand ACCT/REPUTATION')).toBe(1);
    expect(await stats(first.broadcastId)).toMatchObject({ sent: 4 });
    expect(await stats(second.broadcastId)).toMatchObject({ sent: 3 });
    const usage = await getUsage(c, bed.account.account_id);
    expect([usage.broadcast_send_count, usage.total_send_count]).toEqual([7, 1]);
    expect((await readWindow(c, { id: bed.account.account_id })).sends).toBe(8);
  });
});

describe('the batch’s reads', () => {
  it('finds a recipient suppressed after acceptance through the batch’s one read, and one whose job names no recipient through its own', async () => {
    const { jobs } = await bulk(tenRecipients.slice(0, 3));
    await suppress(c, bed.account.account_id, { channel: 'email', recipient: 'reader1@example.com', reason: 'manual' });
    await suppress(c, bed.account.account_id, { channel: 'email', recipient: 'reader2@example.com', reason: 'manual' });
    // An older job's shape: ids only.
    const older = jobs.map((j) => (j.recipient === 'reader2@example.com' ? { message_id: j.message_id, account_id: j.account_id } : j));

    let out: Awaited<ReturnType<typeof sendWorker>> | undefined;
    const seen = await commandsOf(async () => (out = await sendWorker(sqsEvent(older.map((j) => sqsRecord(j))))));

    expect(out?.batchItemFailures).toEqual([]);
    expect([count(seen, 'BatchGetCommand ACCT/SUPP'), count(seen, 'GetCommand ACCT/SUPP')]).toEqual([1, 1]);
    expect(c.mailed.map((m) => m.to)).toEqual(['reader0@example.com']);
    for (const job of jobs.filter((j) => j.recipient !== 'reader0@example.com')) {
      expect((await readTimeline(c.store, job.message_id)).message?.status).toBe('suppressed');
    }
  });
});

describe('a send job that names another recipient than its message’s', () => {
  it('is not trusted: its message’s own recipient is checked and mailed, and a suppressed one is not mailed', async () => {
    const { jobs } = await bulk(tenRecipients.slice(0, 2));
    await suppress(c, bed.account.account_id, { channel: 'email', recipient: 'reader1@example.com', reason: 'manual' });
    // reader1's job says reader0, who is not suppressed; reader0's job says a stranger.
    const lying = jobs.map((j) => ({ ...j, recipient: j.recipient === 'reader1@example.com' ? 'reader0@example.com' : 'stranger@example.com' }));

    const out = await sendWorker(sqsEvent(lying.map((j) => sqsRecord(j))));

    expect(out.batchItemFailures).toEqual([]);
    expect(c.mailed.map((m) => m.to)).toEqual(['reader0@example.com']);
    const reader1 = jobs.find((j) => j.recipient === 'reader1@example.com')!;
    expect((await readTimeline(c.store, reader1.message_id)).message?.status).toBe('suppressed');
  });
});

describe('a counter write that fails at the batch’s end', () => {
  it('is logged with what it lost; the records stand, the other counters are written, and a redelivery adds nothing', async () => {
    const { broadcastId, jobs } = await bulk(tenRecipients.slice(0, 2));
    const send = c.store.doc.send.bind(c.store.doc);
    vi.spyOn(c.store.doc, 'send').mockImplementation(((command: Command) =>
      command.constructor.name === 'UpdateCommand' && String(command.input.Key?.sk).startsWith('REPUTATION#') ? Promise.reject(new Error('connection reset')) : send(command as never)) as never);

    const records = jobs.map((j) => sqsRecord(j));
    const out = await sendWorker(sqsEvent(records));
    vi.restoreAllMocks();
    // As after a crash between the events' writes and the batch's end: the retry finds them stored.
    const again = await sendWorker(sqsEvent(records));

    expect(out.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    expect(c.logs.some((l) => l.level === 'error' && String(l.msg).includes('could not write a counter'))).toBe(true);
    expect(await stats(broadcastId)).toMatchObject({ sent: 2 });
    expect((await getUsage(c, bed.account.account_id)).broadcast_send_count).toBe(2);
    // Short, never double: the lost adds are not made again.
    expect((await readWindow(c, { id: bed.account.account_id })).sends).toBe(0);
    expect(c.mailed).toHaveLength(2);
  });
});
