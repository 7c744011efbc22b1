// The size of one message: content up to 5 MiB is accepted, and content whose gzip passes 8 KiB is
// kept in the object store (files in a temp dir here, S3 in AWS) with a pointer on the message
// item, so the item stays small (smaller content is a gzipped content item beside it); past 5 MiB a send is 413 before anything is claimed or stored. Through the
// real handlers, the send worker, the embedded store and the file object store.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { keys } from '../../shared/db/keys';
import { contentKey, MAX_MESSAGE_BYTES } from '../../shared/sending/messages/content';
import type { MessageItem } from '../../shared/sending/messages/model';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import { queueNamed } from '../../shared/platform';
import { call } from '../support/api';
import { startHttpReceiver } from '../support/receivers';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker, fanOut } from '../support/consumers';

const bed = useTestbed();

let n = 0;
const request = (over: Record<string, unknown> = {}): Record<string, any> => ({
  channel: 'email',
  idempotency_key: `size-${++n}`,
  destination: { email: 'ada@example.com' },
  payload: { subject: 'Hello', body_text: 'Hi Ada', body_html: '<p>Hi Ada</p>' },
  metadata: { from_email: 'hello@acme.test' },
  ...over,
});
const send = (body: unknown) => call({ method: 'POST', path: '/v1/send', key: bed.account.admin_key, body });
const sendBatch = (body: unknown) => call({ method: 'POST', path: '/v1/send/batch', key: bed.account.admin_key, body });
const storedMessage = (id: string) => bed.c.store.get<MessageItem>(keys.message(id));
/** Where a message's content object is: named by its id and its request body's digest (shared/sending/messages/content.ts). */
const contentKeyOf = async (id: string): Promise<string> => contentKey(bed.account.account_id, id, (await storedMessage(id))!.body_digest);
const jobFor = (id: string) => bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === id)?.body;
/**
 * `length` characters of printable text that gzip cannot shrink much (base64 of seeded pseudo-random
 * bytes): content that must reach the object store, where repeated characters would gzip to
 * nothing and stay in the table.
 */
function noise(length: number, seed = length): string {
  let x = seed >>> 0 || 1;
  const bytes = Buffer.alloc(Math.ceil((length * 3) / 4) + 3);
  for (let i = 0; i < bytes.length; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    bytes[i] = x & 0xff;
  }
  return bytes.toString('base64').slice(0, length);
}
const itemBytes = (item: unknown) => Buffer.byteLength(JSON.stringify(item), 'utf8');
/** Bytes the limit counts for an email request: payload, destination and metadata as compact JSON. */
const contentBytes = (r: Record<string, any>) => ['payload', 'destination', 'metadata', 'template_vars'].reduce((sum, k) => sum + (r[k] === undefined ? 0 : itemBytes(r[k])), 0);
/** An email request whose counted content is exactly `bytes`, padded in body_html. */
function requestOfSize(bytes: number, over: Record<string, unknown> = {}): Record<string, any> {
  const base = request({ ...over, payload: { subject: 'Big', body_html: '' } });
  return { ...base, payload: { subject: 'Big', body_html: noise(bytes - contentBytes(base)) } };
}

