// shared/sending/messages/content.ts: how one message's size is measured and limited, and where its content
// is kept, over the real file object store in a temp dir this file removes.
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, describe, expect, it } from 'vitest';
import { FileObjectStore } from '../../shared/adapters/local/file-object-store';
import { ApiError } from '../../shared/errors';
import {
  checkMessageSize,
  ContentMissingError,
  contentKey,
  INLINE_CONTENT_BYTES,
  loadAttachments,
  loadContent,
  MAX_MESSAGE_BYTES,
  placeContent,
  requestContentBytes,
  STATUS_ITEM_BYTES,
  STATUS_ITEM_ROOM,
} from '../../shared/sending/messages/content';
import { storedItemBytes } from '../../shared/db/item-size';
import { type AttachmentRef, type MessageItem } from '../../shared/sending/messages/model';
import type { ObjectStore } from '../../shared/ports/object-store';
import type { NewMessage } from '../../shared/sending/messages/repository';

const root = mkdtempSync(join(tmpdir(), 'postbox-content-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const objects = new FileObjectStore(root);

const ACCOUNT = 'acct_01jabcdefghjkmnpqrstvwxyz0';
let seq = 0;
const messageId = () => `msg_01jabcdefghjkmnpqrstv${String(++seq).padStart(5, '0')}`;

function message(over: Partial<NewMessage> = {}): NewMessage {
  return {
    id: messageId(),
    account_id: ACCOUNT,
    channel: 'email',
    status: 'queued',
    message_type: 'transactional',
    idempotency_key: 'k',
    test_mode: false,
    key_id: 'key_1',
    recipient: 'ada@example.com',
    from: 'hello@acme.test',
    subject: 'Hi',
    body_html: '<p>hi</p>',
    body_text: 'hi',
    destination: { email: 'ada@example.com' },
    metadata: { from_email: 'hello@acme.test' },
    created_at: '2026-03-01T12:00:00.000Z',
    updated_at: '2026-03-01T12:00:00.000Z',
    ...over,
  };
}
/** What the store would hold for a new message (keys are irrelevant to content.ts). */
const asItem = (m: NewMessage): MessageItem => ({ pk: 'MSG', sk: 'MSG', entity: 'message', ...m }) as MessageItem;
/** A message whose content fields serialize to exactly `bytes`, padded in body_html. */
function messageOfContentSize(bytes: number): NewMessage {
  const base = message({ body_html: '' });
  const { from, subject, body_html, body_text, data, destination, metadata } = base;
  const baseBytes = Buffer.byteLength(JSON.stringify({ from, subject, body_html, body_text, data, destination, metadata }));
  return { ...base, body_html: 'h'.repeat(bytes - baseBytes) };
}

describe('the size of one message', () => {
  it('is the UTF-8 bytes of payload, destination, metadata and template_vars as compact JSON', () => {
    const request = { payload: { body_text: 'é' }, destination: { email: 'a@b.co' }, metadata: { x: 1 }, template_vars: { v: 'w' } };

    expect(requestContentBytes(request)).toBe(
      Buffer.byteLength('{"body_text":"é"}') + Buffer.byteLength('{"email":"a@b.co"}') + Buffer.byteLength('{"x":1}') + Buffer.byteLength('{"v":"w"}'),
    );
    expect(requestContentBytes({ destination: {} })).toBe(2);
  });

  it('may be 5 MiB; one byte more is 413 payload_too_large naming the limit', () => {
    const destination = { email: 'a@b.co' };
    const filler = (bytes: number) => ({ destination, payload: { body_html: 'x'.repeat(bytes - requestContentBytes({ destination, payload: { body_html: '' } })) } });

    expect(() => checkMessageSize(filler(MAX_MESSAGE_BYTES))).not.toThrow();
    let thrown: unknown;
    try {
      checkMessageSize(filler(MAX_MESSAGE_BYTES + 1));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    expect((thrown as ApiError).toBody()).toEqual({ code: 'payload_too_large', status: 413, message: expect.stringContaining(`at most ${MAX_MESSAGE_BYTES} bytes (5 MiB)`) });
  });
});

describe('the object key of a message’s content', () => {
  it('is built from the account and message ids', () => {
    expect(contentKey(ACCOUNT, 'msg_01jabcdefghjkmnpqrstvwxyz0')).toBe(`messages/${ACCOUNT}/msg_01jabcdefghjkmnpqrstvwxyz0.json`);
  });

  it('refuses anything that is not one of our ids', () => {
    expect(() => contentKey(ACCOUNT, '../../etc/passwd')).toThrow(/message id/);
    expect(() => contentKey('acct_x/..', 'msg_01jabcdefghjkmnpqrstvwxyz0')).toThrow(/account/);
  });
});

/** A stand-in for the message repository's content items, as the store would hold them. */
function contentItems() {
  const items = new Map<string, Uint8Array>();
  return {
    put: (id: string, gz: Uint8Array) => void items.set(id, gz),
    messages: { getContent: async (id: string) => (items.has(id) ? { pk: `MSG#${id}`, sk: 'CONTENT', entity: 'message_content' as const, id, content_gz: items.get(id)! } : undefined) },
  };
}

/** Places a message's content as send.ts does, writing the content item where one is made. */
async function place(m: NewMessage, items = contentItems()) {
  const placed = await placeContent(objects, m, KEY_BYTES);
  if (placed.contentGz) items.put(m.id, placed.contentGz);
  return { ...placed, load: () => loadContent({ objects, messages: items.messages }, asItem(placed.message)), items };
}

/** What the stored message item's keys, index attributes and entity add (as repository.messageKeyBytes). */
const KEY_BYTES = 120;

/** Random bytes as base64: content gzip cannot shrink. */
const incompressible = (bytes: number): string => randomBytes(Math.ceil((bytes * 3) / 4)).toString('base64').slice(0, bytes);

describe('placing and loading content', () => {
  it('keeps small content on the message item while the item, with room for status changes, fits one write unit', async () => {
    const m = message();
    const before = readdirSync(root).length;

    const placed = await place(m);

    expect(placed.message).toEqual(m);
    expect(placed.contentGz).toBeUndefined();
    expect(storedItemBytes(m) + KEY_BYTES + STATUS_ITEM_ROOM).toBeLessThanOrEqual(STATUS_ITEM_BYTES);
    expect(readdirSync(root)).toHaveLength(before);
    expect(await placed.load()).toMatchObject({ from: m.from, subject: m.subject, body_html: m.body_html, destination: m.destination });
  });

  it('moves content that would make the message item pass one write unit to a gzipped content item, and reads it back', async () => {
    const m = messageOfContentSize(2_000);
    const before = readdirSync(root).length;

    const placed = await place(m);

    expect(placed.message.content_item).toBe(true);
    for (const field of ['from', 'subject', 'body_html', 'body_text', 'data', 'destination', 'metadata']) expect(placed.message).not.toHaveProperty(field);
    expect(storedItemBytes(placed.message) + KEY_BYTES + STATUS_ITEM_ROOM).toBeLessThanOrEqual(STATUS_ITEM_BYTES);
    expect(readdirSync(root)).toHaveLength(before);
    expect(await placed.load()).toEqual({ from: m.from, subject: m.subject, body_html: m.body_html, body_text: m.body_text, destination: m.destination, metadata: m.metadata });
  });

  it('keeps a 20 KB HTML body in the table when it gzips to at most 8 KiB', async () => {
    const html = Array.from({ length: 400 }, (_, i) => `<tr><td style="padding:12px">Row ${i} of the newsletter</td></tr>`).join('').slice(0, 20_480);
    const m = message({ body_html: html });

    const placed = await place(m);

    expect(placed.message.content_item).toBe(true);
    expect(placed.contentGz!.byteLength).toBeLessThanOrEqual(INLINE_CONTENT_BYTES);
    expect((await placed.load()).body_html).toBe(html);
  });

  it('keeps content gzipping to exactly 8 KiB in the table, and moves one more byte of gzip to the object store', async () => {
    // Incompressible content: gzip adds a fixed overhead, so find the body lengths around the limit.
    const gzBytes = (m: NewMessage) => gzipSync(JSON.stringify({ from: m.from, subject: m.subject, body_html: m.body_html, body_text: m.body_text, data: m.data, destination: m.destination, metadata: m.metadata })).byteLength;
    // Base64 gzips to about 3/4 of its length: search up from there, by halving steps.
    const random = incompressible(4 * INLINE_CONTENT_BYTES);
    let n = 0;
    for (let step = random.length; step >= 1; step = Math.floor(step / 2)) {
      while (n + step < random.length && gzBytes(message({ body_html: random.slice(0, n + step) })) <= INLINE_CONTENT_BYTES) n += step;
    }
    const atLimit = message({ body_html: random.slice(0, n) });
    const past = message({ body_html: random.slice(0, n + 1) });
    expect(gzBytes(past)).toBeGreaterThan(INLINE_CONTENT_BYTES);

    const kept = await place(atLimit);
    const moved = await place(past);

    expect(kept.message.content_item).toBe(true);
    expect(kept.message.content_ref).toBeUndefined();
    expect(moved.message.content_ref).toBe(contentKey(ACCOUNT, past.id));
    expect(moved.message.content_item).toBeUndefined();
    expect(moved.contentGz).toBeUndefined();
    expect((await moved.load()).body_html).toBe(past.body_html);
  });

  it('moves content gzipping past 8 KiB to the object store and reads the same content back', async () => {
    const m = message({ body_html: incompressible(20_000) });

    const placed = await place(m);

    const key = contentKey(ACCOUNT, m.id);
    expect(placed.message.content_ref).toBe(key);
    for (const field of ['from', 'subject', 'body_html', 'body_text', 'data', 'destination', 'metadata']) expect(placed.message).not.toHaveProperty(field);
    expect(placed.message).toMatchObject({ id: m.id, recipient: m.recipient, status: 'queued', idempotency_key: 'k' });
    expect(await placed.load()).toEqual({
      from: m.from,
      subject: m.subject,
      body_html: m.body_html,
      body_text: m.body_text,
      destination: m.destination,
      metadata: m.metadata,
    });
  });

  it('moves webhook data and reads it back unchanged', async () => {
    const data = { nested: { list: [1, 2.5, null, true, incompressible(20_000)] } };
    const m = message({ channel: 'webhook', from: '', subject: '', body_html: undefined, body_text: undefined, data, destination: { url: 'https://example.com/in' } });

    const placed = await place(m);

    expect(placed.message.content_ref).toBe(contentKey(ACCOUNT, m.id));
    expect((await placed.load()).data).toEqual(data);
  });

  it('writes the same key again when a taken-over claim stores the message a second time', async () => {
    const m = message({ body_html: incompressible(40_000) });

    const first = await place(m);
    const second = await place({ ...m, subject: 'Again' });

    expect(second.message.content_ref).toBe(first.message.content_ref);
    expect((await second.load()).subject).toBe('Again');
  });

  it('reports a missing object or content item, an unreadable one and an item without content as ContentMissingError', async () => {
    const big = () => message({ body_html: incompressible(30_000) });
    const gone = await place(big());
    await objects.delete(gone.message.content_ref!);
    const corrupt = await place(big());
    await objects.put(corrupt.message.content_ref!, Buffer.from('{"from": tru'), 'application/json');
    const partial = await place(big());
    await objects.put(partial.message.content_ref!, Buffer.from('{"body_html":"x"}'), 'application/json');
    const noItem = await place(messageOfContentSize(3_000), contentItems());
    const noItemMessages = contentItems().messages;
    const { subject: _omit, ...noSubject } = message();

    await expect(gone.load()).rejects.toThrow(new ContentMissingError('message content is missing from the object store'));
    await expect(corrupt.load()).rejects.toThrow(/not valid JSON/);
    await expect(partial.load()).rejects.toThrow(/lacks from, subject or destination/);
    await expect(loadContent({ objects, messages: noItemMessages }, asItem(noItem.message))).rejects.toThrow(new ContentMissingError('message content item is missing from the store'));
    await expect(loadContent({ objects, messages: noItemMessages }, asItem(noSubject as NewMessage))).rejects.toBeInstanceOf(ContentMissingError);
  });

  it('lets an object store failure through as it came, so the queue retries it', async () => {
    const placed = await place(message({ body_html: incompressible(30_000) }));
    const failing: ObjectStore = Object.assign(Object.create(objects) as ObjectStore, { get: async () => Promise.reject(new Error('SlowDown')) });

    await expect(loadContent({ objects: failing, messages: contentItems().messages }, asItem(placed.message))).rejects.toThrow('SlowDown');
  });
});

describe('an internal sender’s headers and attachment references', () => {
  const headers = [
    { name: 'In-Reply-To', value: '<a1@example.org>' },
    { name: 'References', value: '<a0@example.org> <a1@example.org>' },
  ];
  const ref = (key: string, size: number): AttachmentRef => ({ filename: 'forwarded-message.eml', content_type: 'message/rfc822', object_key: key, size });

  it('travel with the content wherever it is kept: the message item, a content item, the object store', async () => {
    const attachments = [ref('inbound/raw/one', 10), ref('inbound/raw/two', 20)];
    const small = await place(message({ body_html: undefined, body_text: 'hi', metadata: undefined, headers: [headers[0]!], attachments: [attachments[0]!] }));
    const medium = await place({ ...messageOfContentSize(2_000), headers, attachments });
    const large = await place(message({ body_html: incompressible(20_000), headers, attachments }));

    expect(small.message.content_item ?? small.message.content_ref).toBeUndefined();
    expect(medium.message.content_item).toBe(true);
    expect(large.message.content_ref).toBe(contentKey(ACCOUNT, large.message.id));
    for (const placed of [medium, large]) {
      expect(placed.message).not.toHaveProperty('headers');
      expect(placed.message).not.toHaveProperty('attachments');
    }
    expect(await small.load()).toMatchObject({ headers: [headers[0]], attachments: [attachments[0]] });
    expect(await medium.load()).toMatchObject({ headers, attachments });
    expect(await large.load()).toMatchObject({ headers, attachments });
  });

  it('are read at send time in order, with their bytes, names and types', async () => {
    const eml = Buffer.from('From: a@example.org\r\nSubject: hi\r\n\r\n\u00e9 8-bit body\n', 'utf8');
    const pdf = randomBytes(300);
    await objects.put('inbound/raw/eml', eml, 'message/rfc822');
    await objects.put('uploads/report.pdf', pdf, 'application/pdf');

    const loaded = await loadAttachments(objects, [ref('inbound/raw/eml', eml.length), { filename: 'report.pdf', content_type: 'application/pdf', object_key: 'uploads/report.pdf', size: pdf.length }]);

    expect(loaded).toEqual([
      { filename: 'forwarded-message.eml', contentType: 'message/rfc822', content: eml },
      { filename: 'report.pdf', contentType: 'application/pdf', content: pdf },
    ]);
    expect(await loadAttachments(objects, undefined)).toEqual([]);
  });

  it('report an object that is gone, or not the size it was accepted with, as ContentMissingError; a store failure as it came', async () => {
    await objects.put('inbound/raw/changed', Buffer.from('12345'), 'message/rfc822');
    const failing: ObjectStore = Object.assign(Object.create(objects) as ObjectStore, { get: async () => Promise.reject(new Error('SlowDown')) });

    await expect(loadAttachments(objects, [ref('inbound/raw/never-written', 3)])).rejects.toThrow(new ContentMissingError('attachment 0 (forwarded-message.eml) is missing from the object store'));
    await expect(loadAttachments(objects, [ref('inbound/raw/changed', 4)])).rejects.toThrow(
      new ContentMissingError('attachment 0 (forwarded-message.eml) is 5 bytes in the object store, not the 4 it was accepted with'),
    );
    await expect(loadAttachments(failing, [ref('inbound/raw/changed', 5)])).rejects.toThrow('SlowDown');
  });
});
