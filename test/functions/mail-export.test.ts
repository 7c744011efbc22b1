// GET /v1/mail/export: the spec's Export document page by page (inbound text and attachments from
// their email, outbound text from the sent message), the thread list's filters, and mbox that a
// real parser (mailparser) reads back message by message after splitting it as RFC 4155 says.
import { simpleParser } from 'mailparser';
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { recordMailMessage } from '../../shared/inbound-mail/mailbox/record';
import { callRaw } from '../support/api';
import type { HttpEventInput } from '../support/events';
import { arrive, inboundDomain, rawMail, rawMailWithAttachment } from '../support/mail';
import { expectError } from '../support/errors';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
const req = (input: HttpEventInput) => bed.request(input);

const exportJson = async (query: Record<string, string> = {}, key = bed.readKey) => {
  const res = await req({ method: 'GET', path: '/v1/mail/export', key, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { exported_at: string; count: number; messages: any[]; next_cursor: string | null };
};

const exportMbox = async (query: Record<string, string> = {}) => {
  bed.c.clock.advance(150);
  const res = await callRaw({ method: 'GET', path: '/v1/mail/export', key: bed.readKey, query: { ...query, format: 'mbox' } });
  expect(res.statusCode).toBe(200);
  expect(res.isBase64Encoded).toBe(true);
  return { text: Buffer.from(res.body ?? '', 'base64').toString('latin1'), headers: res.headers as Record<string, string> };
};

/** RFC 4155: a message starts at each line beginning `From `; one `>` comes off each quoted From line. */
function splitMbox(mbox: string): Array<{ separator: string; message: string }> {
  return mbox
    .split(/^(?=From )/m)
    .filter(Boolean)
    .map((part) => {
      const [separator = '', ...lines] = part.replace(/\n\n$/, '\n').split('\n');
      return { separator, message: lines.map((l) => l.replace(/^>(>*From )/, '$1')).join('\n') };
    });
}

beforeEach(async () => {
  await inboundDomain(bed, 'in.test');
});

/** An outbound message sent through the API and recorded in a thread, as the compose slice will. */
async function sentInThread(threadId: string, text: string): Promise<string> {
  const res = await req({
    method: 'POST',
    path: '/v1/send',
    key: bed.account.admin_key,
    body: { channel: 'email', idempotency_key: `k-${text}`, destination: { email: 'carol@other.test' }, payload: { subject: 'Re: Plans', body_text: text }, metadata: { from_email: 'team@acme.test' } },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  await recordMailMessage(bed.c, {
    account_id: bed.account.account_id,
    source: 'outbound',
    id: res.body.id,
    thread_id: threadId,
    occurred_at: res.body.created_at,
    from: 'team@acme.test',
    to: ['carol@other.test'],
    cc: [],
    subject: 'Re: Plans',
    text,
    address: 'team@acme.test',
  });
  return res.body.id;
}

describe('GET /v1/mail/export (json)', () => {
  it('answers the spec’s Export document: threads newest first, each thread’s messages oldest first, inbound and outbound', async () => {
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Plans', text: 'first message', messageId: '<p1@sender.test>' }), ['team@in.test']);
    await arrive(bed, rawMailWithAttachment({ to: 'sales@in.test', subject: 'Contract', text: 'see the attachment' }), ['sales@in.test']);
    const plans = (await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: {} })).body.threads.find((t: any) => t.subject === 'Plans');
    const sentId = await sentInThread(plans.id, 'our full answer');

    const doc = await exportJson();
    expect(doc).toEqual({ exported_at: bed.c.clock.now().toISOString(), count: 3, messages: expect.any(Array), next_cursor: null });
    expect(doc.messages.map((m) => [m.subject, m.source])).toEqual([
      ['Plans', 'inbound'],
      ['Re: Plans', 'outbound'],
      ['Contract', 'inbound'],
    ]);
    expect(doc.messages[0]).toEqual({
      id: expect.stringMatching(/^inb_/),
      thread_id: plans.id,
      source: 'inbound',
      from: 'alice@sender.test',
      to: ['team@in.test'],
      subject: 'Plans',
      text_body: 'first message\n',
      occurred_at: expect.any(String),
      attachments: [],
    });
    expect(doc.messages[1]).toMatchObject({ id: sentId, thread_id: plans.id, from: 'team@acme.test', to: ['carol@other.test'], text_body: 'our full answer', attachments: [] });
    expect(doc.messages[2]).toMatchObject({ text_body: 'see the attachment', attachments: [{ filename: 'c.pdf', content_type: 'application/pdf', size: 9 }] });
  });

  it('takes the thread list’s filters: folder, inbox, inbox_id and q', async () => {
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Budget', text: 'budget numbers' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'sales@in.test', subject: 'Offer', text: 'an offer with budget' }), ['sales@in.test']);
    await arrive(bed, rawMail({ to: 'sales@in.test', subject: 'Lunch', text: 'lunch?' }), ['sales@in.test']);
    const subjects = async (query: Record<string, string>) => (await exportJson(query)).messages.map((m) => m.subject);

    expect(await subjects({ inbox: 'sales@in.test' })).toEqual(['Lunch', 'Offer']);
    const inbox = await req({ method: 'POST', path: '/v1/mail/inboxes', key: bed.sendKey, body: { domain: 'in.test', local_part: 'team' } });
    expect(await subjects({ inbox_id: inbox.body.id })).toEqual(['Budget']);
    expect(await subjects({ q: 'budget' })).toEqual(['Offer', 'Budget']);
    expect(await subjects({ q: 'budget', inbox: 'team@in.test' })).toEqual(['Budget']);

    const lunch = (await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: {} })).body.threads.find((t: any) => t.subject === 'Lunch');
    await req({ method: 'PUT', path: `/v1/mail/threads/${lunch.id}/folder`, key: bed.sendKey, body: { folder: 'trash' } });
    expect(await subjects({})).toEqual(['Offer', 'Budget']);
    expect(await subjects({ folder: 'trash' })).toEqual(['Lunch']);
    expect(await subjects({ folder: 'trash', q: 'budget' })).toEqual([]);

    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expect((await exportJson({}, other.admin_key)).messages).toEqual([]);
    expect((await exportJson({ q: 'budget' }, other.admin_key)).messages).toEqual([]);
  });

  it('pages at 100 messages with next_cursor, splitting a thread between pages without losing or repeating a message', async () => {
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Long', text: 'one', messageId: '<l1@x.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Re: Long', text: 'two', references: '<l1@x.test>', messageId: '<l2@x.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Re: Long', text: 'three', references: '<l1@x.test>' }), ['team@in.test']);
    for (let i = 0; i < 98; i++) await arrive(bed, rawMail({ to: 'team@in.test', subject: `Single ${i}`, text: 'x' }), ['team@in.test']);

    const first = await exportJson();
    expect(first.count).toBe(100);
    expect(first.messages.slice(-3).map((m) => m.text_body)).toEqual(['x\n', 'one\n', 'two\n']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await exportJson({ cursor: first.next_cursor! });
    expect(second).toMatchObject({ count: 1, next_cursor: null });
    expect(second.messages[0].text_body).toBe('three\n');
    expect(new Set([...first.messages, ...second.messages].map((m) => m.id)).size).toBe(101);

    expectError(await req({ method: 'GET', path: '/v1/mail/export', key: bed.readKey, query: { cursor: `${first.next_cursor}x` } }), 400, 'invalid_request', /cursor/);
    expectError(await req({ method: 'GET', path: '/v1/mail/export', key: bed.readKey, query: { folder: 'archive', cursor: first.next_cursor! } }), 400, 'invalid_request', /filters/);
  });

  it('ends a page before 4 MiB of messages, with and without q, and cuts text_body at a million characters', async () => {
    // 1.2 million characters of 3-byte UTF-8: cut at 1,000,000 characters, about 2.6 MB in JSON each.
    const big = (n: number) =>
      [`From: alice@sender.test`, 'To: team@in.test', `Subject: Big ${n}`, 'Content-Type: text/plain; charset=utf-8', '', `huge ${'€€€€ '.repeat(240_000)}`, ''].join('\r\n');
    await arrive(bed, big(1), ['team@in.test']);
    await arrive(bed, big(2), ['team@in.test']);
    for (const query of [{}, { q: 'huge' }] as Record<string, string>[]) {
      const first = await exportJson(query);
      expect(first.messages.map((m) => m.subject)).toEqual(['Big 2']);
      expect(first.messages[0].text_body).toHaveLength(1_000_000);
      const second = await exportJson({ ...query, cursor: first.next_cursor! });
      expect(second.messages.map((m) => m.subject)).toEqual(['Big 1']);
      expect(second.next_cursor).toBeNull();
    }
  });

  it('refuses a bad format, folder, q or field, and an unknown inbox', async () => {
    const bad = (query: Record<string, string>) => req({ method: 'GET', path: '/v1/mail/export', key: bed.readKey, query });
    expectError(await bad({ format: 'pst' }), 400, 'invalid_request', /format/);
    expectError(await bad({ folder: 'drafts' }), 400, 'invalid_request', /folder/);
    expectError(await bad({ q: 'before:2026-1-1' }), 400, 'invalid_request', /YYYY-MM-DD/);
    expectError(await bad({ limit: '5' }), 400, 'invalid_request');
    expectError(await bad({ inbox: `${'x'.repeat(300)}@in.test` }), 400, 'invalid_request', /inbox/);
    expectError(await bad({ inbox_id: 'mbx_01jz0000000000000000000000' }), 404, 'not_found');
    expectError(await req({ method: 'GET', path: '/v1/mail/export' }), 401, 'unauthorized');
  });
});

describe('GET /v1/mail/export (mbox)', () => {
  it('writes each inbound message as received and outbound ones composed, with From lines quoted, readable by mailparser', async () => {
    bed.c.clock.set(new Date('2026-11-27T05:10:03.000Z'));
    const body = ['Dear team,', 'From here on we ship weekly.', '>From the archive: nothing.', 'From:header-looking line', 'Bye'].join('\r\n');
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Plans', text: body, messageId: '<m1@sender.test>' }), ['team@in.test']);
    const plans = (await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: {} })).body.threads[0];
    await sentInThread(plans.id, 'From now on, yes.\nGrüße');

    const { text, headers } = await exportMbox();
    expect(headers['content-type']).toBe('application/mbox');
    expect(headers['postbox-next-cursor']).toBeUndefined();
    // No line of a message starts with "From " in the file: only separators do.
    expect(text).toContain('\n>From here on we ship weekly.\n>>From the archive: nothing.\nFrom:header-looking line\n');
    const parts = splitMbox(text);
    expect(parts.map((p) => p.separator)).toEqual(['From alice@sender.test Fri Nov 27 05:10:04 2026', expect.stringMatching(/^From team@acme\.test \w{3} Nov 27 \d\d:\d\d:\d\d 2026$/)]);

    const [inbound, outbound] = await Promise.all(parts.map((p) => simpleParser(Buffer.from(p.message, 'latin1'))));
    expect(inbound!.subject).toBe('Plans');
    expect(inbound!.messageId).toBe('<m1@sender.test>');
    expect(inbound!.text).toBe('Dear team,\nFrom here on we ship weekly.\n>From the archive: nothing.\nFrom:header-looking line\nBye\n');
    expect(outbound!.subject).toBe('Re: Plans');
    expect(outbound!.text).toBe('From now on, yes.\nGrüße');
    expect(outbound!.headers.get('x-postbox-thread-id')).toBe(plans.id);
  });

  it('pages mbox with the Postbox-Next-Cursor header', async () => {
    for (let i = 0; i < 101; i++) await arrive(bed, rawMail({ to: 'team@in.test', subject: `M${i}`, text: `From line ${i}` }), ['team@in.test']);
    const first = await exportMbox();
    expect(splitMbox(first.text)).toHaveLength(100);
    const second = await exportMbox({ cursor: first.headers['postbox-next-cursor']! });
    expect(second.headers['postbox-next-cursor']).toBeUndefined();
    const last = splitMbox(second.text);
    expect(last).toHaveLength(1);
    expect((await simpleParser(Buffer.from(last[0]!.message, 'latin1'))).subject).toBe('M0');
  });
});
