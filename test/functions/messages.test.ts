// Messages end to end through the handlers: the newest-first list with its filters and cursor, one
// message with its timeline (also by idempotency key), other accounts' messages invisible, and
// cancelling a scheduled send so that nothing is ever sent for it.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import type { SendJob } from '../../shared/sending/messages/messages';
import { recordEvent } from '../../shared/sending/messages/timeline';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';
import type { ParsedResult } from '../support/events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { sendWorker } from '../support/consumers';

let sequence = 0;

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;

interface Sent {
  id: string;
  created_at: string;
  idempotency_key: string;
}

async function send(overrides: Record<string, unknown> = {}, key = bed.sendKey): Promise<Sent> {
  const res = await request({
    method: 'POST',
    path: '/v1/send',
    key,
    body: {
      channel: 'email',
      idempotency_key: `msg-test-${++sequence}`,
      destination: { email: 'reader@example.com' },
      payload: { subject: 'Hello', body_text: 'Hello there' },
      metadata: { from_email: 'hello@acme.test' },
      ...overrides,
    },
  });
  expect(res.status).toBe(201);
  return res.body as Sent;
}

const list = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/messages', key, query });
const getOne = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/messages/${id}`, key });
const cancel = (id: string, key = bed.sendKey) => request({ method: 'POST', path: `/v1/messages/${id}/cancel`, key });
const ids = (res: ParsedResult): string[] => res.body.messages.map((m: { id: string }) => m.id);

/** The job the API enqueued for a message. */
function jobOf(messageId: string): SendJob {
  const found = bed.c.sent.find((s) => s.queue === 'send' && (s.body as SendJob).message_id === messageId);
  if (!found) throw new Error(`no send job for ${messageId}`);
  return found.body as SendJob;
}

/** Runs jobs through the send worker as SQS delivers them and expects every record to succeed. */
async function runWorker(jobs: SendJob[]): Promise<void> {
  const result = await sendWorker(sqsEvent(jobs.map((job) => sqsRecord(job))));
  expect(result.batchItemFailures).toEqual([]);
}

const dispatchMessages = (...messageIds: string[]) => runWorker(messageIds.map(jobOf));
const inAnHour = () => new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();

describe('GET /v1/messages', () => {
  it('lists newest first with exactly the MessageSummary fields', async () => {
    const first = await send();
    const second = await send({ message_type: 'marketing' });
    const third = await send();

    const res = await list();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      messages: [
        { id: third.id, channel: 'email', status: 'queued', message_type: 'transactional', created_at: third.created_at },
        { id: second.id, channel: 'email', status: 'queued', message_type: 'marketing', created_at: second.created_at },
        { id: first.id, channel: 'email', status: 'queued', message_type: 'transactional', created_at: first.created_at },
      ],
      next_cursor: null,
    });
  });

  it('answers an empty list with next_cursor null for an account without messages', async () => {
    const res = await list();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: [], next_cursor: null });
  });

  it('walks every message exactly once with limit and cursor and ends with next_cursor null', async () => {
    const created: string[] = [];
    for (let i = 0; i < 7; i++) created.push((await send()).id);

    const pages: string[][] = [];
    let cursor: string | undefined;
    let last: ParsedResult;
    do {
      last = await list({ limit: '3', ...(cursor ? { cursor } : {}) });
      expect(last.status).toBe(200);
      pages.push(ids(last));
      cursor = last.body.next_cursor ?? undefined;
    } while (cursor);

    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat()).toEqual([...created].reverse());
    expect(last.body.next_cursor).toBeNull();
  });

  it('gives next_cursor null when the last page is exactly full', async () => {
    for (let i = 0; i < 4; i++) await send();

    const firstPage = await list({ limit: '2' });
    const secondPage = await list({ limit: '2', cursor: firstPage.body.next_cursor });

    expect(firstPage.body.next_cursor).toEqual(expect.any(String));
    expect(secondPage.body.messages).toHaveLength(2);
    expect(secondPage.body.next_cursor).toBeNull();
  });

  it('filters by status: sent after the worker ran, queued before', async () => {
    const a = await send();
    const b = await send();
    const d = await send();
    await dispatchMessages(a.id, d.id);

    const sent = await list({ status: 'sent' });
    const queued = await list({ status: 'queued' });
    const bounced = await list({ status: 'bounced' });

    expect(ids(sent)).toEqual([d.id, a.id]);
    expect(sent.body.messages.every((m: { status: string }) => m.status === 'sent')).toBe(true);
    expect(ids(queued)).toEqual([b.id]);
    expect(bounced.body).toEqual({ messages: [], next_cursor: null });
  });

  it('walks a status-filtered list page by page without losing or repeating rows', async () => {
    const all: Sent[] = [];
    for (let i = 0; i < 6; i++) all.push(await send());
    const dispatched = all.filter((_, i) => i % 2 === 0).map((m) => m.id);
    await dispatchMessages(...dispatched);

    const first = await list({ status: 'sent', limit: '2' });
    const second = await list({ status: 'sent', limit: '2', cursor: first.body.next_cursor });

    expect([...ids(first), ...ids(second)]).toEqual([...dispatched].reverse());
    expect(second.body.next_cursor).toBeNull();
  });

  it('filters by channel', async () => {
    const only = await send();

    const email = await list({ channel: 'email' });
    const sms = await list({ channel: 'sms' });

    expect(ids(email)).toEqual([only.id]);
    expect(sms.body).toEqual({ messages: [], next_cursor: null });
  });

  it.each([
    [{ channel: 'fax' }, 'query.channel'],
    [{ from: 'yesterday' }, 'query.from'],
    [{ to: '2026-03-01' }, 'query.to'],
  ])('answers 400 invalid_request for %j naming %s', async (query, field) => {
    const res = await list(query);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith(`${field}:`)).toBe(true);
  });

  it('treats from and to as inclusive bounds on created_at', async () => {
    const m1 = await send();
    bed.c.clock.advance(1000);
    const m2 = await send();
    bed.c.clock.advance(1000);
    const m3 = await send();
    const justAfter = (iso: string) => new Date(Date.parse(iso) + 1).toISOString();
    const justBefore = (iso: string) => new Date(Date.parse(iso) - 1).toISOString();

    const fromM2 = await list({ from: m2.created_at });
    const toM2 = await list({ to: m2.created_at });
    const exactlyM2 = await list({ from: m2.created_at, to: m2.created_at });
    const between = await list({ from: justAfter(m1.created_at), to: justBefore(m3.created_at) });
    const beyond = await list({ from: justAfter(m3.created_at) });

    expect(ids(fromM2)).toEqual([m3.id, m2.id]);
    expect(ids(toM2)).toEqual([m2.id, m1.id]);
    expect(ids(exactlyM2)).toEqual([m2.id]);
    expect(ids(between)).toEqual([m2.id]);
    expect(beyond.body).toEqual({ messages: [], next_cursor: null });
  });

  it('lists a message created exactly at from or exactly at to when its id was stamped a little later', async () => {
    // The send path stamps created_at once per request and mints each id as it claims it, so in
    // real time an id's clock reading trails created_at; here every id trails it by 3 ms.
    const minted = bed.c.ids;
    bed.c.ids = { next: (prefix) => (bed.c.clock.advance(3), minted.next(prefix)) };
    let edge: Sent;
    try {
      edge = await send();
    } finally {
      bed.c.ids = minted;
    }
    const justAfter = new Date(Date.parse(edge.created_at) + 1).toISOString();
    const justBefore = new Date(Date.parse(edge.created_at) - 1).toISOString();

    const atTo = await list({ to: edge.created_at });
    const atFrom = await list({ from: edge.created_at });
    const atBoth = await list({ from: edge.created_at, to: edge.created_at });
    const afterIt = await list({ from: justAfter });
    const beforeIt = await list({ to: justBefore });

    expect(ids(atTo)).toContain(edge.id);
    expect(ids(atFrom)).toContain(edge.id);
    expect(ids(atBoth)).toEqual([edge.id]);
    expect(ids(afterIt)).not.toContain(edge.id);
    expect(ids(beforeIt)).not.toContain(edge.id);
  });

  it('walks a bounded list page by page without losing the edges', async () => {
    const first = await send();
    bed.c.clock.advance(1000);
    const middle = [await send(), await send(), await send()];
    bed.c.clock.advance(1000);
    const last = await send();

    const page1 = await list({ from: first.created_at, to: last.created_at, limit: '2' });
    const page2 = await list({ from: first.created_at, to: last.created_at, limit: '2', cursor: page1.body.next_cursor });
    const page3 = await list({ from: first.created_at, to: last.created_at, limit: '2', cursor: page2.body.next_cursor });

    expect([...ids(page1), ...ids(page2), ...ids(page3)]).toEqual([last, ...middle.reverse(), first].map((m) => m.id));
    expect(page3.body.next_cursor).toBeNull();
  });

  it('reads from and to with a UTC offset as the same instant', async () => {
    const before = await send();
    bed.c.clock.advance(1000);
    const target = await send();
    const instant = new Date(target.created_at);
    // The same instant written two hours ahead of UTC.
    const plusTwo = new Date(instant.getTime() + 2 * 3600_000).toISOString().replace('Z', '+02:00');

    const res = await list({ from: plusTwo, to: plusTwo });

    expect(ids(res)).toEqual([target.id]);
    expect(ids(res)).not.toContain(before.id);
  });

  it('answers an empty list, not an error, when from is later than to', async () => {
    const m = await send();
    const later = new Date(Date.parse(m.created_at) + 1000).toISOString();

    const res = await list({ from: later, to: m.created_at });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ messages: [], next_cursor: null });
  });

  it('reads a from bound before 1970 as covering every message, not as an error', async () => {
    const m = await send();

    const res = await list({ from: '1969-12-31T00:00:00Z', to: m.created_at });

    expect(res.status).toBe(200);
    expect(ids(res)).toEqual([m.id]);
  });

  it('refuses a cursor replayed with different filters with 400 invalid_request', async () => {
    for (let i = 0; i < 3; i++) await send();
    const first = await list({ status: 'queued', limit: '1' });
    const cursor = first.body.next_cursor as string;

    const otherStatus = await list({ status: 'sent', limit: '1', cursor });
    const filterDropped = await list({ limit: '1', cursor });
    const filterAdded = await list({ status: 'queued', channel: 'email', limit: '1', cursor });
    const same = await list({ status: 'queued', limit: '1', cursor });

    for (const res of [otherStatus, filterDropped, filterAdded]) {
      expect(res.status).toBe(400);
      expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^cursor: /), status: 400 });
    }
    expect(same.status).toBe(200);
    expect(same.body.messages).toHaveLength(1);
  });

  it('refuses a tampered cursor and another account’s cursor with 400 invalid_request', async () => {
    for (let i = 0; i < 2; i++) await send();
    const cursor = (await list({ limit: '1' })).body.next_cursor as string;
    const other = await createAccount(bed.c, { name: 'other' });

    const tampered = await list({ limit: '1', cursor: `${cursor.slice(0, -2)}xx` });
    const foreign = await list({ limit: '1', cursor }, other.admin_key);

    for (const res of [tampered, foreign]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });

  it('never lists another account’s messages', async () => {
    const mine = await send();
    const other = await createAccount(bed.c, { name: 'other' });

    const res = await list({}, other.admin_key);

    expect(res.status).toBe(200);
    expect(ids(res)).not.toContain(mine.id);
    expect(res.body.messages).toEqual([]);
  });
});

describe('GET /v1/messages?idempotency_key=', () => {
  it('returns the single full Message with its timeline', async () => {
    const sent = await send({ idempotency_key: 'order-1234-receipt' });
    bed.c.clock.advance(1000);
    await dispatchMessages(sent.id);
    const sentAt = bed.c.clock.now().toISOString();

    const res = await list({ idempotency_key: 'order-1234-receipt' });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      id: sent.id,
      channel: 'email',
      status: 'sent',
      message_type: 'transactional',
      created_at: sent.created_at,
      idempotency_key: 'order-1234-receipt',
      provider_message_id: expect.stringMatching(/^ses-/),
      updated_at: sentAt,
      test_mode: false,
      scheduled_at: null,
      template_id: null,
      template_version: null,
      events: [expect.objectContaining({ type: 'sent', message_id: sent.id })],
    });
    expect(res.body.events[0].payload).toEqual({ provider_message_id: res.body.provider_message_id });
  });

  it('returns the same message as GET /v1/messages/{id}', async () => {
    const sent = await send({ idempotency_key: 'same-either-way' });
    await dispatchMessages(sent.id);

    const byKey = await list({ idempotency_key: 'same-either-way' });
    const byId = await getOne(sent.id);

    expect(byKey.body).toEqual(byId.body);
  });

  it('answers 404 not_found for an unknown key', async () => {
    await send({ idempotency_key: 'known' });

    const res = await list({ idempotency_key: 'never-used' });

    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
  });

  it('answers 404 for a key only another account used', async () => {
    await send({ idempotency_key: 'private-key-of-a' });
    const other = await createAccount(bed.c, { name: 'other' });

    const res = await list({ idempotency_key: 'private-key-of-a' }, other.admin_key);

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('GET /v1/messages/{id}', () => {
  it('returns the full message with worker-shaped events', async () => {
    const sent = await send();
    await dispatchMessages(sent.id);
    const sentAt = bed.c.clock.now().toISOString();

    const res = await getOne(sent.id);

    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: sent.id, status: 'sent', idempotency_key: sent.idempotency_key, test_mode: false });
    expect(res.body.events).toEqual([
      {
        id: expect.stringMatching(/^evt_[0-9a-z]{26}$/),
        type: 'sent',
        message_id: sent.id,
        account_id: bed.account.account_id,
        source: 'worker',
        provider_event_id: expect.stringMatching(/^wkr_[0-9a-f]{64}$/),
        payload: { provider_message_id: res.body.provider_message_id },
        occurred_at: sentAt,
        created_at: sentAt,
      },
    ]);
  });

  it('shows the template and version a templated send recorded, wherever its content is kept, and null for inline content', async () => {
    const created = await request({
      method: 'POST',
      path: '/v1/templates',
      key: bed.sendKey,
      body: { name: 'Receipt', channel: 'email', subject: 'Receipt for {{ name }}', body_html: '<p>Thanks, {{ name }}. {{ filler }}</p>' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    const templateId = created.body.id as string;
    // Small content stays on the message item; a long one moves to its content item (shared/sending/messages/content.ts).
    const small = await send({ template_id: templateId, template_vars: { name: 'Ada', filler: '' } });
    const large = await send({ template_id: templateId, template_vars: { name: 'Bo', filler: 'lorem ipsum '.repeat(300) } });
    const edited = await request({ method: 'PUT', path: `/v1/templates/${templateId}`, key: bed.sendKey, body: { subject: 'Your receipt, {{ name }}' } });
    expect(edited.status, JSON.stringify(edited.body)).toBe(200);
    const second = await send({ template_id: templateId, template_vars: { name: 'Cy', filler: '' } });
    const inline = await send();

    expect((await getOne(small.id)).body).toMatchObject({ id: small.id, template_id: templateId, template_version: 1 });
    expect((await getOne(large.id)).body).toMatchObject({ id: large.id, template_id: templateId, template_version: 1 });
    expect((await getOne(second.id)).body).toMatchObject({ id: second.id, template_id: templateId, template_version: 2 });
    expect((await getOne(inline.id)).body).toMatchObject({ id: inline.id, template_id: null, template_version: null });
    // The Message by idempotency key is the same view.
    expect((await list({ idempotency_key: large.idempotency_key })).body).toMatchObject({ id: large.id, template_id: templateId, template_version: 1 });
  });

  it('orders the timeline oldest first by occurred_at, whatever order events were recorded in', async () => {
    const sent = await send();
    await dispatchMessages(sent.id);
    const sentAt = bed.c.clock.now().getTime();
    const ref = { id: sent.id, account_id: bed.account.account_id, test_mode: false };
    const at = (offsetMs: number) => new Date(sentAt + offsetMs).toISOString();
    bed.c.clock.advance(10_000);
    await recordEvent(bed.c, ref, { type: 'delivered', source: 'ses', providerEventId: 'ses-delivery-1', payload: {}, occurredAt: at(5000) });
    bed.c.clock.advance(1000);
    await recordEvent(bed.c, ref, { type: 'delivery_delayed', source: 'ses', providerEventId: 'ses-delay-1', payload: {}, occurredAt: at(2000) });

    const res = await getOne(sent.id);

    expect(res.body.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'delivery_delayed', 'delivered']);
    expect(res.body.events.map((e: { occurred_at: string }) => e.occurred_at)).toEqual([at(0), at(2000), at(5000)]);
    expect(res.body.status).toBe('delivered');
  });

  it('shows a test-mode send with test_mode true, its simulated events oldest first, and lists it', async () => {
    const sent = await send({ destination: { email: 'bounced@example.com' } }, bed.account.test_admin_key);
    await dispatchMessages(sent.id);

    const full = await getOne(sent.id);
    const listed = await list();

    expect(full.status).toBe(200);
    expect(full.body.test_mode).toBe(true);
    expect(full.body.status).toBe('bounced');
    expect(full.body.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'bounced']);
    expect(full.body.events.every((e: { source: string; id: string; provider_event_id: string }) => e.source === 'worker' && /^evt_/.test(e.id) && /^wkr_[0-9a-f]{64}$/.test(e.provider_event_id))).toBe(true);
    expect(new Set(full.body.events.map((e: { provider_event_id: string }) => e.provider_event_id)).size).toBe(2);
    expect(listed.body.messages).toEqual([{ id: sent.id, channel: 'email', status: 'bounced', message_type: 'transactional', created_at: sent.created_at }]);
    expect(bed.c.mailed).toEqual([]);
  });

  it('answers 404 for another account’s message and for an unknown id', async () => {
    const mine = await send();
    const other = await createAccount(bed.c, { name: 'other' });

    const foreign = await getOne(mine.id, other.admin_key);
    const unknown = await getOne('msg_01aaaaaaaaaaaaaaaaaaaaaaaa');

    for (const res of [foreign, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error).toEqual({ code: 'not_found', message: expect.any(String), status: 404 });
    }
  });
});

describe('scopes on message routes', () => {
  it('needs read to list or read a message: a send key gets 403 forbidden', async () => {
    const sent = await send();

    const listed = await list({}, bed.sendKey);
    const one = await getOne(sent.id, bed.sendKey);
    const byKey = await list({ idempotency_key: sent.idempotency_key }, bed.sendKey);

    for (const res of [listed, one, byKey]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
  });

  it('lets read and admin keys read', async () => {
    const sent = await send();

    expect((await list({}, bed.readKey)).status).toBe(200);
    expect((await getOne(sent.id, bed.account.admin_key)).status).toBe(200);
  });

  it('needs send to cancel: a read key gets 403 and the message stays scheduled', async () => {
    const sent = await send({ scheduled_at: inAnHour() });

    const res = await cancel(sent.id, bed.readKey);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
    expect((await getOne(sent.id)).body.status).toBe('scheduled');
  });
});

describe('POST /v1/messages/{id}/cancel', () => {
  it('cancels a scheduled message with 200 {id, status: canceled}; a second cancel is 404', async () => {
    const sent = await send({ scheduled_at: inAnHour() });

    const first = await cancel(sent.id);
    const second = await cancel(sent.id);

    expect(first.status).toBe(200);
    expect(first.body).toEqual({ id: sent.id, status: 'canceled' });
    expect(second.status).toBe(404);
    expect(second.body.error.code).toBe('not_found');
    expect((await getOne(sent.id)).body).toMatchObject({ status: 'canceled', events: [] });
  });

  it('answers 404 for a queued message that was never scheduled, and leaves it queued', async () => {
    const sent = await send();

    const res = await cancel(sent.id);

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await getOne(sent.id)).body.status).toBe('queued');
  });

  it('answers 404 for another account’s scheduled message and leaves it scheduled', async () => {
    const sent = await send({ scheduled_at: inAnHour() });
    const other = await createAccount(bed.c, { name: 'other' });

    const res = await cancel(sent.id, other.admin_key);

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
    expect((await getOne(sent.id)).body.status).toBe('scheduled');
  });

  it('answers 404 for an unknown id', async () => {
    const res = await cancel('msg_01aaaaaaaaaaaaaaaaaaaaaaaa');

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('never sends a canceled message: the schedule does not fire and a stray job is skipped', async () => {
    const scheduledAt = inAnHour();
    const sent = await send({ scheduled_at: scheduledAt });
    expect(bed.c.sent).toEqual([]);
    await cancel(sent.id);

    await bed.c.scheduler.fireDue(new Date(scheduledAt), bed.c.queue);
    const firedForIt = bed.c.sent.filter((s) => (s.body as SendJob).message_id === sent.id);
    await runWorker([{ message_id: sent.id, account_id: bed.account.account_id }]);

    expect(firedForIt).toEqual([]);
    expect(bed.c.mailed).toEqual([]);
    expect((await getOne(sent.id)).body).toMatchObject({ status: 'canceled', provider_message_id: '', events: [] });
  });

  it('stops the send when canceled after the schedule fired but before the worker ran', async () => {
    const scheduledAt = inAnHour();
    const sent = await send({ scheduled_at: scheduledAt });
    bed.c.clock.set(scheduledAt);
    await bed.c.scheduler.fireDue(new Date(scheduledAt), bed.c.queue);
    const job = jobOf(sent.id);

    const res = await cancel(sent.id);
    await runWorker([job]);

    expect(res.body).toEqual({ id: sent.id, status: 'canceled' });
    expect(bed.c.mailed).toEqual([]);
    expect((await getOne(sent.id)).body.status).toBe('canceled');
  });

  it('sends a scheduled message when its time comes, after which cancel answers 404', async () => {
    const scheduledAt = inAnHour();
    const sent = await send({ scheduled_at: scheduledAt });
    bed.c.clock.set(scheduledAt);
    await bed.c.scheduler.fireDue(new Date(scheduledAt), bed.c.queue);
    await runWorker([jobOf(sent.id)]);

    const res = await cancel(sent.id);

    expect(res.status).toBe(404);
    expect(bed.c.mailed.map((m) => m.messageId)).toEqual([sent.id]);
    expect((await getOne(sent.id)).body).toMatchObject({ status: 'sent', scheduled_at: scheduledAt });
  });
});
