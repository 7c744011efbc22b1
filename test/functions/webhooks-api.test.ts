// Webhook subscriptions end to end through the handler: the signing secret shown once and stored
// sealed, the URL guard on create and update, partial updates, rotation, deletion, the delivery
// log, scopes, and other accounts' subscriptions reported as not found.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { accountPartition, keys } from '../../shared/db/keys';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import type { DeliveryStatus } from '../../shared/webhooks/model';
import { DeliveryRepository, SubscriptionRepository, type NewDelivery, type SubscriptionItem } from '../../shared/webhooks/repository';
import { listMatchingSubscriptions, MAX_SUBSCRIPTIONS, signingSecretOf } from '../../shared/webhooks/subscriptions';
import { call } from '../support/api';
import type { HttpEventInput } from '../support/events';
import { useTestbed } from '../support/testbed';
import { expectInvalid } from '../support/errors';

const bed = useTestbed({ scopedKeys: true });
beforeEach(() => {
  bed.c.http = new GuardedHttp({ allowPrivate: false });
});

// A public IP literal: the guard accepts it without a DNS lookup, and nothing is ever sent to it.
const PUBLIC_URL = 'https://93.184.216.34/hook';
const OTHER_PUBLIC_URL = 'https://93.184.216.35/other';
const SECRET = /^[0-9a-f]{64}$/;

// Each request moves the clock on: ids and updated_at values differ and the account's 10 requests
// per second budget is never the thing under test.
const request = async (input: HttpEventInput) => {
  bed.c.clock.advance(150);
  return call(input);
};
const send = () => bed.sendKey;
const create = (body: unknown, key = send()) => request({ method: 'POST', path: '/v1/webhooks', key, body });
const list = (query: Record<string, string> = {}, key = send()) => request({ method: 'GET', path: '/v1/webhooks', key, query });
const get = (id: string, key = send()) => request({ method: 'GET', path: `/v1/webhooks/${id}`, key });
const update = (id: string, body: unknown, key = send()) => request({ method: 'PUT', path: `/v1/webhooks/${id}`, key, body });
const remove = (id: string, key = send()) => request({ method: 'DELETE', path: `/v1/webhooks/${id}`, key });
const rotate = (id: string, key = send()) => request({ method: 'POST', path: `/v1/webhooks/${id}/rotate-secret`, key });
const deliveries = (id: string, query: Record<string, string> = {}, key = send()) =>
  request({ method: 'GET', path: `/v1/webhooks/${id}/deliveries`, key, query });

async function subscribe(body: Record<string, unknown> = {}): Promise<{ id: string; signing_secret: string }> {
  const res = await create({ endpoint_url: PUBLIC_URL, ...body });
  expect(res.status).toBe(201);
  return res.body;
}

const stored = (id: string) => bed.c.store.get<SubscriptionItem>(keys.webhook(bed.account.account_id, id));
const storedPartition = async () =>
  JSON.stringify((await bed.c.store.query({ keyCondition: 'pk = :pk', values: { ':pk': accountPartition(bed.account.account_id) } })).items);

function expectNotFound(res: { status: number; body: any }): void {
  expect(res.status).toBe(404);
  expect(res.body.error).toMatchObject({ code: 'not_found', status: 404 });
}

