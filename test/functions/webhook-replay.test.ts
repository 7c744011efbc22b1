// Webhook self-service (issue 32): a test event, replaying one delivery, replaying every exhausted
// one. Through the API and the real webhook worker, to a real HTTP receiver on loopback; every
// request's signature is checked with the subscription's secret.
import { createHmac } from 'node:crypto';
import { beforeEach, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import type { DeliveryItem } from '../../shared/webhooks/repository';
import { call } from '../support/api';
import type { Receiver, RecordedRequest } from '../support/receivers';
import { useLoopbackReceiver } from '../support/webhook-receiver';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { deliverWebhook } from '../support/consumers';

let receiver: Receiver;
const bed = useTestbed();
// The receiver listens on loopback: allowed before each test, refused again after.
const loopback = useLoopbackReceiver(bed);
beforeEach(() => {
  receiver = loopback.receiver;
});

async function subscribe(key = bed.account.admin_key): Promise<{ id: string; signing_secret: string }> {
  bed.c.clock.advance(150);
  const res = await call({ method: 'POST', path: '/v1/webhooks', key, body: { endpoint_url: `${receiver.url}/hook`, event_types: ['bounced'] } });
  expect(res.status).toBe(201);
  return res.body;
}

const drainWebhooks = (limit = 50) => drain(bed.c.sent, 'webhooks', deliverWebhook, { limit });

const log = async (subscriptionId: string): Promise<DeliveryItem[]> =>
  (await bed.c.store.query<DeliveryItem>({ keyCondition: 'pk = :pk', values: { ':pk': keys.deliveriesPartition(subscriptionId) }, ascending: true })).items;

function expectSigned(request: RecordedRequest | undefined, secret: string): void {
  const h = request?.headers ?? {};
  const expected = createHmac('sha256', secret).update(`${h['service-timestamp']}.${request?.body.toString('utf8')}`).digest('hex');
  expect(h['service-signature']).toBe(expected);
}

const post = (path: string, key = bed.account.admin_key) => call({ method: 'POST', path, key });

describe('POST /v1/webhooks/{id}/test', () => {
  it('delivers a signed webhook.test envelope to that subscription, whatever its event types, and logs it', async () => {
    const sub = await subscribe();

    const res = await post(`/v1/webhooks/${sub.id}/test`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^dlv_/), subscription_id: sub.id, event_type: 'webhook.test', status: 'pending', attempt_count: 0 });
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const envelope = JSON.parse(request?.body.toString('utf8') ?? '');
    expect(envelope).toEqual({
      event_id: res.body.event_id,
      event_type: 'webhook.test',
      message_id: '',
      account_id: bed.account.account_id,
      payload: { test: true, subscription_id: sub.id, note: expect.any(String) },
      occurred_at: expect.any(String),
      created_at: expect.any(String),
    });
    expect(request?.headers['service-event-type']).toBe('webhook.test');
    expectSigned(request, sub.signing_secret);
    const listed = await call({ method: 'GET', path: `/v1/webhooks/${sub.id}/deliveries`, key: bed.account.admin_key });
    expect(listed.body.deliveries).toEqual([expect.objectContaining({ id: res.body.id, status: 'succeeded', event_type: 'webhook.test', attempt_count: 1 })]);
  });
});

