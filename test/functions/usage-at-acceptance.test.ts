// Usage counted where a send's cost is reserved (issue 31 item 5): GET /v1/usage counts a live send
// when it is accepted, in the same write as its cost, transactional or broadcast by its message, and
// gives the count back, in the month it was accepted in, when the send turns out unbillable
// (suppressed or failed at dispatch, canceled, never stored). The send worker writes no usage.
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { FanOutJob } from '../../shared/audiences/broadcasts/messages';
import { keys } from '../../shared/db/keys';
import type { UsageItem } from '../../shared/billing/usage/repository';
import type { SendJob } from '../../shared/sending/messages/messages';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { storeCommandsDuring } from '../support/store-commands';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { fanOut, sendWorker } from '../support/consumers';
import { useLoopbackReceiver } from '../support/webhook-receiver';

const bed = useTestbed({ scopedKeys: true });
const loopback = useLoopbackReceiver(bed);
afterEach(() => vi.restoreAllMocks());

let sequence = 0;
const email = emailSends('count');
const hook = () => ({ channel: 'webhook', idempotency_key: `hook-${++sequence}`, destination: { url: `${loopback.receiver.url}/in` }, payload: { data: { order: 42 } } });

async function send(body: unknown = email(), key = bed.sendKey): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/send', key, body });
  expect(res.status).toBe(201);
  return res.body.id as string;
}

/** GET /v1/usage for `period` (the current one by default), as email and webhook counts. */
async function counts(period?: string) {
  const res = await bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey, query: period ? { period } : {} });
  expect(res.status).toBe(200);
  const row = (channel: string) => res.body.channels.find((r: { channel: string }) => r.channel === channel);
  return { email: row('email').send_count, broadcast: row('email').broadcast_send_count, webhook: row('webhook').send_count, cost: res.body.total_cost_micros };
}

const jobsOf = (ids: string[]) => bed.c.sent.filter((s) => s.queue === 'send' && ids.includes((s.body as SendJob).message_id)).map((s) => s.body as SendJob);
async function work(ids: string[]): Promise<void> {
  expect(await sendWorker(sqsEvent(jobsOf(ids).map((job) => sqsRecord(job))))).toEqual({ batchItemFailures: [] });
}
const enableWebhookChannel = async () =>
  expect((await bed.request({ method: 'PUT', path: '/v1/account/channels/webhook', key: bed.account.admin_key, body: { enabled: true } })).status).toBe(200);
const suppress = async (recipient: string) =>
  expect((await bed.request({ method: 'POST', path: '/v1/suppressions', key: bed.sendKey, body: { channel: 'email', recipient } })).status).toBe(201);
const usageCommands = async (run: () => Promise<unknown>) => (await storeCommandsDuring(bed.c.store, run)).filter((c) => String(c.input.Key?.sk ?? '').startsWith('USAGE#'));

describe('a live send', () => {
  it('is counted, with its cost, as it is accepted: a queued send the worker has not taken yet counts', async () => {
    await send();
    await send(email({ scheduled_at: new Date(bed.c.clock.now().getTime() + 3600_000).toISOString() }));

    expect(await counts()).toEqual({ email: 2, broadcast: 0, webhook: 0, cost: 200 });
    expect(bed.c.mailed).toHaveLength(0);
  });

  it('is counted in the acceptance’s one usage write, and the send worker writes no usage for it', async () => {
    let id = '';
    const atAcceptance = await usageCommands(async () => (id = await send()));
    const atSend = await usageCommands(() => work([id]));

    expect(atAcceptance.map((c) => c.name)).toEqual(['UpdateCommand']);
    expect(bed.c.mailed).toHaveLength(1);
    expect(atSend).toEqual([]);
    expect(await counts()).toEqual({ email: 1, broadcast: 0, webhook: 0, cost: 100 });
  });

  it('suppressed at dispatch, or failed there, is counted and then given back to 0', async () => {
    const suppressed = await send(email({ destination: { email: 'later-gone@example.com' } }));
    const failing = await send();
    await suppress('later-gone@example.com');
    expect(await counts()).toMatchObject({ email: 2, cost: 200 });

    await work([suppressed]);
    bed.c.mailerFailure = new Error('provider unavailable');
    expect(await sendWorker(sqsEvent(jobsOf([failing]).map((job) => sqsRecord(job, 5))))).toEqual({ batchItemFailures: [] });
    // Delivered again after it was decided: given back once only.
    await work([suppressed]);

    expect(bed.c.mailed).toHaveLength(0);
    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });
  });

  it('canceled while scheduled gives its count back, once', async () => {
    const id = await send(email({ scheduled_at: new Date(bed.c.clock.now().getTime() + 3600_000).toISOString() }));
    const cancel = () => bed.request({ method: 'POST', path: `/v1/messages/${id}/cancel`, key: bed.account.admin_key });
    expect(await counts()).toMatchObject({ email: 1, cost: 100 });

    expect((await cancel()).status).toBe(200);
    expect((await cancel()).status).toBe(404);

    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });
  });

  it('whose message could not be stored is given back, and its retry counts once', async () => {
    const body = email();
    const put = bed.c.store.doc.send.bind(bed.c.store.doc);
    vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: Record<string, any> }) =>
      command.constructor.name === 'PutCommand' && command.input.Item?.entity === 'message' ? Promise.reject(new Error('connection reset')) : put(command as never)) as never);
    const failed = await bed.request({ method: 'POST', path: '/v1/send', key: bed.sendKey, body });
    vi.restoreAllMocks();
    expect(failed.status).toBe(500);
    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });

    await send(body);
    await send(body);

    expect(await counts()).toEqual({ email: 1, broadcast: 0, webhook: 0, cost: 100 });
  });

  it('in test mode is never counted', async () => {
    await send(email(), bed.account.test_admin_key);

    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });
  });
});

