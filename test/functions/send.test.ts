// POST /v1/send and /v1/send/batch through the handler: every rule of the spec with its status
// and code, idempotency under concurrency, suppression and scheduling.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { createKey } from '../../shared/accounts/api-keys/service';
import type { MessageItem } from '../../shared/sending/messages/model';
import { decisionOf } from '../../shared/sending/messages/idempotency';
import { messageIdFor } from '../../shared/sending/messages/message-id';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { suppress } from '../../shared/sending/suppressions/service';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

let n = 0;
const request = (over: Record<string, unknown> = {}): Record<string, any> => ({
  channel: 'email',
  idempotency_key: `key-${++n}`,
  destination: { email: 'ada@example.com' },
  payload: { subject: 'Hello', body_text: 'Hi Ada', body_html: '<p>Hi Ada</p>' },
  metadata: { from_email: 'hello@acme.test' },
  ...over,
});
const send = (body: unknown, key = bed.account.admin_key) => call({ method: 'POST', path: '/v1/send', key, body });
const sendBatch = (body: unknown, key = bed.account.admin_key) => call({ method: 'POST', path: '/v1/send/batch', key, body });
const jobs = () => bed.c.sent.filter((s) => s.queue === 'send');

describe('POST /v1/send', () => {
  it('answers 201 with the SendResponse and enqueues one job', async () => {
    const res = await send(request({ idempotency_key: 'order-1' }));

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^msg_[0-9a-z]{26}$/), status: 'queued', channel: 'email', idempotency_key: 'order-1', created_at: bed.c.clock.now().toISOString() });
    const stored = await bed.c.store.get<MessageItem>(keys.message(res.body.id));
    // The recipient rides along so the worker reads a batch's suppressions at once.
    // So does what the request reserved, under the attempt the message records (for the worker to give back should another attempt store it).
    const reservation = { attempt: stored?.reserved_by, period: bed.c.clock.now().toISOString().slice(0, 7), channel: 'email', kind: 'transactional', key_id: stored?.key_id, micros: 100 };
    expect(jobs()).toEqual([{ queue: 'send', body: { message_id: res.body.id, account_id: bed.account.account_id, channel: 'email', recipient: 'ada@example.com', handed_at: bed.c.clock.now().getTime(), reservation } }]);
    expect(stored).toMatchObject({ status: 'queued', recipient: 'ada@example.com', from: 'hello@acme.test', subject: 'Hello', test_mode: false, reserved_by: expect.stringMatching(/^[\w-]{16}$/) });
  });

  it('requires idempotency_key', async () => {
    const { idempotency_key: _omit, ...body } = request();

    const res = await send(body);

    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^body\.idempotency_key: /), status: 400 });
  });

  it('replays the original response for the same key and body, in any key order, sending once', async () => {
    const body = request();
    const reordered = Object.fromEntries(Object.entries(body).reverse());

    const first = await send(body);
    bed.c.clock.advance(5000);
    const second = await send(reordered);

    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
    // One message; the retry's job (handed on before it found the message) is sent by the dispatch lease at most once.
    expect(new Set(jobs().map((j) => (j.body as { message_id: string }).message_id))).toEqual(new Set([first.body.id]));
  });

  it('keeps the decision on the message, which is its own idempotency record, not the HTTP answer', async () => {
    const accepted = await send(request({ idempotency_key: 'order-2' }));
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });
    await send(request({ idempotency_key: 'order-3', destination: { email: 'gone@example.com' } }));

    const decision = async (key: string) => {
      const message = await bed.c.store.get<MessageItem>(keys.message(messageIdFor(bed.account.account_id, key)));
      return message && decisionOf(message);
    };
    expect(await decision('order-2')).toEqual({ kind: 'accepted', message: accepted.body });
    expect(await decision('order-3')).toEqual({
      kind: 'suppressed',
      message: { id: expect.stringMatching(/^msg_/), channel: 'email', recipient: 'gone@example.com' },
    });
  });

  it('answers 409 idempotency_key_reused for the same key with another body', async () => {
    const body = request();
    await send(body);

    const res = await send({ ...body, payload: { subject: 'Changed', body_text: 'x' } });

    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('idempotency_key_reused');
    // The second request's job (handed on before it found the key taken) names the first message, which the dispatch lease sends once.
    expect(new Set(jobs().map((j) => (j.body as { message_id: string }).message_id))).toEqual(new Set([messageIdFor(bed.account.account_id, body.idempotency_key)]));
    expect(await bed.c.store.get<MessageItem>(keys.message(messageIdFor(bed.account.account_id, body.idempotency_key)))).toMatchObject({ subject: 'Hello' });
  });

  it('creates one message for 8 concurrent identical requests', async () => {
    const body = request();

    const results = await Promise.all(Array.from({ length: 8 }, () => send(body)));

    // Every copy finds the one message (the first to store it under the key's id) and names it;
    // each handed a job on for it, which the dispatch lease sends once (send-recovery.test.ts).
    expect(results.every((r) => r.status === 201)).toBe(true);
    expect(new Set(results.map((r) => r.body.id)).size).toBe(1);
    expect(new Set(jobs().map((j) => (j.body as { message_id: string }).message_id))).toEqual(new Set([results[0]!.body.id]));
  });

  it('refuses a suppressed recipient with 409, records suppressed on the timeline and enqueues nothing', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'ADA@example.com', reason: 'manual' });
    const body = request({ destination: { email: ' Ada@Example.com ' } });

    const res = await send(body);
    const replay = await send(body);

    expect(res.status).toBe(409);
    expect(res.body.error).toEqual({ code: 'recipient_suppressed', message: expect.any(String), status: 409 });
    expect(replay.body).toEqual(res.body);
    expect(jobs()).toHaveLength(0);
    const list = await call({ method: 'GET', path: '/v1/messages', key: bed.account.admin_key, query: { status: 'suppressed' } });
    const id = list.body.messages[0].id as string;
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message?.status).toBe('suppressed');
    expect(events).toEqual([expect.objectContaining({ id, type: 'suppressed', source: 'router', provider_event_id: `supp_${id}` })]);
  });

  it.each([
    ['no destination.email', { destination: { phone_number: '+15550100' } }, 422, 'invalid_destination'],
    ['a malformed address', { destination: { email: 'not-an-address' } }, 422, 'invalid_destination'],
    ['no subject', { payload: { body_text: 'x' } }, 422, 'invalid_channel_payload'],
    ['no body', { payload: { subject: 'x' } }, 422, 'invalid_channel_payload'],
    ['no payload at all', { payload: undefined }, 422, 'invalid_channel_payload'],
    ['a channel the account has not enabled', { channel: 'sms', destination: { phone_number: '+15550100' }, payload: { body: 'x' } }, 422, 'channel_not_enabled'],
    ['an unknown channel', { channel: 'fax' }, 400, 'invalid_request'],
    ['an unknown template', { template_id: 'tmpl_missing' }, 404, 'template_not_found'],
    ['a malformed from_email', { metadata: { from_email: 'Ada <nope>' } }, 400, 'invalid_request'],
    ['a scheduled_at that is not RFC 3339', { scheduled_at: 'tomorrow' }, 400, 'invalid_request'],
    ['a scheduled_at two minutes ago', { scheduled_at: 'PAST_2M' }, 422, 'invalid_schedule'],
    ['a scheduled_at 91 days ahead', { scheduled_at: 'FUTURE_91D' }, 422, 'invalid_schedule'],
    ['an unknown top-level field', { priority: 'high' }, 400, 'invalid_request'],
  ])('refuses %s', async (_label, over, status, code) => {
    const now = bed.c.clock.now().getTime();
    const at = { PAST_2M: new Date(now - 120_000).toISOString(), FUTURE_91D: new Date(now + 91 * 86400_000).toISOString() } as Record<string, string>;
    const body = request(over as Record<string, unknown>);
    if (typeof body.scheduled_at === 'string' && at[body.scheduled_at]) body.scheduled_at = at[body.scheduled_at];

    const res = await send(body);

    expect(res.status).toBe(status);
    expect(res.body.error).toEqual({ code, message: expect.any(String), status });
    expect(jobs()).toHaveLength(0);
  });

  it.each([
    ['a bare address', 'billing@acme.test', 'billing@acme.test'],
    ['the Name <address> form', 'Acme Billing <Billing@Acme.test>', 'Acme Billing <billing@acme.test>'],
    ['a quoted display name', '"Acme, Inc." <billing@acme.test>', '"Acme, Inc." <billing@acme.test>'],
  ])('takes metadata.from_email as %s', async (_label, from, stored) => {
    const res = await send(request({ metadata: { from_email: from } }));

    expect(res.status).toBe(201);
    expect((await bed.c.store.get<MessageItem>(keys.message(res.body.id)))?.from).toBe(stored);
  });

  it('accepts a schedule inside the window: stored as scheduled, not enqueued', async () => {
    const at = new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();

    const res = await send(request({ scheduled_at: at }));
    const edge = await send(request({ scheduled_at: new Date(bed.c.clock.now().getTime() - 59_000).toISOString() }));

    expect(res.status).toBe(201);
    expect(res.body.status).toBe('scheduled');
    expect(edge.status).toBe(201);
    expect(jobs()).toHaveLength(0);
    expect(await bed.c.scheduler.fireDue(new Date(bed.c.clock.now().getTime() + 3600_000), bed.c.queue)).toBe(2);
    expect(jobs().map((j) => (j.body as { message_id: string }).message_id).sort()).toEqual([res.body.id, edge.body.id].sort());
  });

  it('refuses send to a read-scoped key', async () => {
    const read = await createKey(bed.c, bed.account.account_id, { scope: 'read' }, { testMode: false });

    const res = await send(request(), read.key);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });
});