describe('POST /v1/webhooks', () => {
  it('creates an active subscription to every type and shows a 64-hex signing secret once', async () => {
    const res = await create({ endpoint_url: PUBLIC_URL });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^whk_[0-9a-z]{26}$/),
      account_id: bed.account.account_id,
      endpoint_url: PUBLIC_URL,
      event_types: [],
      is_active: true,
      created_at: bed.c.clock.now().toISOString(),
      signing_secret: expect.stringMatching(SECRET),
    });
  });

  it('keeps the listed types once each, in the order given', async () => {
    const res = await create({ endpoint_url: PUBLIC_URL, event_types: ['bounced', 'email.received', 'bounced', 'delivered'] });

    expect(res.status).toBe(201);
    expect(res.body.event_types).toEqual(['bounced', 'email.received', 'delivered']);
  });

  it('stores the secret sealed, never in plaintext, and the worker can open it', async () => {
    const created = await subscribe();

    const item = await stored(created.id);
    expect(await storedPartition()).not.toContain(created.signing_secret);
    expect(item?.secret_sealed).toEqual(expect.any(String));
    expect(signingSecretOf(bed.c, item as SubscriptionItem)).toBe(created.signing_secret);
  });

  it('never shows the secret or its sealed form again in a read', async () => {
    const created = await subscribe();
    const sealed = (await stored(created.id))?.secret_sealed as string;

    const one = await get(created.id);
    const all = await list();

    expect(one.status).toBe(200);
    expect(all.status).toBe(200);
    for (const text of [JSON.stringify(one.body), JSON.stringify(all.body)]) {
      expect(text).not.toContain(created.signing_secret);
      expect(text).not.toContain(sealed);
      expect(text).not.toContain('signing_secret');
      expect(text).not.toContain('secret_sealed');
    }
  });

  it.each([
    [{ event_types: ['sent'] }, 'body.endpoint_url'],
    [{ endpoint_url: '' }, 'body.endpoint_url'],
    [{ endpoint_url: 42 }, 'body.endpoint_url'],
    [{ endpoint_url: `${PUBLIC_URL}/${'a'.repeat(2048)}` }, 'body.endpoint_url'],
    [{ endpoint_url: 'not a url' }, 'body.endpoint_url'],
    [{ endpoint_url: PUBLIC_URL, event_types: ['sent', 'nope'] }, 'body.event_types.1'],
    [{ endpoint_url: PUBLIC_URL, event_types: ['queued'] }, 'body.event_types.0'],
    [{ endpoint_url: PUBLIC_URL, event_types: ['suppressed'] }, 'body.event_types.0'],
    [{ endpoint_url: PUBLIC_URL, event_types: 'sent' }, 'body.event_types'],
    [{ endpoint_url: PUBLIC_URL, secret: 'mine' }, 'body'],
    [[PUBLIC_URL], 'body'],
  ])('answers 400 invalid_request for %j naming %s', async (body, field) => {
    expectInvalid(await create(body), field);
  });

  it('answers 400 when there is no body at all', async () => {
    expectInvalid(await create(undefined), 'body');
  });

  it.each([
    ['plain http', 'http://93.184.216.34/hook'],
    ['loopback', 'https://127.0.0.1/hook'],
    ['loopback IPv6', 'https://[::1]/hook'],
    ['private', 'https://10.0.0.8/hook'],
    ['cloud metadata', 'https://169.254.169.254/latest/meta-data/'],
    ['localhost by name', 'https://localhost/hook'],
  ])('refuses a %s endpoint with 400 naming body.endpoint_url and stores nothing', async (_what, url) => {
    const res = await create({ endpoint_url: url });

    expectInvalid(res, 'body.endpoint_url');
    expect(await storedPartition()).not.toContain('"entity":"webhook"');
  });

  it('takes a private endpoint when the deployment allows private addresses', async () => {
    bed.c.http = new GuardedHttp({ allowPrivate: true });

    const res = await create({ endpoint_url: 'http://127.0.0.1:9/hook' });

    expect(res.status).toBe(201);
    expect(res.body.endpoint_url).toBe('http://127.0.0.1:9/hook');
  });

  it(`holds at most ${MAX_SUBSCRIPTIONS} subscriptions per account`, async () => {
    for (let i = 0; i < MAX_SUBSCRIPTIONS; i++) await subscribe();

    const res = await create({ endpoint_url: PUBLIC_URL });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toContain(`at most ${MAX_SUBSCRIPTIONS}`);
  });
});

