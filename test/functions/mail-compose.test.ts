// Sending from the Mail app end to end: compose, reply and forward through the real handler, the
// real send worker (the recording mailer shows headers and attachments) and the real inbound
// worker; the message is in its thread at acceptance, with status, timeline and text; every
// failure case answers the spec's envelope.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { FORWARDED_FILENAME } from '../../shared/inbound-mail/routes/forward';
import { suppress } from '../../shared/sending/suppressions/service';
import { giveVerifiedDomain } from '../support/domains';
import type { HttpEventInput } from '../support/events';
import { arrive, inboundDomain, rawMail } from '../support/mail';
import { expectError } from '../support/errors';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
const req = (input: HttpEventInput) => bed.request(input);
const post = (path: string, body: unknown, key = bed.sendKey) => req({ method: 'POST', path, body, key });
const compose = (body: unknown, key?: string) => post('/v1/mail/compose', body, key);
const reply = (id: string, body: unknown, key?: string) => post(`/v1/mail/threads/${id}/reply`, body, key);
const forward = (id: string, body: unknown, key?: string) => post(`/v1/mail/threads/${id}/forward`, body, key);
const detail = async (id: string) => {
  const res = await req({ method: 'GET', path: `/v1/mail/threads/${id}`, key: bed.readKey });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body;
};
const threads = async (query: Record<string, string> = {}) => {
  const res = await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.threads as any[];
};
const UNKNOWN_THREAD = `thr_${'0'.repeat(26)}`;

/** Runs the send jobs queued so far through the real worker. */
const drainSends = () => drain(bed.c.sent, 'send', sendWorker);

const sendJobs = () => bed.c.sent.filter((s) => s.queue === 'send');

beforeEach(async () => {
  await inboundDomain(bed, 'in.test');
});

/** Alice writes to team@in.test, Bob answers in the same conversation: one thread of two. */
async function conversation(): Promise<any> {
  await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Plans', text: 'first message', messageId: '<a1@sender.test>' }), ['team@in.test']);
  await arrive(
    bed,
    rawMail({ from: 'bob@sender.test', to: 'team@in.test', subject: 'Re: Plans', text: 'the reply', messageId: '<a2@sender.test>', inReplyTo: '<a1@sender.test>', references: '<a1@sender.test>' }),
    ['team@in.test'],
  );
  const [talk] = await threads();
  expect(talk).toMatchObject({ subject: 'Plans', message_count: 2 });
  return talk;
}

