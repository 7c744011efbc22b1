// shared/messages/content.ts: how one message's size is measured and limited, and where its content
// is kept, over the real file object store in a temp dir this file removes.
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { FileObjectStore } from '../../shared/adapters/local/file-object-store';
import { ApiError } from '../../shared/errors';
import {
  checkMessageSize,
  ContentMissingError,
  contentKey,
  INLINE_CONTENT_BYTES,
  loadContent,
  MAX_MESSAGE_BYTES,
  placeContent,
  requestContentBytes,
} from '../../shared/messages/content';
import type { MessageItem } from '../../shared/messages/model';
import type { ObjectStore } from '../../shared/ports/object-store';
import type { NewMessage } from '../../shared/messages/repository';

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

describe('placing and loading content', () => {
  it('keeps content of exactly 16 KiB on the item and writes nothing', async () => {
    const m = messageOfContentSize(INLINE_CONTENT_BYTES);
    const before = readdirSync(root).length;

    const placed = await placeContent(objects, m);

    expect(placed).toEqual(m);
    expect(readdirSync(root)).toHaveLength(before);
    expect(await loadContent(objects, asItem(placed))).toMatchObject({ from: m.from, subject: m.subject, body_html: m.body_html, destination: m.destination });
  });

  it('moves content of 16 KiB and one byte to the object store and reads the same content back', async () => {
    const m = messageOfContentSize(INLINE_CONTENT_BYTES + 1);

    const placed = await placeContent(objects, m);

    const key = contentKey(ACCOUNT, m.id);
    expect(placed.content_ref).toBe(key);
    for (const field of ['from', 'subject', 'body_html', 'body_text', 'data', 'destination', 'metadata']) expect(placed).not.toHaveProperty(field);
    expect(placed).toMatchObject({ id: m.id, recipient: m.recipient, status: 'queued', idempotency_key: 'k' });
    expect(await loadContent(objects, asItem(placed))).toEqual({
      from: m.from,
      subject: m.subject,
      body_html: m.body_html,
      body_text: m.body_text,
      destination: m.destination,
      metadata: m.metadata,
    });
  });

  it('moves webhook data and reads it back unchanged', async () => {
    const data = { nested: { list: [1, 2.5, null, true, 'ü'.repeat(20_000)] } };
    const m = message({ channel: 'webhook', from: '', subject: '', body_html: undefined, body_text: undefined, data, destination: { url: 'https://example.com/in' } });

    const placed = await placeContent(objects, m);

    expect(placed.content_ref).toBe(contentKey(ACCOUNT, m.id));
    expect((await loadContent(objects, asItem(placed))).data).toEqual(data);
  });

  it('writes the same key again when a taken-over claim stores the message a second time', async () => {
    const m = messageOfContentSize(40_000);

    const first = await placeContent(objects, m);
    const second = await placeContent(objects, { ...m, subject: 'Again' });

    expect(second.content_ref).toBe(first.content_ref);
    expect((await loadContent(objects, asItem(second))).subject).toBe('Again');
  });

  it('reports a missing object, an unreadable one and an item without content as ContentMissingError', async () => {
    const gone = await placeContent(objects, messageOfContentSize(30_000));
    await objects.delete(gone.content_ref!);
    const corrupt = await placeContent(objects, messageOfContentSize(30_000));
    await objects.put(corrupt.content_ref!, Buffer.from('{"from": tru'), 'application/json');
    const partial = await placeContent(objects, messageOfContentSize(30_000));
    await objects.put(partial.content_ref!, Buffer.from('{"body_html":"x"}'), 'application/json');
    const { subject: _omit, ...noSubject } = message();

    await expect(loadContent(objects, asItem(gone))).rejects.toThrow(new ContentMissingError('message content is missing from the object store'));
    await expect(loadContent(objects, asItem(corrupt))).rejects.toThrow(/not valid JSON/);
    await expect(loadContent(objects, asItem(partial))).rejects.toThrow(/lacks from, subject or destination/);
    await expect(loadContent(objects, asItem(noSubject as NewMessage))).rejects.toBeInstanceOf(ContentMissingError);
  });

  it('lets an object store failure through as it came, so the queue retries it', async () => {
    const placed = await placeContent(objects, messageOfContentSize(30_000));
    const failing: ObjectStore = { put: (...a) => objects.put(...a), delete: (k) => objects.delete(k), get: async () => Promise.reject(new Error('SlowDown')) };

    await expect(loadContent(failing, asItem(placed))).rejects.toThrow('SlowDown');
  });
});
