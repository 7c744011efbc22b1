// The soft cap's alert, once per cap and month however many sends race past it: the send worker
// mails the account's address and publishes usage.soft_cap_reached. And usage's broadcast count.
import { beforeEach, describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { createKey } from '../../shared/accounts/api-keys/service';
import { keys } from '../../shared/db/keys';
import type { SendJob } from '../../shared/sending/messages/messages';
import { acceptSends } from '../../shared/sending/messages/send';
import type { SoftCapAlertJob } from '../../shared/billing/spend-caps/alert';
import type { EventJob } from '../../shared/webhooks/messages';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut, deliverWebhook } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
let accountId: string;
let adminKey: string;
beforeEach(() => {
  accountId = bed.account.account_id;
  adminKey = bed.account.admin_key;
  bed.c.http = new GuardedHttp({ allowPrivate: false });
});

let sequence = 0;
const email = () => ({
  channel: 'email',
  idempotency_key: `alert-${++sequence}`,
  destination: { email: 'reader@example.com' },
  payload: { subject: 'Hi', body_text: 'Hello' },
  metadata: { from_email: 'hello@acme.test' },
});
const putCap = (body: unknown) => bed.request({ method: 'PUT', path: '/v1/spend-caps', key: adminKey, body });
const send = (key = bed.sendKey) => bed.request({ method: 'POST', path: '/v1/send', key, body: email() });
const alertJobs = () => bed.c.sent.filter((s) => s.queue === 'send' && (s.body as { kind?: string }).kind === 'soft_cap_alert').map((s) => s.body as SoftCapAlertJob);
const runWorker = async (jobs: unknown[]) => expect(await sendWorker(sqsEvent(jobs.map((job) => sqsRecord(job))))).toEqual({ batchItemFailures: [] });
const usage = (query: Record<string, string> = {}) => bed.request({ method: 'GET', path: '/v1/usage', key: bed.readKey, query });