describe('compose', () => {
  it('sends a new message through the send pipeline, in a thread of its own in the sent view at once, then with status and timeline', async () => {
    const res = await compose({ to: 'Bob@Example.org', from: 'Team <team@in.test>', subject: 'Hello', body_text: 'Hi Bob' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toEqual({ id: expect.stringMatching(/^msg_/), status: 'queued', channel: 'email', idempotency_key: expect.stringMatching(/^mail_[0-9a-z]{26}$/), created_at: expect.any(String) });

    // Accepted, not yet sent: the thread is there already.
    const [sent] = await threads({ folder: 'sent' });
    expect(sent).toMatchObject({ subject: 'Hello', message_count: 1, has_unread: false, snippet: 'Hi Bob', folder: 'inbox', participants: ['team@in.test', 'bob@example.org'] });
    expect((await detail(sent.id)).messages).toEqual([
      expect.objectContaining({ id: res.body.id, source: 'outbound', from: 'team@in.test', to: ['bob@example.org'], subject: 'Hello', text_body: 'Hi Bob', status: 'queued', timeline: [] }),
    ]);
    // A new thread starts in the inbox folder (slice A's applyEntry), read, and is in the sent view besides.
    expect((await threads()).map((t) => [t.id, t.has_unread])).toEqual([[sent.id, false]]);

    await drainSends();
    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]).toMatchObject({ from: 'Team <team@in.test>', to: 'bob@example.org', subject: 'Hello', text: 'Hi Bob', messageId: res.body.id });
    const [entry] = (await detail(sent.id)).messages;
    expect(entry).toMatchObject({ status: 'sent', timeline: [expect.objectContaining({ type: 'sent' })] });
  });

  it('is idempotent on the idempotency_key given (mail_<key>): a retry answers the first result and sends and files nothing twice', async () => {
    const body = { to: 'bob@example.org', from: 'team@in.test', subject: 'Once', body_html: '<p>Once</p>', idempotency_key: 'client-key-1' };
    const first = await compose(body);
    expect(first.status).toBe(201);
    expect(first.body.idempotency_key).toBe('mail_client-key-1');
    const again = await compose(body);
    expect(again.body).toEqual(first.body);
    // The retry hands a job on again for the same message (the dispatch lease sends it once).
    expect(new Set(sendJobs().map((s) => (s.body as { message_id: string }).message_id))).toEqual(new Set([first.body.id]));
    const [thread] = await threads({ folder: 'sent' });
    expect(thread).toMatchObject({ message_count: 1 });

    expectError(await compose({ ...body, subject: 'Other' }), 409, 'idempotency_key_reused');
    // Without a key every call is a new send.
    const a = await compose({ ...body, idempotency_key: undefined });
    const b = await compose({ ...body, idempotency_key: undefined });
    expect(a.body.idempotency_key).not.toBe(b.body.idempotency_key);
    expect(a.body.id).not.toBe(b.body.id);
  });

  it('chooses the sender when from is omitted: the oldest inbox on a verified domain, else mail@ the oldest verified domain', async () => {
    expect((await compose({ to: 'bob@example.org', subject: 'No inbox', body_text: 'x' })).status).toBe(201);
    expect((await post('/v1/mail/inboxes', { domain: 'in.test', local_part: 'support' })).status).toBe(201);
    expect((await post('/v1/mail/inboxes', { domain: 'in.test', local_part: 'sales' })).status).toBe(201);
    expect((await compose({ to: 'bob@example.org', subject: 'Inbox', body_text: 'x' })).status).toBe(201);
    await drainSends();
    expect(bed.c.mailed.map((m) => [m.subject, m.from])).toEqual([
      ['No inbox', 'mail@acme.test'],
      ['Inbox', 'support@in.test'],
    ]);
  });

  it('answers the send rules’ 422 codes for a from on a domain that is not a verified one of the account', async () => {
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'pending.test', { dkim_status: 'pending' });
    const body = { to: 'bob@example.org', subject: 'Hi', body_text: 'x' };
    expectError(await compose({ ...body, from: 'me@pending.test' }), 422, 'domain_not_verified');
    expectError(await compose({ ...body, from: 'me@elsewhere.test' }), 422, 'from_not_verified');
    expectError(await compose({ ...body, from: 'onboarding@sandbox.test' }), 422, 'from_not_verified');
    expectError(await compose({ ...body, from: 'not an address' }), 400, 'invalid_request');
    expectError(await compose({ ...body, to: 'not-an-address' }), 422, 'invalid_destination');
    expect(sendJobs()).toHaveLength(0);
    expect(await threads({ folder: 'sent' })).toEqual([]);
  });

  it('never sends from the sandbox: a sandbox account gets no_verified_domain (domain_not_verified for its unfinished domain)', async () => {
    const sandboxed = await createAccount(bed.c, { email: 'sandboxed@example.com' });
    const key = (await createKey(bed.c, sandboxed.account_id, { scope: 'send' }, { testMode: false })).key;
    await giveVerifiedDomain(bed.c, sandboxed.account_id, 'half.test', { spf_status: 'failed' });
    const body = { to: 'sandboxed@example.com', subject: 'Hi', body_text: 'x' };
    expectError(await compose(body, key), 422, 'no_verified_domain');
    expectError(await compose({ ...body, from: 'onboarding@sandbox.test' }, key), 422, 'no_verified_domain');
    expectError(await compose({ ...body, from: 'me@half.test' }, key), 422, 'domain_not_verified');
    expect(sendJobs()).toHaveLength(0);
  });

  it('refuses bad bodies with 400 and stores nothing', async () => {
    const ok = { to: 'bob@example.org', from: 'team@in.test', subject: 'Hi', body_text: 'x' };
    const bad: unknown[] = [
      undefined,
      [],
      { ...ok, body_text: undefined },
      { ...ok, body_text: '   ' },
      { ...ok, subject: undefined },
      { ...ok, subject: ' ' },
      { ...ok, to: undefined },
      { ...ok, to: ['bob@example.org'] },
      { ...ok, cc: ['x@example.org'] },
      { ...ok, idempotency_key: '' },
      { ...ok, idempotency_key: 'k'.repeat(252) },
      { ...ok, extra: true },
    ];
    for (const body of bad) expectError(await compose(body), 400, 'invalid_request');
    expectError(await compose({ ...ok, body_text: 'x'.repeat(2_800_000), body_html: 'y'.repeat(2_800_000) }), 413, 'payload_too_large');
    expect(sendJobs()).toHaveLength(0);
  });

  it('answers recipient_suppressed (409) for a suppressed recipient and files nothing', async () => {
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'gone@example.org', reason: 'manual' });
    expectError(await compose({ to: 'gone@example.org', from: 'team@in.test', subject: 'Hi', body_text: 'x' }), 409, 'recipient_suppressed');
    expect(await threads({ folder: 'sent' })).toEqual([]);
  });
});