describe('a broadcast’s sends', () => {
  it('count as broadcast when fanned out, and one suppressed at dispatch is given back as broadcast', async () => {
    const recipients = ['a@example.com', 'b@example.com', 'c@example.com'].map((address) => ({ email: address }));
    const res = await bed.request({ method: 'POST', path: '/v1/send/bulk', key: bed.sendKey, body: { from_email: 'news@acme.test', subject: 'News', body_text: 'News', recipients } });
    expect(res.status).toBe(202);
    await drain(bed.c.sent, 'fanout', fanOut, { where: (job: FanOutJob) => job.broadcast_id === res.body.id });
    const ids = bed.c.sent.filter((s) => s.queue === 'send').map((s) => (s.body as SendJob).message_id);
    expect(await counts()).toEqual({ email: 0, broadcast: 3, webhook: 0, cost: 300 });

    await suppress('b@example.com');
    await work(ids);

    expect(bed.c.mailed).toHaveLength(2);
    expect(await counts()).toEqual({ email: 0, broadcast: 2, webhook: 0, cost: 200 });
  });
});

describe('the webhook channel, which costs nothing', () => {
  it('is counted at acceptance without a spend of 0, and the POST adds no usage write', async () => {
    await enableWebhookChannel();
    const id = await send(hook());
    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 1, cost: 0 });
    const item = await bed.c.store.get<UsageItem>(keys.usage(bed.account.account_id, bed.c.clock.now().toISOString().slice(0, 7)));
    expect(Object.keys(item ?? {}).filter((k) => k.includes('spent') || k.startsWith('cost_'))).toEqual([]);

    const atSend = await usageCommands(() => work([id]));

    expect(loopback.receiver.requests).toHaveLength(1);
    expect(atSend).toEqual([]);
    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 1, cost: 0 });
  });

  it('gives the count back when the POST fails, once however often the job comes back', async () => {
    await enableWebhookChannel();
    loopback.receiver.reply({ status: 500 });
    const id = await send(hook());
    expect(await counts()).toMatchObject({ webhook: 1 });

    await work([id]);
    await work([id]);

    expect(await counts()).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });
  });
});

describe('a month’s end', () => {
  it('leaves a send in the month it was accepted in: sent or given back in the next, the next month is untouched', async () => {
    bed.c.clock.set('2026-05-31T23:59:00.000Z');
    const queued = await send();
    const scheduled = await send(email({ scheduled_at: '2026-06-01T08:00:00.000Z' }));
    bed.c.clock.set('2026-06-01T00:05:00.000Z');

    await work([queued]);
    expect((await bed.request({ method: 'POST', path: `/v1/messages/${scheduled}/cancel`, key: bed.account.admin_key })).status).toBe(200);

    expect(bed.c.mailed).toHaveLength(1);
    expect(await counts('2026-05')).toEqual({ email: 1, broadcast: 0, webhook: 0, cost: 100 });
    expect(await counts('2026-06')).toEqual({ email: 0, broadcast: 0, webhook: 0, cost: 0 });
  });
});