describe('large content', () => {
  it('accepts a 600 KB body_html: the item keeps a pointer, the worker mails the whole body', async () => {
    // Prepare
    const html = `<html><body>${'<p>Ünïcödé and plain text, over and over.</p>'.repeat(13_000)}<!-- ${noise(40_000)} --></body></html>`;
    expect(Buffer.byteLength(html)).toBeGreaterThan(600_000);

    // Act
    const res = await send(request({ payload: { subject: 'Quarterly report', body_html: html, body_text: 'see the html' } }));
    const stored = await storedMessage(res.body.id);
    const out = await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    // Assess
    expect(res.status).toBe(201);
    const ref = await contentKeyOf(res.body.id);
    expect(stored).toMatchObject({ content_ref: ref, recipient: 'ada@example.com', status: 'queued' });
    for (const field of ['from', 'subject', 'body_html', 'body_text', 'destination', 'metadata']) expect(stored).not.toHaveProperty(field);
    expect(itemBytes(stored)).toBeLessThan(2048);
    const object = await bed.c.objects.get(ref);
    expect(object?.contentType).toBe('application/json');
    expect(JSON.parse(object?.body.toString('utf8') ?? '')).toMatchObject({ subject: 'Quarterly report', body_html: html, destination: { email: 'ada@example.com' } });
    expect(out.batchItemFailures).toEqual([]);
    expect(bed.c.mailed).toEqual([
      { from: 'hello@acme.test', to: 'ada@example.com', subject: 'Quarterly report', html, text: 'see the html', messageId: res.body.id, accountId: bed.account.account_id },
    ]);
  });

  it('keeps content gzipping to 8 KiB or less in the table, on a content item beside the message, and writes no object', async () => {
    const res = await send(request({ payload: { subject: 'Small', body_html: 'y'.repeat(15_000) } }));
    const stored = await storedMessage(res.body.id);
    await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    expect(res.status).toBe(201);
    expect(stored).toMatchObject({ content_item: stored!.body_digest, status: 'queued' });
    for (const field of ['from', 'subject', 'body_html', 'destination', 'metadata']) expect(stored).not.toHaveProperty(field);
    expect(stored).not.toHaveProperty('content_ref');
    expect(await bed.c.store.get(keys.messageContent(res.body.id, stored!.body_digest))).toMatchObject({ entity: 'message_content', id: res.body.id });
    expect(await bed.c.objects.get(await contentKeyOf(res.body.id))).toBeUndefined();
    expect(bed.c.mailed).toEqual([expect.objectContaining({ subject: 'Small', html: 'y'.repeat(15_000), from: 'hello@acme.test', to: 'ada@example.com' })]);
  });

  it('moves a large subject, metadata or destination off the item too', async () => {
    const res = await send(request({ destination: { email: 'ada@example.com', note: noise(100_000) }, metadata: { from_email: 'hello@acme.test', tags: noise(300_000) } }));
    await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    const stored = await storedMessage(res.body.id);
    expect(res.status).toBe(201);
    expect(itemBytes(stored)).toBeLessThan(2048);
    expect(bed.c.mailed).toEqual([expect.objectContaining({ from: 'hello@acme.test', to: 'ada@example.com', subject: 'Hello', html: '<p>Hi Ada</p>' })]);
  });

  it('answers GET /v1/messages/{id} for a message whose content is in the object store, with no content in it', async () => {
    const sent = await send(requestOfSize(100_000));

    const res = await call({ method: 'GET', path: `/v1/messages/${sent.body.id}`, key: bed.account.admin_key });

    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['channel', 'created_at', 'events', 'id', 'idempotency_key', 'message_type', 'provider_message_id', 'scheduled_at', 'status', 'template_id', 'template_version', 'test_mode', 'updated_at']);
  });

  it('records failed with a reason, mails nothing and does not retry when the content object is missing', async () => {
    // Prepare
    const res = await send(requestOfSize(50_000));
    await bed.c.objects.delete(await contentKeyOf(res.body.id));

    // Act
    const out = await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    // Assess
    expect(out.batchItemFailures).toEqual([]);
    expect(bed.c.mailed).toEqual([]);
    const view = await call({ method: 'GET', path: `/v1/messages/${res.body.id}`, key: bed.account.admin_key });
    expect(view.body.status).toBe('failed');
    expect(view.body.events).toEqual([expect.objectContaining({ type: 'failed', source: 'worker', payload: { error: 'message content is missing from the object store' } })]);
  });

  it('retries when the object store fails, and records failed on the send queue’s last receive', async () => {
    // Prepare
    const res = await send(requestOfSize(50_000));
    const job = jobFor(res.body.id);
    const objects = bed.c.objects;
    bed.c.objects = Object.assign(Object.create(objects) as typeof objects, { get: async () => Promise.reject(new Error('S3 SlowDown')) });

    // Act
    let early: Awaited<ReturnType<typeof sendWorker>>;
    let last: Awaited<ReturnType<typeof sendWorker>>;
    const record = sqsRecord(job);
    try {
      early = await sendWorker(sqsEvent([record]));
      last = await sendWorker(sqsEvent([sqsRecord(job, queueNamed('send').maxReceiveCount)]));
    } finally {
      bed.c.objects = objects;
    }

    // Assess
    expect(early.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(last.batchItemFailures).toEqual([]);
    expect(bed.c.mailed).toEqual([]);
    const view = await call({ method: 'GET', path: `/v1/messages/${res.body.id}`, key: bed.account.admin_key });
    expect(view.body.status).toBe('failed');
    expect(view.body.events).toEqual([expect.objectContaining({ type: 'failed', payload: { error: 'S3 SlowDown' } })]);
  });
});

