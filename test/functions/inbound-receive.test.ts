// The inbound worker under its manifest needs: SES receipt notifications (as SNS delivers them to
// the inbound queue) into stored emails, per recipient, once per message, and never dropped.
import { receiptJob } from '../support/receipt';
import { createHash } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { handler as receiveRaw } from '../../functions/inbound/receive-email';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { callRaw } from '../support/api';
import { keys } from '../../shared/db/keys';
import type { InboundEmailItem } from '../../shared/inbound-mail/receipt/repository';
import { IN_MEMORY_ATTACHMENT_BYTES } from '../../shared/inbound-mail/receipt/receive';
import { giveVerifiedDomain } from '../support/domains';
import { rawMailWithAttachment } from '../support/mail';
import { underNeeds } from '../support/grants';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { deliverWebhook } from '../support/consumers';

const receive = underNeeds('functions/inbound/receive-email.ts', receiveRaw);
const bed = useTestbed();

let seq = 0;

/** Stores `raw` where SES's S3 action would and answers its notification, wrapped as SNS sends it. */
async function arrived(raw: string | Buffer, recipients: string[], sesMessageId = `ses-${++seq}`): Promise<unknown> {
  const objectKey = `inbound/${sesMessageId}`;
  await bed.c.objects.put(objectKey, Buffer.isBuffer(raw) ? raw : Buffer.from(raw), 'message/rfc822');
  return notificationFor(objectKey, recipients, sesMessageId);
}

function notificationFor(objectKey: string, recipients: string[], sesMessageId: string): unknown {
  return receiptJob({ objectKey, recipients, sesMessageId, at: bed.c.clock.now().toISOString(), verdicts: { dkim: 'GRAY', dmarc: 'FAIL' } });
}

async function inboundDomain(accountId: string, domain: string): Promise<void> {
  await giveVerifiedDomain(bed.c, accountId, domain, { inbound_enabled: true } as never);
}

const listOf = async (key: string): Promise<any[]> => (await bed.request({ method: 'GET', path: '/v1/inbound', key, query: { limit: '100' } })).body.emails;

/** An email.received subscription of the account (its attempts are never run here: only the delivery log is looked at). */
async function subscribed(): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/hook', event_types: ['email.received'] } });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body.id as string;
}

/** Runs the queued webhook event jobs through the real fan-out, and answers the subscription's delivery log. */
async function deliveriesOf(subscriptionId: string): Promise<Array<{ event_id: string }>> {
  await drain(bed.c.sent, 'webhooks', deliverWebhook, { where: (body) => body.kind === 'event' });
  const res = await bed.request({ method: 'GET', path: `/v1/webhooks/${subscriptionId}/deliveries`, key: bed.account.admin_key, query: { limit: '100' } });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.deliveries;
}

/** An invoice as a vendor (or someone who knows its Message-ID) would mail it: a text and a PDF. */
const invoice = (messageId: string, text: string, pdf: string): string =>
  rawMailWithAttachment({ from: 'billing@vendor.test', to: 'ap@books.test', subject: 'Invoice 7', messageId, text, pdf: { filename: 'invoice.pdf', content: pdf } });