describe('POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay', () => {
  it('is a new delivery of the same body and event id, with a fresh timestamp and signature; the original stays as it ended', async () => {
    const sub = await subscribe();
    const first = (await post(`/v1/webhooks/${sub.id}/test`)).body;
    await drainWebhooks();
    bed.c.clock.advance(60_000);

    const res = await post(`/v1/webhooks/${sub.id}/deliveries/${first.id}/replay`);
    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ event_id: first.event_id, event_type: 'webhook.test', status: 'pending' });
    expect(res.body.id).not.toBe(first.id);
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(2);
    const [a, b] = receiver.requests;
    expect(b?.body.equals(a?.body ?? Buffer.alloc(0))).toBe(true);
    expect(b?.headers['service-event-id']).toBe(first.event_id);
    expect(Number(b?.headers['service-timestamp'])).toBe(Number(a?.headers['service-timestamp']) + 60);
    expectSigned(b, sub.signing_secret);
    expect((await log(sub.id)).map((d) => [d.id, d.status])).toEqual([
      [first.id, 'succeeded'],
      [res.body.id, 'succeeded'],
    ]);
  });

  it('signs a replay with the secret current when it is attempted', async () => {
    const sub = await subscribe();
    const first = (await post(`/v1/webhooks/${sub.id}/test`)).body;
    await drainWebhooks();
    const rotated = (await post(`/v1/webhooks/${sub.id}/rotate-secret`)).body;

    await post(`/v1/webhooks/${sub.id}/deliveries/${first.id}/replay`);
    await drainWebhooks();

    expectSigned(receiver.requests[1], rotated.signing_secret);
  });

  it('answers 404 for an unknown, malformed or other subscription\'s delivery id', async () => {
    const sub = await subscribe();
    const other = await subscribe();
    const delivery = (await post(`/v1/webhooks/${other.id}/test`)).body;
    for (const id of ['dlv_01hzzzzzzzzzzzzzzzzzzzzzzz', 'not-an-id', delivery.id]) {
      const res = await post(`/v1/webhooks/${sub.id}/deliveries/${id}/replay`);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });
});

describe('POST /v1/webhooks/{id}/replay-failed', () => {
  it('replays each exhausted event once, and a second call while they are under way replays nothing', async () => {
    const sub = await subscribe();
    // Paused past the 24-hour window: the test event ends exhausted, never sent.
    expect((await call({ method: 'PUT', path: `/v1/webhooks/${sub.id}`, key: bed.account.admin_key, body: { is_active: false } })).status).toBe(200);
    const lost = (await post(`/v1/webhooks/${sub.id}/test`)).body;
    bed.c.clock.advance(24 * 3600_000 + 1000);
    await drainWebhooks();
    expect((await log(sub.id)).map((d) => d.status)).toEqual(['exhausted']);
    expect(receiver.requests).toHaveLength(0);
    expect((await call({ method: 'PUT', path: `/v1/webhooks/${sub.id}`, key: bed.account.admin_key, body: { is_active: true } })).status).toBe(200);

    const res = await post(`/v1/webhooks/${sub.id}/replay-failed`);
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ replayed: [expect.objectContaining({ event_id: lost.event_id, status: 'pending' })], has_more: false });
    // Under way: a second call leaves it to its delivery.
    expect((await post(`/v1/webhooks/${sub.id}/replay-failed`)).body).toEqual({ replayed: [], has_more: false });
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.headers['service-event-id']).toBe(lost.event_id);
    expectSigned(receiver.requests[0], sub.signing_secret);
    // Delivered now: the old exhausted record stays, and the event is not replayed again.
    expect((await log(sub.id)).map((d) => d.status)).toEqual(['exhausted', 'succeeded']);
    expect((await post(`/v1/webhooks/${sub.id}/replay-failed`)).body).toEqual({ replayed: [], has_more: false });
  });
});

describe('test mode', () => {
  it('a test-mode caller may test and replay only a subscription a test-mode caller made: a live one answers it 404', async () => {
    const live = await subscribe();
    const delivery = (await post(`/v1/webhooks/${live.id}/test`)).body;
    for (const path of [`/v1/webhooks/${live.id}/test`, `/v1/webhooks/${live.id}/replay-failed`, `/v1/webhooks/${live.id}/deliveries/${delivery.id}/replay`]) {
      const res = await post(path, bed.account.test_admin_key);
      expect(res.status).toBe(404);
    }
    const test = await subscribe(bed.account.test_admin_key);
    expect((await post(`/v1/webhooks/${test.id}/test`, bed.account.test_admin_key)).status).toBe(202);
    expect((await post(`/v1/webhooks/${test.id}/replay-failed`, bed.account.test_admin_key)).status).toBe(202);
  });
});
