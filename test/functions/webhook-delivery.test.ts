// Webhooks end to end inside the service: timeline events fan out to subscriptions, signed POSTs
// reach real HTTP receivers, failures retry on the spec's schedule with a hand-moved clock. The
// delivery use case is also driven on its own against a fake HttpClient (no sockets), with a fixed
// random source for the jitter.
import { createHmac } from 'node:crypto';
import Stripe from 'stripe';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/db/keys';
import type { HttpClient, HttpPost, HttpResult } from '../../shared/ports/http-client';
import type { Random } from '../../shared/ports/random';
import { attempt, BASE_DELAY_MS, fanOut, MAX_ATTEMPTS, publishEvent, retryDelayMs } from '../../shared/webhooks/deliver';
import type { AttemptJob, WebhookEnvelope } from '../../shared/webhooks/messages';
import type { DeliveryItem } from '../../shared/webhooks/repository';
import { createSubscription } from '../../shared/webhooks/subscriptions';
import { call } from '../support/api';
import type { TestContainer } from '../support/container';
import type { Receiver } from '../support/receivers';
import { useLoopbackReceiver } from '../support/webhook-receiver';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, deliverWebhook, nextWebhookAttempt } from '../support/consumers';

let receiver: Receiver;
const bed = useTestbed();
// The receivers listen on loopback: allowed before each test, refused again after.
const loopback = useLoopbackReceiver(bed);
const allowPrivate = (allowed: boolean): void => loopback.allowPrivate(allowed);
beforeEach(() => {
  receiver = loopback.receiver;
});

let n = 0;
async function subscribe(eventTypes?: string[]): Promise<{ id: string; signing_secret: string }> {
  bed.c.clock.advance(150);
  const res = await call({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: `${receiver.url}/hook`, ...(eventTypes ? { event_types: eventTypes } : {}) } });
  expect(res.status).toBe(201);
  return res.body;
}

/** Accepts a send and runs the send worker on it; returns the message id. */
async function sendAndDispatch(to = 'ada@example.com', key = bed.account.admin_key): Promise<string> {
  bed.c.clock.advance(150);
  const res = await call({ method: 'POST', path: '/v1/send', key, body: { channel: 'email', idempotency_key: `wh-${++n}`, destination: { email: to }, payload: { subject: 's', body_text: 't' }, metadata: { from_email: 'hi@acme.test' } } });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id);
  await sendWorker(sqsEvent([sqsRecord(job?.body)]));
  return res.body.id;
}

/** Runs queued webhook jobs (fan-outs, then the attempts they queue) until none are left. */
const drainWebhooks = (limit = 50) => drain(bed.c.sent, 'webhooks', deliverWebhook, { limit });

const deliveries = async (subscriptionId: string): Promise<DeliveryItem[]> =>
  (await bed.c.store.query<DeliveryItem>({ keyCondition: 'pk = :pk', values: { ':pk': keys.deliveriesPartition(subscriptionId) } })).items;