describe('the inbound worker', () => {
  it('stores one email per recipient on an inbound-enabled domain, under the account that owns it', async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await inboundDomain(bed.account.account_id, 'in-a.test');
    await inboundDomain(other.account_id, 'in-b.test');
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'off.test');
    const job = await arrived('From: alice@sender.test\r\nTo: x@in-a.test, y@in-b.test\r\nSubject: Shared\r\n\r\nbody\r\n', ['x@in-a.test', 'y@in-b.test', 'z@off.test']);

    expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });

    const mine = await listOf(bed.account.admin_key);
    const theirs = await listOf(other.admin_key);
    expect(mine.map((e) => e.recipient)).toEqual(['x@in-a.test']);
    expect(theirs.map((e) => e.recipient)).toEqual(['y@in-b.test']);
    expect(mine[0]).toMatchObject({ domain: 'in-a.test', spf_verdict: 'PASS', dkim_verdict: 'GRAY', dmarc_verdict: 'FAIL', to: ['x@in-a.test', 'y@in-b.test'] });
    expect(mine[0].id).not.toBe(theirs[0].id);
  });

  it('forwards each stored email through the matching route, once however often it arrives: a webhook route queues a signed delivery, an email route a send', async () => {
    await inboundDomain(bed.account.account_id, 'routed.test');
    const key = bed.account.admin_key;
    const hook = await bed.request({ method: 'POST', path: '/v1/inbound/routes', key, body: { domain: 'routed.test', match_prefix: 'support', destination_type: 'webhook', forward_url: 'https://93.184.216.34/in' } });
    expect(hook.status, JSON.stringify(hook.body)).toBe(201);
    const mail = await bed.request({ method: 'POST', path: '/v1/inbound/routes', key, body: { domain: 'routed.test', match_prefix: '', destination_type: 'email', forward_address: 'team@elsewhere.example' } });
    expect(mail.status, JSON.stringify(mail.body)).toBe(201);
    bed.c.sent.length = 0;

    const job = await arrived('From: alice@sender.test\r\nTo: support@routed.test, sales@routed.test\r\nSubject: Help\r\n\r\nplease\r\n', ['support@routed.test', 'sales@routed.test']);
    expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    expect(await receive(sqsEvent([sqsRecord(job, 2)]))).toEqual({ batchItemFailures: [] });

    const routeJobs = bed.c.sent.filter((s) => s.queue === 'webhooks' && (s.body as { kind?: string }).kind === 'route_attempt');
    // One delivery of the support@ mail to the webhook route (handed on again while it has had no attempt yet).
    expect(new Set(routeJobs.map((s) => JSON.stringify([(s.body as { route_id: string }).route_id, (s.body as { delivery_id: string }).delivery_id])))).toEqual(
      new Set([JSON.stringify([hook.body.id, (routeJobs[0]!.body as { delivery_id: string }).delivery_id])]),
    );
    const sends = bed.c.sent.filter((s) => s.queue === 'send');
    const messages = (await bed.request({ method: 'GET', path: '/v1/messages', key })).body.messages as Array<{ id: string }>;
    expect(messages).toHaveLength(1);
    // One message; the repeat hands its job on again (the dispatch lease sends it once).
    expect(new Set(sends.map((s) => (s.body as { message_id: string }).message_id))).toEqual(new Set([messages[0]!.id]));
  });

  it('stores a notification delivered twice once, under the same id, with one email.received delivery', async () => {
    await inboundDomain(bed.account.account_id, 'twice.test');
    const subscription = await subscribed();
    const job = await arrived('From: alice@sender.test\r\nSubject: Again\r\nMessage-ID: <again@sender.test>\r\n\r\nbody\r\n', ['me@twice.test']);
    await receive(sqsEvent([sqsRecord(job)]));
    const first = await listOf(bed.account.admin_key);
    bed.c.clock.advance(60_000);
    await receive(sqsEvent([sqsRecord(job, 2)]));
    const second = await listOf(bed.account.admin_key);
    expect(second).toEqual(first);
    expect(second).toHaveLength(1);
    expect((await deliveriesOf(subscription)).map((d) => d.event_id)).toEqual([`evt_${first[0].id}`]);
  });

  it('takes the same bytes stored again under another object key for the same email: the first copy stays what it serves', async () => {
    await inboundDomain(bed.account.account_id, 'copy.test');
    const raw = invoice('<copy@vendor.test>', 'the same bytes', 'PDF-1');
    await receive(sqsEvent([sqsRecord(await arrived(raw, ['ap@copy.test'], 'ses-copy-1'))]));
    bed.c.clock.advance(60_000);
    await receive(sqsEvent([sqsRecord(await arrived(raw, ['ap@copy.test'], 'ses-copy-2'))]));

    const emails = await listOf(bed.account.admin_key);
    expect(emails).toHaveLength(1);
    const item = await bed.c.store.get<InboundEmailItem>(keys.inboundEmail(bed.account.account_id, emails[0].id));
    expect(item?.raw_key).toBe('inbound/ses-copy-1');
    const attachment = await callRaw({ method: 'GET', path: `/v1/inbound/${emails[0].id}/attachments/0`, key: bed.account.admin_key });
    expect(attachment.statusCode).toBe(200);
    expect(Buffer.from(attachment.body ?? '', 'base64').toString('utf8')).toBe('PDF-1');
  });

  it('stores a second message with the same Message-ID as an email of its own, never over the first (body, raw bytes, attachment, event, Mail message)', async () => {
    await inboundDomain(bed.account.account_id, 'books.test');
    const subscription = await subscribed();
    const genuine = invoice('<invoice-7@vendor.test>', 'Please pay 100 EUR to account 111.', 'PDF-GENUINE');
    const forged = invoice('<invoice-7@vendor.test>', 'Please pay 100 EUR to account 999.', 'PDF-FORGED');
    await receive(sqsEvent([sqsRecord(await arrived(genuine, ['ap@books.test']))]));
    bed.c.clock.advance(60_000);
    await receive(sqsEvent([sqsRecord(await arrived(forged, ['ap@books.test']))]));

    const key = bed.account.admin_key;
    const emails = await listOf(key);
    expect(emails).toHaveLength(2);
    // Newest first: the forged one came second.
    const [second, first] = emails as Array<{ id: string; thread_id: string }>;
    const bytes = async (path: string): Promise<string> => {
      const res = await callRaw({ method: 'GET', path, key });
      expect(res.statusCode).toBe(200);
      return Buffer.from(res.body ?? '', res.isBase64Encoded ? 'base64' : 'utf8').toString('utf8');
    };
    const read = async (id: string) => {
      const full = await bed.request({ method: 'GET', path: `/v1/inbound/${id}`, key });
      return { text: full.body.text, rfcMessageId: full.body.rfc_message_id, raw: await bytes(`/v1/inbound/${id}/raw`), pdf: await bytes(`/v1/inbound/${id}/attachments/0`) };
    };
    expect(await read(first!.id)).toEqual({ text: 'Please pay 100 EUR to account 111.', rfcMessageId: '<invoice-7@vendor.test>', raw: genuine, pdf: 'PDF-GENUINE' });
    expect(await read(second!.id)).toEqual({ text: 'Please pay 100 EUR to account 999.', rfcMessageId: '<invoice-7@vendor.test>', raw: forged, pdf: 'PDF-FORGED' });
    // One email.received each.
    expect(new Set((await deliveriesOf(subscription)).map((d) => d.event_id))).toEqual(new Set([`evt_${first!.id}`, `evt_${second!.id}`]));
    // The Mail app files both in the conversation the Message-ID names, each its own message.
    expect(second!.thread_id).toBe(first!.thread_id);
    const thread = await bed.request({ method: 'GET', path: `/v1/mail/threads/${first!.thread_id}`, key });
    expect(thread.status, JSON.stringify(thread.body)).toBe(200);
    expect(thread.body.messages.map((m: { id: string; text_body: string }) => [m.id, m.text_body])).toEqual([
      [first!.id, 'Please pay 100 EUR to account 111.'],
      [second!.id, 'Please pay 100 EUR to account 999.'],
    ]);
  });

  it("names the Mail inbox that held the recipient's address when the mail arrived (list and full form); mail that came before the inbox keeps null", async () => {
    await inboundDomain(bed.account.account_id, 'boxes.test');
    const key = bed.account.admin_key;
    await receive(sqsEvent([sqsRecord(await arrived('From: a@sender.test\r\nSubject: Early\r\n\r\nbefore the inbox\r\n', ['help@boxes.test']))]));
    const created = await bed.request({ method: 'POST', path: '/v1/mail/inboxes', key, body: { domain: 'boxes.test', local_part: 'help' } });
    expect(created.status, JSON.stringify(created.body)).toBe(201);
    bed.c.clock.advance(1000);
    await receive(sqsEvent([sqsRecord(await arrived('From: a@sender.test\r\nSubject: Later\r\n\r\nafter\r\n', ['HELP@boxes.test', 'other@boxes.test']))]));

    const byKey = (emails: any[]) => emails.map((e) => [e.subject, e.recipient, e.inbox_id]);
    expect(byKey(await listOf(key)).sort()).toEqual(
      [
        ['Early', 'help@boxes.test', null],
        ['Later', 'HELP@boxes.test', created.body.id],
        ['Later', 'other@boxes.test', null],
      ].sort(),
    );
    const later = (await listOf(key)).find((e) => e.recipient === 'HELP@boxes.test');
    expect((await bed.request({ method: 'GET', path: `/v1/inbound/${later.id}`, key })).body.inbox_id).toBe(created.body.id);
  });

  it('fails the record (so SQS retries it) while the raw object is missing, never storing a half email', async () => {
    await inboundDomain(bed.account.account_id, 'missing.test');
    const job = notificationFor('inbound/not-there', ['me@missing.test'], 'ses-missing');
    const record = sqsRecord(job);
    expect(await receive(sqsEvent([record]))).toEqual({ batchItemFailures: [{ itemIdentifier: record.messageId }] });
    expect(await listOf(bed.account.admin_key)).toEqual([]);
  });

  it('keeps large content in the object store and serves it in the full form', async () => {
    await inboundDomain(bed.account.account_id, 'large.test');
    const text = 'long line of text '.repeat(10_000);
    const job = await arrived(`From: alice@sender.test\r\nSubject: Large\r\nContent-Type: text/plain; charset=utf-8\r\n\r\n${text}\r\n`, ['me@large.test']);
    await receive(sqsEvent([sqsRecord(job)]));
    const [email] = await listOf(bed.account.admin_key);
    const content = await bed.c.store.get<Record<string, unknown>>(keys.inboundContent(bed.account.account_id, email.id));
    expect(content?.content).toBeUndefined();
    expect(content?.content_key).toEqual(expect.any(String));
    const full = await bed.request({ method: 'GET', path: `/v1/inbound/${email.id}`, key: bed.account.admin_key });
    expect(full.status).toBe(200);
    expect(full.body.text).toBe(`${text}\n`);
  });

  it('receives a 30 MB message with attachments, storing each attachment whole', async () => {
    await inboundDomain(bed.account.account_id, 'big.test');
    const sizes = [9_000_000, 7_000_000, 5_000_000];
    const parts = sizes.map((size, i) => {
      const bytes = Buffer.alloc(size, i + 1);
      return [`--b`, `Content-Type: application/octet-stream; name="f${i}.bin"`, `Content-Disposition: attachment; filename="f${i}.bin"`, 'Content-Transfer-Encoding: base64', '', bytes.toString('base64').replace(/.{76}/g, '$&\r\n')].join('\r\n');
    });
    const raw = ['From: alice@sender.test', 'Subject: Big', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'see attached', ...parts, '--b--', ''].join('\r\n');
    expect(raw.length).toBeGreaterThan(28_000_000);
    const job = await arrived(raw, ['me@big.test']);
    expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    const [email] = await listOf(bed.account.admin_key);
    expect(email.attachments).toEqual(sizes.map((size, i) => ({ filename: `f${i}.bin`, content_type: 'application/octet-stream', size })));
    expect(email.size_bytes).toBe(raw.length);
    const item = await bed.c.store.get<InboundEmailItem>(keys.inboundEmail(bed.account.account_id, email.id));
    const second = await bed.c.objects.get(`${item?.raw_key}#attachments/1`);
    expect(second?.body.equals(Buffer.alloc(sizes[1] as number, 2))).toBe(true);
  }, 60_000);

  it(`puts an attachment of up to ${IN_MEMORY_ATTACHMENT_BYTES} bytes from memory and a larger one through a file, each stored whole`, async () => {
    await inboundDomain(bed.account.account_id, 'mixed.test');
    const sizes = [IN_MEMORY_ATTACHMENT_BYTES, IN_MEMORY_ATTACHMENT_BYTES + 1, 100_000];
    const parts = sizes.map((size, i) =>
      [`--b`, `Content-Type: application/octet-stream; name="m${i}.bin"`, `Content-Disposition: attachment; filename="m${i}.bin"`, 'Content-Transfer-Encoding: base64', '', Buffer.alloc(size, i + 7).toString('base64').replace(/.{76}/g, '$&\r\n')].join('\r\n'),
    );
    const raw = ['From: alice@sender.test', 'Subject: Mixed', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'three files', ...parts, '--b--', ''].join('\r\n');
    const job = await arrived(raw, ['me@mixed.test']);
    const put = vi.spyOn(bed.c.objects, 'put');
    const putFile = vi.spyOn(bed.c.objects, 'putFile');
    try {
      expect(await receive(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
      const attachmentKeys = (calls: unknown[][]) => calls.map((c) => String(c[0])).filter((k) => k.includes('#attachments/'));
      expect(attachmentKeys(put.mock.calls).map((k) => k.slice(k.indexOf('#')))).toEqual(['#attachments/0', '#attachments/2']);
      expect(attachmentKeys(putFile.mock.calls).map((k) => k.slice(k.indexOf('#')))).toEqual(['#attachments/1']);
    } finally {
      put.mockRestore();
      putFile.mockRestore();
    }
    const [email] = await listOf(bed.account.admin_key);
    expect(email.attachments).toEqual(sizes.map((size, i) => ({ filename: `m${i}.bin`, content_type: 'application/octet-stream', size })));
    const item = await bed.c.store.get<InboundEmailItem>(keys.inboundEmail(bed.account.account_id, email.id));
    for (const [i, size] of sizes.entries()) {
      const stored = await bed.c.objects.get(`${item?.raw_key}#attachments/${i}`);
      expect(stored?.body.equals(Buffer.alloc(size, i + 7)), `attachment ${i}`).toBe(true);
    }
  }, 60_000);

  it('takes a 40 MB message with attachments in a bounded amount of memory: the message and its files are streamed, never whole', async () => {
    // Prepare: the message is written to a file a chunk at a time and stored from it, so the test
    // holds no copy of it either; each attachment's digest is taken as it is written.
    await inboundDomain(bed.account.account_id, 'huge.test');
    const dir = mkdtempSync(join(tmpdir(), 'postbox-huge-'));
    try {
      const file = join(dir, 'huge.eml');
      const out = createWriteStream(file);
      const write = (text: string) => new Promise<void>((ok) => (out.write(text) ? ok() : out.once('drain', () => ok())));
      await write(['From: alice@sender.test', 'To: me@huge.test', 'Subject: Forty megabytes', 'MIME-Version: 1.0', 'Content-Type: multipart/mixed; boundary="b"', '', '--b', 'Content-Type: text/plain', '', 'three big files', ''].join('\r\n'));
      const SIZE = 10_150_000;
      const CHUNK = 57 * 1000; // a whole number of 76-column base64 lines
      const digests: string[] = [];
      for (let i = 0; i < 3; i++) {
        await write([`--b`, `Content-Type: application/octet-stream; name="part${i}.bin"`, `Content-Disposition: attachment; filename="part${i}.bin"`, 'Content-Transfer-Encoding: base64', '', ''].join('\r\n'));
        const hash = createHash('sha256');
        for (let at = 0; at < SIZE; at += CHUNK) {
          const bytes = Buffer.alloc(Math.min(CHUNK, SIZE - at), (at / CHUNK + i) % 251);
          hash.update(bytes);
          await write(`${bytes.toString('base64').replace(/.{76}/g, '$&\r\n').replace(/\r\n$/, '')}\r\n`);
        }
        digests.push(hash.digest('hex'));
      }
      await write('--b--\r\n');
      await new Promise<void>((ok) => out.end(ok));
      const size = statSync(file).size;
      expect(size).toBeGreaterThan(39 * 1024 * 1024);
      expect(size).toBeLessThanOrEqual(40 * 1024 * 1024);
      const objectKey = 'inbound/ses-huge';
      await bed.c.objects.putFile(objectKey, file, 'message/rfc822');
      const job = notificationFor(objectKey, ['me@huge.test'], 'ses-huge');

      // Act: the worker runs while its memory is sampled on every turn of the event loop
      const base = process.memoryUsage();
      let peak = 0;
      const sample = () => {
        const now = process.memoryUsage();
        // The process's resident memory: what the worker held, its garbage included (a Lambda pays for it).
        peak = Math.max(peak, now.rss - base.rss);
      };
      const timer = setInterval(sample, 1);
      let result: unknown;
      try {
        result = await receive(sqsEvent([sqsRecord(job)]));
      } finally {
        clearInterval(timer);
        sample();
      }

      // Assess: stored whole, and memory grew by far less than the message (reading it into a buffer
      // alone would take 40 MB, and its attachments as many again)
      expect(result).toEqual({ batchItemFailures: [] });
      const [email] = await listOf(bed.account.admin_key);
      expect(email).toMatchObject({ subject: 'Forty megabytes', size_bytes: size });
      expect(email.attachments).toEqual([0, 1, 2].map((i) => ({ filename: `part${i}.bin`, content_type: 'application/octet-stream', size: SIZE })));
      for (const [i, digest] of digests.entries()) {
        const stored = await bed.c.objects.getStream(`${objectKey}#attachments/${i}`);
        const hash = createHash('sha256');
        for await (const chunk of stored!.body) hash.update(chunk as Buffer);
        expect(hash.digest('hex')).toBe(digest);
      }
      expect(peak).toBeLessThan(size / 2);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