describe('GET /v1/webhooks', () => {
  it('lists the account subscriptions newest first, a page at a time', async () => {
    const first = await subscribe();
    const second = await subscribe({ event_types: ['sent'] });
    const third = await subscribe();

    const page1 = await list({ limit: '2' });
    const page2 = await list({ limit: '2', cursor: page1.body.next_cursor });

    expect(page1.status).toBe(200);
    expect(page1.body.webhooks.map((w: { id: string }) => w.id)).toEqual([third.id, second.id]);
    expect(page1.body.next_cursor).toEqual(expect.any(String));
    expect(page2.body).toEqual({ webhooks: [expect.objectContaining({ id: first.id })], next_cursor: null });
  });

  it('answers an empty list with next_cursor null and never shows another account', async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await create({ endpoint_url: PUBLIC_URL }, other.admin_key);

    const res = await list();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ webhooks: [], next_cursor: null });
  });
});

describe('GET /v1/webhooks/{id}', () => {
  it('answers the subscription without its secret', async () => {
    const created = await subscribe({ event_types: ['opened', 'clicked'] });

    const res = await get(created.id);

    expect(res.status).toBe(200);
    const { signing_secret: _secret, ...view } = created;
    expect(res.body).toEqual(view);
  });

  it.each([['an unknown id', 'whk_01jzzzzzzzzzzzzzzzzzzzzzzz'], ['a malformed id', 'nope'], ['an id of another type', 'key_01jzzzzzzzzzzzzzzzzzzzzzzz']])(
    'answers 404 not_found for %s',
    async (_what, id) => {
      expectNotFound(await get(id));
    },
  );
});

describe('PUT /v1/webhooks/{id}', () => {
  it('changes only the fields sent', async () => {
    const created = await subscribe({ event_types: ['sent', 'delivered'] });

    const paused = await update(created.id, { is_active: false });
    const moved = await update(created.id, { endpoint_url: OTHER_PUBLIC_URL });
    const retyped = await update(created.id, { event_types: ['bounced', 'bounced'] });

    expect(paused.status).toBe(200);
    expect(paused.body).toMatchObject({ is_active: false, endpoint_url: PUBLIC_URL, event_types: ['sent', 'delivered'] });
    expect(moved.body).toMatchObject({ is_active: false, endpoint_url: OTHER_PUBLIC_URL, event_types: ['sent', 'delivered'] });
    expect(retyped.body).toMatchObject({ is_active: false, endpoint_url: OTHER_PUBLIC_URL, event_types: ['bounced'] });
    expect(retyped.body).not.toHaveProperty('signing_secret');
    expect((await get(created.id)).body).toEqual(retyped.body);
    const item = await stored(created.id);
    expect(signingSecretOf(bed.c, item as SubscriptionItem)).toBe(created.signing_secret);
  });

  it('widens a subscription to every type with an empty event_types and resumes it', async () => {
    const created = await subscribe({ event_types: ['sent'] });
    await update(created.id, { is_active: false });

    const res = await update(created.id, { event_types: [], is_active: true });

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ event_types: [], is_active: true });
  });

  it('answers an empty body with the subscription unchanged', async () => {
    const created = await subscribe();
    const before = await stored(created.id);

    const res = await update(created.id, {});

    expect(res.status).toBe(200);
    expect(res.body).toEqual((await get(created.id)).body);
    expect(await stored(created.id)).toEqual(before);
  });

  it.each([
    ['https://127.0.0.1/hook'],
    ['https://169.254.169.254/latest/meta-data/'],
    ['http://93.184.216.34/hook'],
  ])('refuses the endpoint %s and changes nothing, not even the fields sent with it', async (url) => {
    const created = await subscribe();
    const before = await stored(created.id);

    const res = await update(created.id, { endpoint_url: url, is_active: false });

    expectInvalid(res, 'body.endpoint_url');
    expect(await stored(created.id)).toEqual(before);
  });

  it.each([
    [{ is_active: 'no' }, 'body.is_active'],
    [{ event_types: ['unknown'] }, 'body.event_types.0'],
    [{ endpoint_url: '' }, 'body.endpoint_url'],
    [{ signing_secret: 'a'.repeat(64) }, 'body'],
    [{ id: 'whk_01jzzzzzzzzzzzzzzzzzzzzzzz' }, 'body'],
  ])('answers 400 invalid_request for %j naming %s', async (body, field) => {
    const created = await subscribe();

    expectInvalid(await update(created.id, body), field);
  });

  it('answers 404 for an unknown subscription', async () => {
    expectNotFound(await update('whk_01jzzzzzzzzzzzzzzzzzzzzzzz', { is_active: false }));
  });
});