describe('fan-out and the request', () => {
  it('posts each event once per matching subscription, signed so standard verifiers accept it', async () => {
    const sub = await subscribe();

    const id = await sendAndDispatch();
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    const [request] = receiver.requests;
    const body = request?.body.toString('utf8') ?? '';
    const envelope = JSON.parse(body);
    expect(envelope).toEqual({ event_id: expect.stringMatching(/^evt_/), event_type: 'sent', message_id: id, account_id: bed.account.account_id, payload: { provider_message_id: expect.any(String) }, occurred_at: expect.any(String), created_at: expect.any(String) });
    const h = request?.headers ?? {};
    expect(h['content-type']).toBe('application/json');
    expect(h['service-event-id']).toBe(envelope.event_id);
    expect(h['service-event-type']).toBe('sent');
    expect(h['service-timestamp']).toBe(String(Math.floor(bed.c.clock.now().getTime() / 1000)));
    // Any HMAC library, over timestamp.body with the secret's UTF-8 bytes:
    const expected = createHmac('sha256', sub.signing_secret).update(`${h['service-timestamp']}.${body}`).digest('hex');
    expect(h['service-signature']).toBe(expected);
    // And Stripe's own verifier, fed t=…,v1=…:
    const stripe = new Stripe('sk_test_unused');
    const header = `t=${h['service-timestamp']},v1=${h['service-signature']}`;
    expect(() => stripe.webhooks.constructEvent(body, header, sub.signing_secret, 300, undefined, Number(h['service-timestamp']))).not.toThrow();
  });

  it('fires for test-mode sends too, and only for the types a subscription asked for', async () => {
    const all = await subscribe();
    const bounces = await subscribe(['bounced']);

    await sendAndDispatch('bounced@example.com', bed.account.test_admin_key);
    await drainWebhooks();

    const types = receiver.requests.map((r) => r.headers['service-event-type']).sort();
    expect(types).toEqual(['bounced', 'bounced', 'sent']);
    expect((await deliveries(all.id)).map((d) => d.event_type).sort()).toEqual(['bounced', 'sent']);
    expect((await deliveries(bounces.id)).map((d) => d.event_type)).toEqual(['bounced']);
  });

  it('keeps event ids stable: a repeated fan-out delivers nothing twice', async () => {
    const sub = await subscribe();
    await sendAndDispatch();
    const fanout = bed.c.sent.find((s) => s.queue === 'webhooks');

    await deliverWebhook(sqsEvent([sqsRecord(fanout?.body)]));
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    expect(await deliveries(sub.id)).toHaveLength(1);
  });

  it('fans out email.received like any subscribable event (inbound mail will publish it)', async () => {
    const sub = await subscribe(['email.received']);
    const envelope = {
      event_id: 'evt_01jbq4v3c0inbound00000000000',
      event_type: 'email.received',
      message_id: 'inb_01jbq4v3c0inbound00000000000',
      account_id: bed.account.account_id,
      payload: { id: 'inb_01jbq4v3c0inbound00000000000', domain: 'acme.test', recipient: 'support@acme.test', from: 'ada@example.com', to: ['support@acme.test'], subject: 'Help', text: 'hi', spam_verdict: 'PASS', virus_verdict: 'PASS', attachments: [], received_at: bed.c.clock.now().toISOString() },
      occurred_at: bed.c.clock.now().toISOString(),
      created_at: bed.c.clock.now().toISOString(),
    };

    await publishEvent(bed.c, envelope);
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(1);
    expect(receiver.requests[0]?.headers['service-event-type']).toBe('email.received');
    expect(JSON.parse(receiver.requests[0]?.body.toString('utf8') ?? '')).toEqual(envelope);
    expect((await deliveries(sub.id)).map((d) => d.event_type)).toEqual(['email.received']);
  });

  it('sends nothing to a paused subscription', async () => {
    const sub = await subscribe();
    await call({ method: 'PUT', path: `/v1/webhooks/${sub.id}`, key: bed.account.admin_key, body: { is_active: false } });

    await sendAndDispatch();
    await drainWebhooks();

    expect(receiver.requests).toHaveLength(0);
    expect(await deliveries(sub.id)).toHaveLength(0);
  });
});