describe('a bulk send with large content', () => {
  it('stores each recipient’s content in the object store from the fan-out, under its manifest needs', async () => {
    // Prepare
    const html = `<p>${noise(200_000)}</p>`;
    const posted = await call({ method: 'POST', path: '/v1/send/bulk', key: bed.account.admin_key, body: { from_email: 'news@acme.test', subject: 'News', body_html: html, recipients: [{ email: 'ada@example.com' }, { email: 'bob@example.com' }] } });
    const fanOutJob = bed.c.sent.find((s) => s.queue === 'fanout' && 'chunk' in (s.body as object))?.body; // the chunk's job, not the start's safety net

    // Act
    const out = await fanOut(sqsEvent([sqsRecord(fanOutJob)]));
    const jobs = bed.c.sent.filter((s) => s.queue === 'send').map((s) => s.body as { message_id: string });
    await sendWorker(sqsEvent(jobs.map((job) => sqsRecord(job))));

    // Assess
    expect(posted.status).toBe(202);
    expect(out.batchItemFailures).toEqual([]);
    expect(jobs).toHaveLength(2);
    for (const { message_id } of jobs) expect((await storedMessage(message_id))?.content_ref).toBe(await contentKeyOf(message_id));
    expect(bed.c.mailed.map((m) => [m.to, m.html]).sort()).toEqual([
      ['ada@example.com', html],
      ['bob@example.com', html],
    ]);
  });
});

describe('the webhook channel with large data', () => {
  let receiver: Awaited<ReturnType<typeof startHttpReceiver>>;
  beforeEach(async () => {
    receiver = await startHttpReceiver();
    bed.c.config.webhookAllowPrivate = true;
    bed.c.http = new GuardedHttp({ allowPrivate: true }); // the receiver listens on loopback
    await call({ method: 'PUT', path: '/v1/account/channels/webhook', key: bed.account.admin_key, body: { enabled: true } });
  });
  afterEach(async () => {
    bed.c.config.webhookAllowPrivate = false;
    bed.c.http = new GuardedHttp({ allowPrivate: false });
    await receiver.close();
  });

  it('posts the whole payload.data read back from the object store', async () => {
    const data = { rows: Array.from({ length: 5_000 }, (_, i) => ({ i, name: `row ${i}`, pad: noise(40, i + 1) })) };
    const res = await send({ channel: 'webhook', idempotency_key: `size-${++n}`, destination: { url: `${receiver.url}/in` }, payload: { data } });

    await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    expect(res.status).toBe(201);
    expect((await storedMessage(res.body.id))?.content_ref).toBe(await contentKeyOf(res.body.id));
    expect(receiver.requests).toHaveLength(1);
    expect(JSON.parse(receiver.requests[0]?.body.toString('utf8') ?? '')).toEqual(data);
  });

  it('records failed without posting when the content object is missing', async () => {
    const res = await send({ channel: 'webhook', idempotency_key: `size-${++n}`, destination: { url: `${receiver.url}/in` }, payload: { data: { pad: noise(20_000) } } });
    await bed.c.objects.delete(await contentKeyOf(res.body.id));

    const out = await sendWorker(sqsEvent([sqsRecord(jobFor(res.body.id))]));

    expect(out.batchItemFailures).toEqual([]);
    expect(receiver.requests).toHaveLength(0);
    const view = await call({ method: 'GET', path: `/v1/messages/${res.body.id}`, key: bed.account.admin_key });
    expect(view.body.status).toBe('failed');
    expect(view.body.events).toEqual([expect.objectContaining({ type: 'failed', payload: { error: 'message content is missing from the object store' } })]);
  });
});

