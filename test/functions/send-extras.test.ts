// An internal sender's headers and attachments (shared/sending/messages/extras.ts) through the real send
// pipeline: acceptSends keeps them with the message content, the send worker reads the attached
// objects at send time and hands them to the mailer; a missing object fails the message for good.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { loadContent } from '../../shared/sending/messages/content';
import type { MessageExtras } from '../../shared/sending/messages/extras';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { acceptSends, type SendOutcome } from '../../shared/sending/messages/send';
import { readTimeline } from '../../shared/sending/messages/timeline';
import type { ObjectStore } from '../../shared/ports/object-store';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { emailSends } from '../support/send-body';
import { useTestbed } from '../support/testbed';
import { sendWorker as handler } from '../support/consumers';

const bed = useTestbed();

const request = emailSends('extras', { to: 'ada@example.com', from: 'Acme <hi@acme.test>', subject: 'Re: your order', text: 'It shipped.' });

const accept = async (body: Record<string, unknown>, extras?: MessageExtras): Promise<SendOutcome> => {
  const [outcome] = await acceptSends(bed.c, { accountId: bed.account.account_id, keyId: 'internal', testMode: false }, [body], { batch: false, extras });
  return outcome!;
};

const idOf = (outcome: SendOutcome): string => {
  if (outcome.kind !== 'accepted') throw new Error(`not accepted: ${JSON.stringify(outcome)}`);
  return outcome.message.id;
};

/** Runs the send job of a message through the real consumer; answers the batch failures. */
async function work(messageId: string): Promise<unknown[]> {
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === messageId);
  expect(job).toBeDefined();
  return (await handler(sqsEvent([sqsRecord(job!.body)]))).batchItemFailures;
}

const headers = [
  { name: 'in-reply-to', value: '<order-1@example.com>' },
  { name: 'References', value: '<order-0@example.com> <order-1@example.com>' },
];
const invoice = Buffer.from('%PDF-1.4 \u00e9\u0000\u00ff not really a pdf', 'latin1');
const original = Buffer.from('From: ada@example.com\r\nSubject: my order\r\n\r\nWhere is it?\r\n');
let keySeq = 0;
/** Puts an object in the container's object store and answers its reference. */
async function stored(body: Buffer, filename: string, contentType: string) {
  const key = `uploads/test/${++keySeq}-${filename}`;
  await bed.c.objects.put(key, body, contentType);
  return { filename, content_type: contentType, object_key: key, size: body.length };
}

let objects: ObjectStore;
beforeEach(() => {
  objects = bed.c.objects;
});
afterEach(() => {
  bed.c.objects = objects;
});

describe('accepted with extras', () => {
  it('keeps the headers (canonical names) and references with the content, and the worker mails them with the objects’ bytes', async () => {
    const attachments = [await stored(invoice, 'invoice.pdf', 'application/pdf'), await stored(original, 'forwarded-message.eml', 'message/rfc822')];
    const id = idOf(await accept(request(), { headers, attachments }));

    const message = (await new MessageRepository(bed.c.store).get(id))!;
    const content = await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, message);
    expect(content.headers).toEqual([{ name: 'In-Reply-To', value: '<order-1@example.com>' }, headers[1]]);
    expect(content.attachments).toEqual(attachments);

    expect(await work(id)).toEqual([]);

    expect(bed.c.mailed).toHaveLength(1);
    const [mail] = bed.c.mailed;
    expect(mail).toMatchObject({ from: 'Acme <hi@acme.test>', to: 'ada@example.com', subject: 'Re: your order', text: 'It shipped.', messageId: id });
    expect(mail?.headers).toEqual(content.headers);
    expect(mail?.attachments).toEqual([
      { filename: 'invoice.pdf', contentType: 'application/pdf', content: invoice },
      { filename: 'forwarded-message.eml', contentType: 'message/rfc822', content: original },
    ]);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('sent');
  });

  it('puts a marketing message’s unsubscribe headers after the caller’s', async () => {
    const id = idOf(await accept(request({ message_type: 'marketing' }), { headers: [headers[1]!] }));

    await work(id);

    expect(bed.c.mailed[0]?.headers?.map((h) => h.name)).toEqual(['References', 'List-Unsubscribe', 'List-Unsubscribe-Post']);
  });

  it('replays the same key with the same extras, and calls the same key with other extras a reuse', async () => {
    const body = request();
    const first = await accept(body, { headers });

    expect(await accept(body, { headers })).toEqual(first);
    expect(await accept(body, { headers: [headers[0]!] })).toMatchObject({ kind: 'rejected', error: { code: 'idempotency_key_reused' } });
    expect(await accept(body)).toMatchObject({ kind: 'rejected', error: { code: 'idempotency_key_reused' } });
    // Every call handed a job on for the one message before it found it stored; the dispatch lease sends it once.
    expect(new Set(bed.c.sent.filter((s) => s.queue === 'send').map((s) => (s.body as { message_id: string }).message_id)).size).toBe(1);
  });
});