describe('spend caps', () => {
  it('refuses compose, reply and forward past the hard cap with 402 spend_cap_exceeded, sending and filing nothing', async () => {
    // Prepare: a conversation, then a cap with no room for even one live email
    const talk = await conversation();
    const cap = await req({ method: 'PUT', path: '/v1/spend-caps', key: bed.account.admin_key, body: { hard_limit_micros: 0 } });
    expect(cap.status, JSON.stringify(cap.body)).toBe(200);
    const before = await detail(talk.id);

    // Act / Assess
    expectError(await compose({ to: 'bob@example.org', from: 'team@in.test', subject: 'Hi', body_text: 'x' }), 402, 'spend_cap_exceeded');
    expectError(await reply(talk.id, { body_text: 'thanks' }), 402, 'spend_cap_exceeded');
    expectError(await forward(talk.id, { to: 'carol@example.org', body_text: 'fyi' }), 402, 'spend_cap_exceeded');
    expect(sendJobs()).toEqual([]);
    expect(await threads({ folder: 'sent' })).toEqual([]);
    expect((await detail(talk.id)).messages).toEqual(before.messages);
  });
});

describe('reply', () => {
  it('joins the newest received message with In-Reply-To, References and the thread; to omitted goes to the first sender', async () => {
    const talk = await conversation();
    const res = await reply(talk.id, { body_text: 'Thanks both', idempotency_key: 'r1' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ status: 'queued', channel: 'email', idempotency_key: 'mail_r1' });

    const [listed] = await threads({ folder: 'sent' });
    expect(listed).toMatchObject({ id: talk.id, message_count: 3, snippet: 'Thanks both' });
    expect((await threads()).map((t) => t.id)).toEqual([talk.id]);

    await drainSends();
    expect(bed.c.mailed).toHaveLength(1);
    expect(bed.c.mailed[0]).toMatchObject({
      from: 'team@in.test',
      to: 'alice@sender.test',
      subject: 'Re: Plans',
      text: 'Thanks both',
      headers: [
        { name: 'In-Reply-To', value: '<a2@sender.test>' },
        { name: 'References', value: '<a1@sender.test> <a2@sender.test>' },
      ],
    });
    const messages = (await detail(talk.id)).messages;
    expect(messages.map((m: any) => [m.source, m.from])).toEqual([
      ['inbound', 'alice@sender.test'],
      ['inbound', 'bob@sender.test'],
      ['outbound', 'team@in.test'],
    ]);
    expect(messages[2]).toMatchObject({ id: res.body.id, to: ['alice@sender.test'], subject: 'Re: Plans', text_body: 'Thanks both', status: 'sent', timeline: [expect.objectContaining({ type: 'sent' })] });

    // Alice answers the reply: her client's References start at the same root, so it lands in the thread.
    await arrive(
      bed,
      rawMail({ to: 'team@in.test', subject: 'Re: Plans', text: 'great', messageId: '<a4@sender.test>', inReplyTo: '<ses-1@amazonses.test>', references: '<a1@sender.test> <a2@sender.test> <ses-1@amazonses.test>' }),
      ['team@in.test'],
    );
    expect((await threads())[0]).toMatchObject({ id: talk.id, message_count: 4, has_unread: true });
  });

  it('goes to the given address, and keeps a Re: subject as it is; a retry with the same key files the reply once', async () => {
    const talk = await conversation();
    const body = { to: 'carol@example.org', body_html: '<p>Adding Carol</p>', idempotency_key: 'r2' };
    const first = await reply(talk.id, body);
    expect(first.status).toBe(201);
    expect((await reply(talk.id, body)).body).toEqual(first.body);
    await drainSends();
    expect(bed.c.mailed.map((m) => [m.to, m.subject, m.html])).toEqual([['carol@example.org', 'Re: Plans', '<p>Adding Carol</p>']]);
    expect((await detail(talk.id)).messages).toHaveLength(3);
  });

  it('sends no threading headers when the message replied to had no Message-ID, and still files the reply in the thread', async () => {
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'No id', text: 'hello' }), ['team@in.test']);
    const [t] = await threads();
    expect((await reply(t.id, { body_text: 'hi' })).status).toBe(201);
    await drainSends();
    expect(bed.c.mailed[0]?.headers ?? []).toEqual([]);
    expect((await detail(t.id)).messages.map((m: any) => m.source)).toEqual(['inbound', 'outbound']);
  });

  it('answers 404 for an unknown, malformed or another account’s thread, 409 for a thread without received mail, 400 for bad bodies', async () => {
    const talk = await conversation();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await inboundDomain(bed, 'other.test', other.account_id);
    await arrive(bed, rawMail({ to: 'x@other.test', subject: 'Theirs', messageId: '<t1@sender.test>' }), ['x@other.test']);
    const otherKey = (await createKey(bed.c, other.account_id, { scope: 'read' }, { testMode: false })).key;
    const theirs = (await req({ method: 'GET', path: '/v1/mail/threads', key: otherKey })).body.threads[0];

    for (const id of [UNKNOWN_THREAD, 'thr_nope', theirs.id]) expectError(await reply(id, { body_text: 'x' }), 404, 'not_found');

    const composed = await compose({ to: 'bob@example.org', from: 'team@in.test', subject: 'Mine', body_text: 'x' });
    const [mine] = (await threads({ folder: 'sent' })).filter((t) => t.subject === 'Mine');
    expect(composed.status).toBe(201);
    expectError(await reply(mine.id, { body_text: 'x' }), 409, 'conflict');

    for (const body of [undefined, {}, { body_text: ' ' }, { body_text: 'x', cc: ['carol@example.org'] }, { body_text: 'x', to: 42 }, { body_text: 'x', subject: 'no' }]) {
      expectError(await reply(talk.id, body), 400, 'invalid_request');
    }
    expectError(await reply(talk.id, { body_text: 'x', to: 'nope' }), 422, 'invalid_destination');
    // An empty cc is taken.
    expect((await reply(talk.id, { body_text: 'x', cc: [] })).status).toBe(201);
  });
});