describe('the 5 MiB limit of one message', () => {
  it('accepts content of exactly 5 MiB and refuses one byte more with 413 payload_too_large', async () => {
    const atLimit = requestOfSize(MAX_MESSAGE_BYTES);
    const over = requestOfSize(MAX_MESSAGE_BYTES + 1);

    const accepted = await send(atLimit);
    const refused = await send(over);

    expect(accepted.status).toBe(201);
    expect(refused.status).toBe(413);
    expect(refused.body).toEqual({
      error: {
        code: 'payload_too_large',
        message: `message content (payload, destination, metadata and template_vars as JSON) is ${MAX_MESSAGE_BYTES + 1} bytes; one message may hold at most ${MAX_MESSAGE_BYTES} bytes (5 MiB)`,
        status: 413,
      },
    });
  });

  it('stores nothing for a refused send: no message, no claim, and the key is free for a new send', async () => {
    // Prepare
    const key = `too-big-${++n}`;
    const big = requestOfSize(MAX_MESSAGE_BYTES + 200_000, { idempotency_key: key });

    // Act
    const refused = await send(big);
    const claim = await findByIdempotencyKey(bed.c.store, bed.account.account_id, key);
    const lookup = await call({ method: 'GET', path: '/v1/messages', key: bed.account.admin_key, query: { idempotency_key: key } });
    const jobsAfterRefusal = bed.c.sent.filter((s) => s.queue === 'send').length;
    const retry = await send(request({ idempotency_key: key }));

    // Assess
    expect(refused.status).toBe(413);
    expect(refused.body.error.code).toBe('payload_too_large');
    expect(claim).toBeUndefined();
    expect(lookup.status).toBe(404);
    expect(jobsAfterRefusal).toBe(0);
    expect(retry.status).toBe(201);
    expect(retry.body).toMatchObject({ idempotency_key: key, status: 'queued' });
    expect(await storedMessage(retry.body.id)).not.toHaveProperty('content_ref');
  });

  it('counts bytes, not characters: 3 MiB of two-byte characters is over the limit', async () => {
    const res = await send(request({ payload: { subject: 'é', body_text: 'é'.repeat(3 * 1024 * 1024) } }));

    expect(res.status).toBe(413);
    expect(res.body.error.code).toBe('payload_too_large');
  });

  it('counts metadata and template_vars too', async () => {
    const metadata = await send(request({ metadata: { from_email: 'hello@acme.test', blob: 'm'.repeat(MAX_MESSAGE_BYTES) } }));
    const vars = await send(request({ template_vars: { blob: 'v'.repeat(MAX_MESSAGE_BYTES) } }));

    expect(metadata.status).toBe(413);
    expect(vars.status).toBe(413);
  });

  it('in a batch, answers the oversize item 413 on its own and accepts the others', async () => {
    // Prepare
    const bigKey = `batch-big-${++n}`;
    const items = [request(), requestOfSize(MAX_MESSAGE_BYTES + 1, { idempotency_key: bigKey }), requestOfSize(100_000)];

    // Act
    const res = await sendBatch(items);

    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual([
      { success: true, response: expect.objectContaining({ idempotency_key: items[0]!.idempotency_key, status: 'queued' }) },
      { success: false, error: { code: 'payload_too_large', message: expect.stringContaining('at most 5242880 bytes (5 MiB)'), status: 413 } },
      { success: true, response: expect.objectContaining({ idempotency_key: items[2]!.idempotency_key, status: 'queued' }) },
    ]);
    expect(bed.c.sent.filter((s) => s.queue === 'send')).toHaveLength(2);
    expect(await findByIdempotencyKey(bed.c.store, bed.account.account_id, bigKey)).toBeUndefined();
    expect((await storedMessage(res.body[2].response.id))?.content_ref).toBe(await contentKeyOf(res.body[2].response.id));
  });
});