describe('the soft cap alert', () => {
  it('is queued once, by the send that reaches the soft limit, and mails the account and publishes usage.soft_cap_reached', async () => {
    const hook = await bed.request({ method: 'POST', path: '/v1/webhooks', key: adminKey, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['usage.soft_cap_reached'] } });
    expect(hook.status).toBe(201);
    const cap = await putCap({ soft_limit_micros: 200 });
    expect((await send()).status).toBe(201);
    expect(alertJobs()).toEqual([]);
    const reaching = await send();
    await send();

    expect(alertJobs()).toEqual([
      {
        kind: 'soft_cap_alert',
        account_id: accountId,
        spend_cap_id: cap.body.id,
        key_id: null,
        period: '2026-03',
        soft_limit_micros: 200,
        spent_micros: 200,
        message_id: reaching.body.id,
        occurred_at: expect.any(String),
      },
    ]);
    const jobs = alertJobs();
    bed.c.sent.length = 0;
    await runWorker(jobs);

    expect(bed.c.mailed).toEqual([
      expect.objectContaining({ from: 'onboarding@sandbox.test', to: 'owner@example.com', subject: 'Soft spend cap reached for 2026-03', accountId }),
    ]);
    expect(bed.c.mailed[0]!.text).toContain('$0.000200 spent against a soft cap of $0.000200');
    const events = bed.c.sent.filter((s) => s.queue === 'webhooks').map((s) => (s.body as EventJob).envelope);
    expect(events).toEqual([
      {
        event_id: `evt_softcap_${cap.body.id}_2026-03`,
        event_type: 'usage.soft_cap_reached',
        message_id: reaching.body.id,
        account_id: accountId,
        payload: { spend_cap_id: cap.body.id, key_id: null, period: '2026-03', soft_limit_micros: 200, spent_micros: 200 },
        occurred_at: expect.any(String),
        created_at: expect.any(String),
      },
    ]);
    // The webhook worker takes it like any event: one delivery for the subscription, one attempt queued.
    const eventJobs = bed.c.sent.filter((s) => s.queue === 'webhooks').map((s) => s.body);
    bed.c.sent.length = 0;
    expect(await deliverWebhook(sqsEvent(eventJobs.map((job) => sqsRecord(job))))).toEqual({ batchItemFailures: [] });
    expect(bed.c.sent.map((s) => s.body)).toEqual([
      { kind: 'attempt', account_id: accountId, subscription_id: hook.body.id, delivery_id: `dlv_softcap_${cap.body.id}_2026-03`, attempt: 1 },
    ]);
  });

  it('goes once however many sends race past the soft limit, and again next month', async () => {
    await putCap({ soft_limit_micros: 500 });
    const sender = { accountId, keyId: 'key_racing', testMode: false };

    const outcomes = (await Promise.all(Array.from({ length: 30 }, () => acceptSends(bed.c, sender, [email()], { batch: false })))).flat();
    const march = alertJobs();
    bed.c.clock.set('2026-04-01T00:00:01.000Z');
    await acceptSends(bed.c, sender, [email()], { batch: false });
    await acceptSends(bed.c, sender, [email(), email(), email(), email(), email()], { batch: true });

    expect(outcomes.every((o) => o.kind === 'accepted')).toBe(true);
    expect(march).toHaveLength(1);
    expect(march[0]).toMatchObject({ period: '2026-03', spent_micros: expect.any(Number) });
    expect(march[0]!.spent_micros).toBeGreaterThanOrEqual(500);
    expect(alertJobs().map((j) => [j.period, j.spent_micros])).toEqual([
      ['2026-03', march[0]!.spent_micros],
      ['2026-04', 600],
    ]);
  });

  it('a key cap alerts on that key\'s own spend, apart from the account cap', async () => {
    const key = await createKey(bed.c, accountId, { scope: 'send' }, { testMode: false });
    const keyCap = await putCap({ key_id: key.id, soft_limit_micros: 100 });
    await putCap({ soft_limit_micros: 300 });

    await send(key.key);
    await send();
    await send(key.key);

    expect(alertJobs().map((j) => [j.spend_cap_id, j.key_id, j.spent_micros])).toEqual([
      [keyCap.body.id, key.id, 100],
      [expect.stringMatching(/^spc_/), null, 300],
    ]);
  });

  it('is never raised by test-mode sends, which cost nothing', async () => {
    await putCap({ soft_limit_micros: 0, hard_limit_micros: 0 });

    for (let i = 0; i < 3; i++) expect((await send(bed.account.test_admin_key)).status).toBe(201);

    expect(alertJobs()).toEqual([]);
  });

  it('still publishes the event for an account without an address, and mails nothing', async () => {
    // Raw on purpose: no use case takes an account's address away; the testbed's account loses it here.
    await bed.c.store.update(keys.account(accountId), { expression: 'SET email = :none', values: { ':none': null } });
    await bed.request({ method: 'POST', path: '/v1/webhooks', key: adminKey, body: { endpoint_url: 'https://93.184.216.34/hook' } });
    await putCap({ soft_limit_micros: 100 });
    await send();
    const jobs = alertJobs();
    bed.c.sent.length = 0;

    await runWorker(jobs);

    expect(jobs).toHaveLength(1);
    expect(bed.c.mailed).toEqual([]);
    expect(bed.c.sent.map((s) => (s.body as EventJob).envelope?.event_type)).toEqual(['usage.soft_cap_reached']);
  });

  it('a subscription may ask for usage.soft_cap_reached alone', async () => {
    const res = await bed.request({ method: 'POST', path: '/v1/webhooks', key: adminKey, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['usage.soft_cap_reached'] } });

    expect(res.status).toBe(201);
    expect(res.body.event_types).toEqual(['usage.soft_cap_reached']);
  });
});

describe('usage per channel', () => {
  it('shows broadcast sends apart: total_send_count stays transactional, the cost covers both', async () => {
    const single = await send();
    const bulk = await bed.request({
      method: 'POST',
      path: '/v1/send/bulk',
      key: bed.sendKey,
      body: { from_email: 'news@acme.test', subject: 'News', body_text: 'News', recipients: [{ email: 'a@example.com' }, { email: 'b@example.com' }] },
    });
    await drain(bed.c.sent, 'fanout', fanOut, { where: (body) => 'chunk' in body });
    expect(bulk.status).toBe(202);
    await runWorker(bed.c.sent.filter((s) => s.queue === 'send').map((s) => s.body as SendJob));

    const res = await usage();

    expect(single.status).toBe(201);
    expect(res.body).toMatchObject({ total_send_count: 1, broadcast_send_count: 2, total_cost_micros: 300 });
    expect(res.body.channels[0]).toEqual({ channel: 'email', send_count: 1, broadcast_send_count: 2, cost_micros: 300 });
  });

  it('a webhook-channel send costs nothing and is never capped', async () => {
    await bed.request({ method: 'PUT', path: '/v1/account/channels/webhook', key: adminKey, body: { enabled: true } });
    await putCap({ hard_limit_micros: 0 });

    const res = await bed.request({
      method: 'POST',
      path: '/v1/send',
      key: bed.sendKey,
      body: { channel: 'webhook', idempotency_key: `hook-${++sequence}`, destination: { url: 'https://93.184.216.34/in' }, payload: { data: { a: 1 } } },
    });

    expect(res.status).toBe(201);
    expect((await usage()).body.total_cost_micros).toBe(0);
  });
});