describe('refused before anything is stored', () => {
  it('a header that would inject another, a header off the allowlist, a message too large once encoded', async () => {
    const body = request();
    const injected = await accept(body, { headers: [{ name: 'In-Reply-To', value: '<a@x>\r\nBcc: everyone@example.org' }] });
    const offList = await accept(request(), { headers: [{ name: 'Bcc', value: 'everyone@example.org' }] });
    const huge = await accept(request(), { attachments: [{ filename: 'big.bin', content_type: 'application/octet-stream', object_key: 'uploads/none', size: 35_000_000 }] });

    expect(injected).toMatchObject({ kind: 'rejected', error: { code: 'invalid_request', message: expect.stringMatching(/^extras\.headers\.0\.value: .*no CR or LF/) } });
    expect(offList).toMatchObject({ kind: 'rejected', error: { code: 'invalid_request', message: expect.stringMatching(/^extras\.headers\.0\.name: /) } });
    expect(huge).toMatchObject({ kind: 'rejected', error: { code: 'payload_too_large', status: 413 } });
    expect(bed.c.sent).toEqual([]);
    // Nothing was claimed: the same key with proper extras is a first send.
    expect((await accept(body, { headers })).kind).toBe('accepted');
  });
});

describe('at send time', () => {
  it('fails the message for good when an attached object is gone: no mail, a failed event, no retry', async () => {
    const ref = await stored(invoice, 'invoice.pdf', 'application/pdf');
    const id = idOf(await accept(request(), { attachments: [ref] }));
    await bed.c.objects.delete(ref.object_key);

    expect(await work(id)).toEqual([]);

    expect(bed.c.mailed).toEqual([]);
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message?.status).toBe('failed');
    expect(events).toEqual([expect.objectContaining({ type: 'failed', source: 'worker', payload: { error: 'attachment 0 (invoice.pdf) is missing from the object store' } })]);
  });

  it('fails the message when the object is no longer the size it was accepted with', async () => {
    const ref = await stored(invoice, 'invoice.pdf', 'application/pdf');
    const id = idOf(await accept(request(), { attachments: [ref] }));
    await bed.c.objects.put(ref.object_key, Buffer.concat([invoice, invoice]), 'application/pdf');

    await work(id);

    expect(bed.c.mailed).toEqual([]);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('failed');
  });

  it('retries an object store failure through the queue, then sends', async () => {
    const ref = await stored(invoice, 'invoice.pdf', 'application/pdf');
    const id = idOf(await accept(request(), { attachments: [ref] }));
    bed.c.objects = { ...objects, get: async (key) => (key === ref.object_key ? Promise.reject(new Error('SlowDown')) : objects.get(key)) };

    expect(await work(id)).toHaveLength(1);
    expect(bed.c.mailed).toEqual([]);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('queued');

    bed.c.objects = objects;
    expect(await work(id)).toEqual([]);
    expect(bed.c.mailed.map((m) => m.attachments?.[0]?.content)).toEqual([invoice]);
  });
});