describe('DELETE /v1/webhooks/{id}', () => {
  it('removes the subscription for good', async () => {
    const created = await subscribe();

    const res = await remove(created.id);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ message: 'webhook deleted' });
    expectNotFound(await get(created.id));
    expectNotFound(await remove(created.id));
    expect(await stored(created.id)).toBeUndefined();
    // What stops in-flight retries: the worker finds no subscription to deliver for.
    expect(await new SubscriptionRepository(bed.c.store).get(bed.account.account_id, created.id)).toBeUndefined();
    expect(await listMatchingSubscriptions(bed.c.store, bed.account.account_id, 'sent')).toEqual([]);
  });
});

describe('POST /v1/webhooks/{id}/rotate-secret', () => {
  it('returns a new secret once and signs with it from then on', async () => {
    const created = await subscribe({ event_types: ['sent'] });

    const res = await rotate(created.id);

    expect(res.status).toBe(200);
    const { signing_secret: oldSecret, ...view } = created;
    expect(res.body).toEqual({ ...view, signing_secret: expect.stringMatching(SECRET) });
    expect(res.body.signing_secret).not.toBe(oldSecret);
    const item = await stored(created.id);
    expect(signingSecretOf(bed.c, item as SubscriptionItem)).toBe(res.body.signing_secret);
    const everything = (await storedPartition()) + JSON.stringify((await get(created.id)).body) + JSON.stringify((await list()).body);
    expect(everything).not.toContain(oldSecret);
    expect(everything).not.toContain(res.body.signing_secret);
  });

  it('answers 404 for an unknown subscription', async () => {
    expectNotFound(await rotate('whk_01jzzzzzzzzzzzzzzzzzzzzzzz'));
  });
});

describe('another account', () => {
  it('gets 404 not_found on every route of a subscription it does not own, and changes nothing', async () => {
    const created = await subscribe();
    const before = await stored(created.id);
    const stranger = (await createAccount(bed.c, { email: 'stranger@example.com' })).admin_key;

    expectNotFound(await get(created.id, stranger));
    expectNotFound(await update(created.id, { is_active: false }, stranger));
    expectNotFound(await update(created.id, {}, stranger));
    expectNotFound(await rotate(created.id, stranger));
    expectNotFound(await deliveries(created.id, {}, stranger));
    expectNotFound(await remove(created.id, stranger));

    expect(await stored(created.id)).toEqual(before);
  });
});