describe('retries', () => {
  /** Runs the next due attempt of the subscription's latest delivery (see nextWebhookAttempt). */
  const nextAttempt = (subscriptionId: string) => nextWebhookAttempt(bed.c, async () => (await deliveries(subscriptionId))[0]?.next_retry_at);

  it.each([
    ['a 500', { status: 500 }],
    ['a 401', { status: 401 }],
    ['a redirect', { status: 302, redirectTo: 'http://127.0.0.1:9/elsewhere' }],
    ['no answer within the timeout', { status: 200, delayMs: 2000 }],
  ])('retry after %s at 30 s ±25 %%, then succeed', async (_label, failure) => {
    const sub = await subscribe();
    receiver.reply(failure);
    await sendAndDispatch();
    await drainWebhooks(1); // the fan-out
    await nextAttempt(sub.id); // attempt 1 fails

    const [failed] = await deliveries(sub.id);
    const retry = bed.c.sent.find((s) => s.queue === 'webhooks');
    receiver.reply({ status: 204 });
    await nextAttempt(sub.id);
    const [done] = await deliveries(sub.id);

    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1, response_status: 'delayMs' in failure ? 0 : failure.status });
    expect(retry?.delaySeconds).toBeGreaterThanOrEqual(22);
    expect(retry?.delaySeconds).toBeLessThanOrEqual(38);
    const announced = Date.parse(failed?.next_retry_at ?? '') - Date.parse(failed?.updated_at ?? '');
    expect(Math.ceil(announced / 1000)).toBe(retry?.delaySeconds);
    expect(done).toMatchObject({ status: 'succeeded', attempt_count: 2, response_status: 204 });
    const listed = await call({ method: 'GET', path: `/v1/webhooks/${sub.id}/deliveries`, key: bed.account.admin_key });
    expect(listed.body.deliveries[0]).toMatchObject({ status: 'succeeded', attempt_count: 2, response_status: 204 });
    expect(listed.body.deliveries[0].next_retry_at).toBeUndefined();
  });

  it('queues the retry a killed attempt owed: its failure was recorded, its retry never queued, and its job came back (issue 28)', async () => {
    const sub = await subscribe();
    receiver.reply({ status: 500 });
    await sendAndDispatch();
    await drainWebhooks(1); // the fan-out
    const index = bed.c.sent.findIndex((s) => s.queue === 'webhooks');
    const [job] = bed.c.sent.splice(index, 1);
    // The kill: the attempt's failure is written, and the process dies before the retry is queued.
    const killed = vi.spyOn(bed.c.queue, 'send').mockImplementationOnce(async () => {
      throw new Error('killed before the retry was queued');
    });
    await deliverWebhook(sqsEvent([sqsRecord(job?.body)]));
    killed.mockRestore();
    expect(bed.c.sent.filter((s) => s.queue === 'webhooks')).toEqual([]);
    const [failed] = await deliveries(sub.id);
    expect(failed).toMatchObject({ status: 'failed', attempt_count: 1 });

    // The job comes back: no second POST for attempt 1, the retry queued for the time recorded.
    bed.c.clock.advance(5_000);
    const again = await deliverWebhook(sqsEvent([sqsRecord(job?.body, 2)]));
    const owedSeconds = Math.ceil((Date.parse(failed?.next_retry_at ?? '') - bed.c.clock.now().getTime()) / 1000);
    receiver.reply({ status: 204 });
    const retry = bed.c.sent.find((s) => s.queue === 'webhooks');
    await nextAttempt(sub.id);

    expect(again.batchItemFailures).toEqual([]);
    expect(retry?.body).toMatchObject({ kind: 'attempt', delivery_id: failed?.id, attempt: 2 });
    expect(retry?.delaySeconds).toBe(owedSeconds);
    expect(receiver.requests).toHaveLength(2);
    expect((await deliveries(sub.id))[0]).toMatchObject({ status: 'succeeded', attempt_count: 2 });
  });

  it('gives up after 12 attempts, going through the scheduler past 15 minutes, and keeps the subscription active', async () => {
    const sub = await subscribe();
    receiver.reply({ status: 503 });
    await sendAndDispatch();
    await drainWebhooks(1);

    let attempts = 0;
    const delays: number[] = [];
    while (attempts < 20 && (await nextAttempt(sub.id))) {
      attempts++;
      const next = bed.c.sent.find((s) => s.queue === 'webhooks');
      if (next) delays.push(next.delaySeconds ?? 0);
    }
    const [delivery] = await deliveries(sub.id);
    const subscription = await call({ method: 'GET', path: `/v1/webhooks/${sub.id}`, key: bed.account.admin_key });

    expect(receiver.requests).toHaveLength(MAX_ATTEMPTS);
    expect(delivery).toMatchObject({ status: 'exhausted', attempt_count: 12, response_status: 503 });
    expect(delivery?.next_retry_at).toBeUndefined();
    expect(subscription.body.is_active).toBe(true);
    // Queue delays while a retry is at most 15 minutes away (30 s … 8 min, and 16 min when jitter
    // brings it under 15), the scheduler for the later ones.
    expect(delays.length).toBeGreaterThanOrEqual(5);
    expect(delays.length).toBeLessThanOrEqual(6);
    expect(delays.every((d) => d <= 900)).toBe(true);
    delays.forEach((d, i) => {
      expect(d).toBeGreaterThanOrEqual(Math.floor(30 * 2 ** i * 0.75));
      expect(d).toBeLessThanOrEqual(Math.ceil(30 * 2 ** i * 1.25));
    });
  });

  it('stops retrying once the subscription is deleted', async () => {
    const sub = await subscribe();
    receiver.reply({ status: 500 });
    await sendAndDispatch();
    await drainWebhooks(1);
    await nextAttempt(sub.id);

    await call({ method: 'DELETE', path: `/v1/webhooks/${sub.id}`, key: bed.account.admin_key });
    await nextAttempt(sub.id);

    expect(receiver.requests).toHaveLength(1);
  });

  it('signs a retry with the rotated secret', async () => {
    const sub = await subscribe();
    receiver.reply({ status: 500 });
    await sendAndDispatch();
    await drainWebhooks(1);
    await nextAttempt(sub.id);
    const rotated = await call({ method: 'POST', path: `/v1/webhooks/${sub.id}/rotate-secret`, key: bed.account.admin_key });
    receiver.reply({ status: 200 });

    await nextAttempt(sub.id);

    const last = receiver.requests[1];
    const body = last?.body.toString('utf8') ?? '';
    expect(last?.headers['service-signature']).toBe(createHmac('sha256', rotated.body.signing_secret).update(`${last?.headers['service-timestamp']}.${body}`).digest('hex'));
    expect(last?.headers['service-event-id']).toBe(receiver.requests[0]?.headers['service-event-id']);
  });

  it('refuses a private address at delivery time as a failed attempt', async () => {
    const sub = await subscribe();
    allowPrivate(false); // the endpoint is loopback: refused when attempted
    await sendAndDispatch();
    await drainWebhooks(1);

    await nextAttempt(sub.id);

    const [delivery] = await deliveries(sub.id);
    expect(receiver.requests).toHaveLength(0);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1, response_status: 0, last_error: expect.stringMatching(/^refused/) });
  });
});