describe('forward', () => {
  it('sends the newest received message on with the original attached as message/rfc822 and the quoted text, filed in the thread', async () => {
    const talk = await conversation();
    const res = await forward(talk.id, { to: 'carol@example.org', body_text: 'FYI' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body.idempotency_key).toMatch(/^mail_/);
    await drainSends();
    const [mail] = bed.c.mailed;
    expect(mail).toMatchObject({ from: 'team@in.test', to: 'carol@example.org', subject: 'Fwd: Re: Plans' });
    expect(mail?.text).toMatch(/^FYI\n\n---------- Forwarded message ---------\nFrom: bob@sender\.test\n/);
    expect(mail?.text).toContain('Original message: attached as forwarded-message.eml');
    expect(mail?.text?.endsWith('the reply\n')).toBe(true);
    expect(mail?.headers ?? []).toEqual([]);
    expect(mail?.attachments).toHaveLength(1);
    expect(mail?.attachments?.[0]).toMatchObject({ filename: FORWARDED_FILENAME, contentType: 'message/rfc822' });
    expect(mail?.attachments?.[0]?.content.toString()).toContain('Message-ID: <a2@sender.test>');

    const last = (await detail(talk.id)).messages.at(-1);
    expect(last).toMatchObject({ id: res.body.id, source: 'outbound', to: ['carol@example.org'], subject: 'Fwd: Re: Plans', status: 'sent' });
    expect((await threads({ folder: 'sent' })).map((t) => t.id)).toEqual([talk.id]);
  });

  it('takes a subject of its own and an HTML body as given', async () => {
    const talk = await conversation();
    expect((await forward(talk.id, { to: 'carol@example.org', subject: 'Have a look', body_html: '<b>look</b>' })).status).toBe(201);
    await drainSends();
    expect(bed.c.mailed[0]).toMatchObject({ subject: 'Have a look', html: '<b>look</b>' });
    expect(bed.c.mailed[0]?.text).toBeUndefined();
    expect(bed.c.mailed[0]?.attachments).toHaveLength(1);
  });

  it('answers 404 for an unknown or another account’s thread and 400 without to or a body', async () => {
    const talk = await conversation();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const otherKey = (await createKey(bed.c, other.account_id, { scope: 'send' }, { testMode: false })).key;
    expectError(await forward(talk.id, { to: 'carol@example.org', body_text: 'x' }, otherKey), 404, 'not_found');
    expectError(await forward(UNKNOWN_THREAD, { to: 'carol@example.org', body_text: 'x' }), 404, 'not_found');
    for (const body of [{ body_text: 'x' }, { to: 'carol@example.org' }, { to: 'carol@example.org', body_text: 'x', cc: [] }, { to: 'carol@example.org', body_text: 'x', subject: '' }]) {
      expectError(await forward(talk.id, body), 400, 'invalid_request');
    }
    expect(sendJobs()).toHaveLength(0);
  });
});

describe('the sandbox', () => {
  it('refuses replies and forwards once the account has no verified domain left (the address mail came to is on an unfinished one)', async () => {
    const talk = await conversation();
    for (const domain of ['acme.test', 'in.test']) await giveVerifiedDomain(bed.c, bed.account.account_id, domain, { dkim_status: 'failed' });
    expectError(await reply(talk.id, { body_text: 'x' }), 422, 'domain_not_verified');
    expectError(await forward(talk.id, { to: 'carol@example.org', body_text: 'x' }), 422, 'domain_not_verified');
    expect(sendJobs()).toHaveLength(0);
    expect((await detail(talk.id)).messages).toHaveLength(2);
  });
});

describe('access', () => {
  it('refuses read keys (403) and answers 404 where inbound is off', async () => {
    const talk = await conversation();
    const calls: Array<[string, unknown]> = [
      ['/v1/mail/compose', { to: 'bob@example.org', from: 'team@in.test', subject: 'Hi', body_text: 'x' }],
      [`/v1/mail/threads/${talk.id}/reply`, { body_text: 'x' }],
      [`/v1/mail/threads/${talk.id}/forward`, { to: 'bob@example.org', body_text: 'x' }],
    ];
    for (const [path, body] of calls) expectError(await post(path, body, bed.readKey), 403, 'forbidden');
    // The admin key may.
    expect((await post(calls[0]![0], calls[0]![1], bed.account.admin_key)).status).toBe(201);
    bed.c.config.inboundEnabled = false;
    try {
      for (const [path, body] of calls) expectError(await post(path, body), 404, 'not_found');
    } finally {
      bed.c.config.inboundEnabled = true;
    }
    expect(sendJobs()).toHaveLength(1);
  });
});