describe('GET /v1/webhooks/{id}/deliveries', () => {
  async function record(subscriptionId: string, status: DeliveryStatus, extra: Partial<NewDelivery> = {}): Promise<NewDelivery> {
    bed.c.clock.advance(1000);
    const id = bed.c.ids.next('dlv');
    const now = bed.c.clock.now().toISOString();
    const item: NewDelivery = {
      id,
      subscription_id: subscriptionId,
      account_id: bed.account.account_id,
      event_id: `evt_${id.slice(4)}`,
      event_type: 'delivered',
      status,
      attempt_count: status === 'pending' ? 0 : 1,
      response_status: status === 'succeeded' ? 200 : 0,
      body: '{"event_id":"secret-body"}',
      created_at: now,
      updated_at: now,
      ...extra,
    };
    expect(await new DeliveryRepository(bed.c.store).create(item)).toBe(true);
    return item;
  }

  it('lists the delivery records most recent first with the spec fields', async () => {
    const sub = await subscribe();
    const succeeded = await record(sub.id, 'succeeded');
    const failed = await record(sub.id, 'failed', { attempt_count: 3, response_status: 503, next_retry_at: '2026-03-01T13:00:00.000Z', last_error: 'HTTP 503' });
    // A stale next_retry_at left on an exhausted record is not a scheduled retry.
    const exhausted = await record(sub.id, 'exhausted', { attempt_count: 12, response_status: 500, next_retry_at: '2026-03-01T13:00:00.000Z' });

    const res = await deliveries(sub.id);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      deliveries: [
        {
          id: exhausted.id,
          subscription_id: sub.id,
          event_id: exhausted.event_id,
          event_type: 'delivered',
          status: 'exhausted',
          attempt_count: 12,
          response_status: 500,
          created_at: exhausted.created_at,
        },
        {
          id: failed.id,
          subscription_id: sub.id,
          event_id: failed.event_id,
          event_type: 'delivered',
          status: 'failed',
          attempt_count: 3,
          response_status: 503,
          next_retry_at: '2026-03-01T13:00:00.000Z',
          created_at: failed.created_at,
        },
        {
          id: succeeded.id,
          subscription_id: sub.id,
          event_id: succeeded.event_id,
          event_type: 'delivered',
          status: 'succeeded',
          attempt_count: 1,
          response_status: 200,
          created_at: succeeded.created_at,
        },
      ],
      next_cursor: null,
    });
  });

  it('pages with limit and a cursor bound to the subscription', async () => {
    const sub = await subscribe();
    const other = await subscribe();
    const records = [];
    for (let i = 0; i < 3; i++) records.push(await record(sub.id, 'succeeded'));
    await record(other.id, 'pending');

    const page1 = await deliveries(sub.id, { limit: '2' });
    const page2 = await deliveries(sub.id, { limit: '2', cursor: page1.body.next_cursor });
    const foreign = await deliveries(other.id, { limit: '2', cursor: page1.body.next_cursor });

    expect(page1.body.deliveries.map((d: { id: string }) => d.id)).toEqual([records[2]?.id, records[1]?.id]);
    expect(page2.body).toEqual({ deliveries: [expect.objectContaining({ id: records[0]?.id })], next_cursor: null });
    expectInvalid(foreign, 'cursor');
  });

  it('answers an empty log as an empty list', async () => {
    const sub = await subscribe();

    const res = await deliveries(sub.id);

    expect(res.body).toEqual({ deliveries: [], next_cursor: null });
  });

  it('answers 404 for an unknown subscription', async () => {
    expectNotFound(await deliveries('whk_01jzzzzzzzzzzzzzzzzzzzzzzz'));
  });
});

describe('scopes', () => {
  it('lets a read key read and refuses it every change', async () => {
    const sub = await subscribe();
    const read = bed.readKey;

    expect((await list({}, read)).status).toBe(200);
    expect((await get(sub.id, read)).status).toBe(200);
    expect((await deliveries(sub.id, {}, read)).status).toBe(200);
    for (const res of [
      await create({ endpoint_url: PUBLIC_URL }, read),
      await update(sub.id, { is_active: false }, read),
      await rotate(sub.id, read),
      await remove(sub.id, read),
    ]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect((await get(sub.id)).body.is_active).toBe(true);
  });

  it('lets an admin key manage subscriptions', async () => {
    const res = await create({ endpoint_url: PUBLIC_URL }, bed.account.admin_key);

    expect(res.status).toBe(201);
  });
});

describe('listMatchingSubscriptions (for the delivery worker)', () => {
  it('returns the active subscriptions that take the event type', async () => {
    const all = await subscribe();
    const sentOnly = await subscribe({ event_types: ['sent'] });
    await subscribe({ event_types: ['bounced'] });
    const paused = await subscribe();
    await update(paused.id, { is_active: false });

    const found = await listMatchingSubscriptions(bed.c.store, bed.account.account_id, 'sent');

    expect(found.map((s) => s.id).sort()).toEqual([all.id, sentOnly.id].sort());
  });
});