describe('the webhook channel', () => {
  it('posts payload.data to destination.url and records delivered with a detail, or failed', async () => {
    await call({ method: 'PUT', path: '/v1/account/channels/webhook', key: bed.account.admin_key, body: { enabled: true } });
    const post = async (status: number) => {
      receiver.reply({ status });
      bed.c.clock.advance(150);
      const res = await call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body: { channel: 'webhook', idempotency_key: `ch-${++n}`, destination: { url: `${receiver.url}/in` }, payload: { data: { order: 42 } } } });
      expect(res.status).toBe(201);
      const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id);
      await sendWorker(sqsEvent([sqsRecord(job?.body)]));
      return (await call({ method: 'GET', path: `/v1/messages/${res.body.id}`, key: bed.account.admin_key })).body;
    };

    const ok = await post(200);
    const bad = await post(500);

    expect(JSON.parse(receiver.requests[0]?.body.toString('utf8') ?? '')).toEqual({ order: 42 });
    expect(ok.status).toBe('delivered');
    expect(ok.events).toEqual([expect.objectContaining({ type: 'delivered', source: 'worker', payload: { detail: expect.stringMatching(/^HTTP 200 from 127\.0\.0\.1:\d+/) } })]);
    expect(bad.status).toBe('failed');
    expect(bad.events[0].payload.error).toMatch(/500/);
  });

  it('is refused until the account turns it on, and refuses private destinations', async () => {
    const body = (url: string) => ({ channel: 'webhook', idempotency_key: `ch-${++n}`, destination: { url }, payload: { data: {} } });
    const off = await call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body: body('https://93.184.216.34/x') });
    await call({ method: 'PUT', path: '/v1/account/channels/webhook', key: bed.account.admin_key, body: { enabled: true } });
    allowPrivate(false);
    const privateUrl = await call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body: body('https://10.0.0.8/x') });
    const sms = await call({ method: 'PUT', path: '/v1/account/channels/sms', key: bed.account.admin_key, body: { enabled: true } });

    expect(off.body.error.code).toBe('channel_not_enabled');
    expect(privateUrl.body.error.code).toBe('invalid_destination');
    expect(sms.body.error.code).toBe('channel_not_enabled');
  });
});