describe('POST /v1/send/batch', () => {
  it('processes items independently and answers in request order with single-send error objects', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.com', reason: 'manual' });
    const items = [request(), request({ destination: { email: 'gone@example.com' } }), request({ payload: { subject: 'x' } }), request({ idempotency_key: 5 })];

    const res = await sendBatch(items);

    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { success: true, response: expect.objectContaining({ status: 'queued', idempotency_key: items[0]?.idempotency_key }) },
      { success: false, error: { code: 'recipient_suppressed', message: expect.any(String), status: 409 } },
      { success: false, error: { code: 'invalid_channel_payload', message: expect.any(String), status: 422 } },
      { success: false, error: { code: 'invalid_request', message: expect.stringMatching(/^body\.3\.idempotency_key: /), status: 400 } },
    ]);
    expect(jobs()).toHaveLength(1);
  });

  it('treats a repeated key inside one batch like a retry', async () => {
    const item = request();

    const res = await sendBatch([item, item, { ...item, payload: { subject: 'other', body_text: 'y' } }]);

    expect(res.body[0].response.id).toBe(res.body[1].response.id);
    expect(res.body[2]).toEqual({ success: false, error: expect.objectContaining({ code: 'idempotency_key_reused', status: 409 }) });
    expect(jobs()).toHaveLength(1);
  });

  it('accepts 1000 items as one rate-limit unit and enqueues them all', async () => {
    const items = Array.from({ length: 1000 }, (_, i) => request({ destination: { email: `user${i}@example.com` } }));

    const res = await sendBatch(items);

    expect(res.status).toBe(200);
    expect(res.body.filter((r: { success: boolean }) => r.success)).toHaveLength(1000);
    expect(new Set(res.body.map((r: { response: { id: string } }) => r.response.id)).size).toBe(1000);
    expect(jobs()).toHaveLength(1000);
    expect(res.headers['x-ratelimit-remaining']).toBe('9');
  });

  it.each([
    ['1001 items', () => Array.from({ length: 1001 }, () => request()), 413, 'batch_too_large'],
    ['an empty array', () => [], 400, 'invalid_request'],
    ['an object instead of an array', () => request(), 400, 'invalid_request'],
  ])('refuses %s', async (_label, make, status, code) => {
    const res = await sendBatch(make());

    expect(res.status).toBe(status);
    expect(res.body.error.code).toBe(code);
    expect(jobs()).toHaveLength(0);
  });
});