describe('the consumer', () => {
  it('reports a record that is not a webhook job as failed, so it reaches the DLQ, and logs it once as an error', async () => {
    // Prepare
    const sub = await subscribe();
    const unknownDelivery = { kind: 'attempt', account_id: bed.account.account_id, subscription_id: sub.id, delivery_id: 'dlv_01jzzzzzzzzzzzzzzzzzzzzzzz', attempt: 1 };
    const records = [sqsRecord('not json'), sqsRecord({ kind: 'nope' }), sqsRecord({ kind: 'attempt', attempt: 1 }), sqsRecord(unknownDelivery)];
    bed.c.logs.length = 0;

    // Act
    const out = await deliverWebhook(sqsEvent(records));

    // Assess: a well-formed job for an unknown delivery is a successful no-op
    expect(out.batchItemFailures).toEqual(records.slice(0, 3).map((r) => ({ itemIdentifier: r.messageId })));
    expect(bed.c.logs.filter((l) => l.level === 'error')).toHaveLength(3);
  });
});

describe('the delivery use case against a fake HttpClient', () => {
  const ENDPOINT = 'https://hooks.example.com/in';

  /** An HttpClient that accepts every URL and answers each post with `answer(n)` (n from 1). */
  function fakeHttp(answer: (n: number) => Omit<HttpResult, 'durationMs'>): HttpClient & { posts: Array<{ url: string; request: HttpPost }> } {
    const posts: Array<{ url: string; request: HttpPost }> = [];
    return {
      posts,
      check: async (url) => ({ ok: true, url }),
      post: async (url, request) => {
        posts.push({ url, request });
        return { ...answer(posts.length), durationMs: 1 };
      },
    };
  }

  const depsWith = (http: HttpClient, random: Random = () => 0.5): TestContainer => ({ ...bed.c, http, random });

  /** A subscription to ENDPOINT and one event fanned out to it; answers the first attempt job. */
  async function pendingDelivery(deps: TestContainer): Promise<{ job: AttemptJob; subscriptionId: string; envelope: WebhookEnvelope; secret: string }> {
    bed.c.clock.advance(150);
    const sub = await createSubscription(deps, bed.account.account_id, { endpoint_url: ENDPOINT });
    const at = bed.c.clock.now().toISOString();
    const envelope: WebhookEnvelope = {
      event_id: bed.c.ids.next('evt'),
      event_type: 'delivered',
      message_id: bed.c.ids.next('msg'),
      account_id: bed.account.account_id,
      payload: { detail: 'ok' },
      occurred_at: at,
      created_at: at,
    };
    expect(await fanOut(deps, envelope)).toBe(1);
    const [queued] = bed.c.sent.splice(0);
    return { job: queued?.body as AttemptJob, subscriptionId: sub.id, envelope, secret: sub.signing_secret };
  }

  it('records a 2xx as succeeded after one signed post of the stored body', async () => {
    // Prepare
    const http = fakeHttp(() => ({ ok: true, status: 200 }));
    const deps = depsWith(http);
    const { job, subscriptionId, envelope, secret } = await pendingDelivery(deps);

    // Act
    const outcome = await attempt(deps, job);

    // Assess
    expect(outcome).toBe('succeeded');
    expect(http.posts).toHaveLength(1);
    const [sent] = http.posts;
    const timestamp = String(Math.floor(bed.c.clock.now().getTime() / 1000));
    expect(sent?.url).toBe(ENDPOINT);
    expect(sent?.request.body).toBe(JSON.stringify(envelope));
    expect(sent?.request.timeoutMs).toBe(500);
    expect(sent?.request.headers).toEqual({
      'content-type': 'application/json',
      'service-event-id': envelope.event_id,
      'service-event-type': 'delivered',
      'service-timestamp': timestamp,
      'service-signature': createHmac('sha256', secret).update(`${timestamp}.${JSON.stringify(envelope)}`).digest('hex'),
      'user-agent': 'Postbox-Webhooks/1.0',
    });
    expect((await deliveries(subscriptionId))[0]).toMatchObject({ status: 'succeeded', attempt_count: 1, response_status: 200 });
    expect(bed.c.sent).toEqual([]);
  });

  it('records a 500 as failed and queues the next attempt 30 s on (the fixed draw is the middle of the jitter)', async () => {
    const deps = depsWith(fakeHttp(() => ({ ok: false, status: 500 })));
    const { job, subscriptionId } = await pendingDelivery(deps);

    const outcome = await attempt(deps, job);

    expect(outcome).toBe('failed');
    const [delivery] = await deliveries(subscriptionId);
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1, response_status: 500, last_error: 'HTTP 500' });
    expect(delivery?.next_retry_at).toBe(new Date(bed.c.clock.now().getTime() + 30_000).toISOString());
    expect(bed.c.sent).toEqual([{ queue: 'webhooks', body: { ...job, attempt: 2 }, delaySeconds: 30 }]);
  });

  it('records a refused address as a failed attempt with no HTTP status, and retries it', async () => {
    const deps = depsWith(fakeHttp(() => ({ ok: false, status: 0, error: 'refused: resolves to 10.0.0.5, a private address' })));
    const { job, subscriptionId } = await pendingDelivery(deps);

    const outcome = await attempt(deps, job);

    expect(outcome).toBe('failed');
    expect((await deliveries(subscriptionId))[0]).toMatchObject({
      status: 'failed',
      attempt_count: 1,
      response_status: 0,
      last_error: 'refused: resolves to 10.0.0.5, a private address',
    });
    expect(bed.c.sent.map((s) => (s.body as AttemptJob).attempt)).toEqual([2]);
  });

  it(`gives up after ${MAX_ATTEMPTS} attempts: exhausted, no retry announced or queued`, async () => {
    // Prepare
    const http = fakeHttp(() => ({ ok: false, status: 503 }));
    const deps = depsWith(http);
    const { job, subscriptionId } = await pendingDelivery(deps);

    // Act: each attempt at its announced time
    const outcomes: string[] = [];
    for (let n = 1; n <= MAX_ATTEMPTS; n++) {
      const next = (await deliveries(subscriptionId))[0]?.next_retry_at;
      if (next) bed.c.clock.set(next);
      outcomes.push(await attempt(deps, { ...job, attempt: n }));
    }
    const repeated = await attempt(deps, { ...job, attempt: MAX_ATTEMPTS + 1 });

    // Assess
    expect(outcomes).toEqual([...Array<string>(MAX_ATTEMPTS - 1).fill('failed'), 'exhausted']);
    expect(repeated).toBe('skipped');
    expect(http.posts).toHaveLength(MAX_ATTEMPTS);
    const [delivery] = await deliveries(subscriptionId);
    expect(delivery).toMatchObject({ status: 'exhausted', attempt_count: MAX_ATTEMPTS, response_status: 503, last_error: 'HTTP 503' });
    expect(delivery?.next_retry_at).toBeUndefined();
  });

  it.each([
    ['the lowest draw', () => 0, 23], // 22.5 s, rounded up to whole seconds for the queue
    ['the highest draw', () => 1 - 2 ** -53, 38], // just under 37.5 s
  ])('puts the first retry inside ±25 %% of 30 s with %s', async (_label, random, delaySeconds) => {
    const deps = depsWith(fakeHttp(() => ({ ok: false, status: 500 })), random);
    const { job } = await pendingDelivery(deps);

    await attempt(deps, job);

    expect(bed.c.sent.map((s) => s.delaySeconds)).toEqual([delaySeconds]);
  });
});

describe('retryDelayMs', () => {
  it.each([1, 2, 5, 11])('keeps the delay after attempt %i within ±25 %% of 30 s doubling', (attemptsMade) => {
    const base = BASE_DELAY_MS * 2 ** (attemptsMade - 1);

    const lowest = retryDelayMs(attemptsMade, () => 0);
    const middle = retryDelayMs(attemptsMade, () => 0.5);
    const highest = retryDelayMs(attemptsMade, () => 1 - 2 ** -53);

    expect(lowest).toBe(Math.round(base * 0.75));
    expect(middle).toBe(base);
    expect(highest).toBeLessThanOrEqual(Math.round(base * 1.25));
    expect(highest).toBeGreaterThan(Math.round(base * 1.25) - 2);
  });
});
