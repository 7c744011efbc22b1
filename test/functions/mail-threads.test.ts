// Mail threads end to end: mail fed through the real inbound worker becomes threads (once however
// often it is delivered), listed newest first per folder and address, read in full (which marks
// them read), starred, moved and labelled; every failure case answers the spec's envelope.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import type { MailThreadItem } from '../../shared/inbound-mail/mailbox/threads-repository';
import type { HttpEventInput } from '../support/events';
import { arrive, inboundDomain, rawMail, redeliver } from '../support/mail';
import { expectError } from '../support/errors';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });
const req = (input: HttpEventInput) => bed.request(input);
const admin = () => bed.account.admin_key;

const threads = async (query: Record<string, string> = {}, key = bed.readKey) => {
  const res = await req({ method: 'GET', path: '/v1/mail/threads', key, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body as { threads: any[]; next_cursor: string | null };
};
const thread = (id: string, key = bed.readKey) => req({ method: 'GET', path: `/v1/mail/threads/${id}`, key });
const put = (path: string, body?: unknown, key = bed.sendKey) => req({ method: 'PUT', path, body, key });
const storedThread = (id: string) => bed.c.store.get<MailThreadItem>(keys.mailThread(bed.account.account_id, id));

beforeEach(async () => {
  await inboundDomain(bed, 'in.test');
});

/** A first message and a reply to it, then an unrelated one: two threads. */
async function conversation(): Promise<{ talk: any; other: any }> {
  await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Plans', text: 'first   message', messageId: '<a1@sender.test>' }), ['team@in.test']);
  await arrive(bed, rawMail({ from: 'carol@other.test', to: 'sales@in.test', subject: 'Other', text: 'unrelated', messageId: '<b1@other.test>' }), ['sales@in.test']);
  await arrive(
    bed,
    rawMail({ from: 'bob@sender.test', to: 'team@in.test', subject: 'Re: Plans', text: 'the reply\n\nwith more', messageId: '<a2@sender.test>', inReplyTo: '<a1@sender.test>', references: '<a1@sender.test>' }),
    ['team@in.test'],
  );
  const [talk, other] = (await threads()).threads;
  return { talk, other };
}

describe('threads kept as mail arrives', () => {
  it('joins a reply to its thread, and lists threads newest message first with subject, snippet, participants and counts', async () => {
    const { talk, other } = await conversation();
    expect(talk).toMatchObject({
      subject: 'Plans',
      snippet: 'the reply with more',
      message_count: 2,
      has_unread: true,
      is_starred: false,
      labels: [],
      folder: 'inbox',
      inbox_ids: [],
    });
    expect(talk.participants).toEqual(['alice@sender.test', 'team@in.test', 'bob@sender.test']);
    expect(talk.id).toMatch(/^thr_[0-9a-f]{26}$/);
    expect(other).toMatchObject({ subject: 'Other', message_count: 1 });
    expect(talk.last_message_at > other.last_message_at).toBe(true);

    // A new message in the older thread moves it to the top.
    await arrive(bed, rawMail({ from: 'dave@other.test', to: 'sales@in.test', subject: 'Re: Other', text: 'bump', references: '<b1@other.test>' }), ['sales@in.test']);
    expect((await threads()).threads.map((t) => t.id)).toEqual([other.id, talk.id]);
  });

  it('counts a message once however often the worker runs for it', async () => {
    const first = await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Once', messageId: '<once@sender.test>' }), ['team@in.test']);
    await redeliver(first, 2);
    await redeliver(first, 3);
    const [listed] = (await threads()).threads;
    expect(listed).toMatchObject({ subject: 'Once', message_count: 1 });
    expect((await thread(listed.id)).body.messages).toHaveLength(1);
  });

  it('counts a message once after a run that died between the thread write and the ref mark', async () => {
    const first = await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Crash', messageId: '<crash@sender.test>' }), ['team@in.test']);
    const [listed] = (await threads()).threads;
    const [entry] = (await thread(listed.id)).body.messages;
    // What the crash leaves: the thread has counted the message, the ref does not say so.
    await bed.c.store.update(keys.mailMessageRef(bed.account.account_id, 'inbound', entry.id), { expression: 'SET applied = :f', values: { ':f': false } });
    await redeliver(first, 2);
    expect((await storedThread(listed.id))?.message_count).toBe(1);
  });

  it('keeps mail to an address without an inbox (the catch-all): it is listed and filtered by that address', async () => {
    await conversation();
    const bySales = (await threads({ inbox: 'Sales@IN.test' })).threads;
    expect(bySales.map((t) => t.subject)).toEqual(['Other']);
    expect((await threads({ inbox: 'nobody@in.test' })).threads).toEqual([]);
  });

  it('drops, and deletes, a list pointer its thread no longer has', async () => {
    const { talk } = await conversation();
    const stale = keys.mailViewEntry(bed.account.account_id, 'inbox', '2099-01-01T00:00:00.000Z', talk.id);
    await bed.c.store.put({ ...stale, entity: 'mail_view_entry', thread_id: talk.id });
    expect((await threads()).threads.map((t) => t.id)).toEqual([talk.id, expect.any(String)]);
    expect(await bed.c.store.get(stale)).toBeUndefined();
  });
});

describe('GET /v1/mail/threads', () => {
  it('pages with next_cursor, refusing a tampered cursor and one replayed with other filters', async () => {
    for (const n of [1, 2, 3]) await arrive(bed, rawMail({ to: 'team@in.test', subject: `T${n}`, messageId: `<t${n}@sender.test>` }), ['team@in.test']);
    const first = await threads({ limit: '2' });
    expect(first.threads.map((t) => t.subject)).toEqual(['T3', 'T2']);
    expect(first.next_cursor).toEqual(expect.any(String));
    const second = await threads({ limit: '2', cursor: first.next_cursor! });
    expect(second).toMatchObject({ next_cursor: null });
    expect(second.threads.map((t) => t.subject)).toEqual(['T1']);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { cursor: `${first.next_cursor}x` } }), 400, 'invalid_request', /cursor/);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { folder: 'archive', cursor: first.next_cursor! } }), 400, 'invalid_request', /filters/);
  });

  it('refuses an unknown folder or query field, a malformed q (test/functions/mail-search.test.ts searches), and conflicting inbox filters', async () => {
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { folder: 'drafts' } }), 400, 'invalid_request', /folder/);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { colour: 'red' } }), 400, 'invalid_request');
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { q: 'has:star' } }), 400, 'invalid_request', /q/);
    expect((await threads({ q: ' ' })).threads).toEqual([]);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { inbox: `${'x'.repeat(300)}@in.test` } }), 400, 'invalid_request', /inbox/);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { inbox_id: 'mbx_01jz0000000000000000000000' } }), 404, 'not_found');
    const inbox = await req({ method: 'POST', path: '/v1/mail/inboxes', key: bed.sendKey, body: { domain: 'in.test', local_part: 'team' } });
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { inbox_id: inbox.body.id, inbox: 'sales@in.test' } }), 400, 'invalid_request', /inbox/);
    expect((await threads({ inbox_id: inbox.body.id, inbox: 'TEAM@in.test' })).threads).toEqual([]);
  });

  it("shows no other account's threads", async () => {
    await conversation();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expect((await threads({}, other.admin_key)).threads).toEqual([]);
  });
});

describe('GET /v1/mail/threads/{id}', () => {
  it('answers the messages oldest first with their verdicts and text, and marks the thread read', async () => {
    const { talk } = await conversation();
    const res = await thread(talk.id);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ id: talk.id, subject: 'Plans', message_count: 2, is_starred: false, labels: [], folder: 'inbox' });
    expect(res.body.messages).toEqual([
      expect.objectContaining({ source: 'inbound', from: 'alice@sender.test', to: ['team@in.test'], subject: 'Plans', text_body: 'first   message\n', spf_verdict: 'PASS', dkim_verdict: 'PASS', dmarc_verdict: 'GRAY', recipient: 'team@in.test', inbox_id: null, is_starred: false }),
      expect.objectContaining({ source: 'inbound', from: 'bob@sender.test', subject: 'Re: Plans', text_body: 'the reply\n\nwith more\n' }),
    ]);
    expect(res.body.messages[0].occurred_at < res.body.messages[1].occurred_at).toBe(true);
    expect(res.body.messages[0].id).toMatch(/^inb_/);
    expect((await threads()).threads.find((t) => t.id === talk.id).has_unread).toBe(false);
  });

  it("answers 404 for an unknown id, a malformed one and another account's thread", async () => {
    const { talk } = await conversation();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await thread('thr_00000000000000000000000000'), 404, 'not_found');
    expectError(await thread('not-a-thread'), 404, 'not_found');
    expectError(await thread(talk.id, other.admin_key), 404, 'not_found');
    expect((await storedThread(talk.id))?.has_unread).toBe(true);
  });
});

describe('read state, stars and folders', () => {
  it('sets read state (default read), thread stars (default starred) and the starred view', async () => {
    const { talk } = await conversation();
    expect((await put(`/v1/mail/threads/${talk.id}/read`)).body).toEqual({ id: talk.id, read: true });
    expect((await threads()).threads[0].has_unread).toBe(false);
    expect((await put(`/v1/mail/threads/${talk.id}/read`, { read: false })).body).toEqual({ id: talk.id, read: false });
    expect((await threads()).threads[0].has_unread).toBe(true);

    expect((await put(`/v1/mail/threads/${talk.id}/star`, {})).body).toEqual({ id: talk.id, starred: true });
    expect((await threads({ folder: 'starred' })).threads.map((t) => t.id)).toEqual([talk.id]);
    expect((await threads()).threads[0].is_starred).toBe(true);
    expect((await put(`/v1/mail/threads/${talk.id}/star`, { starred: false })).body).toEqual({ id: talk.id, starred: false });
    expect((await threads({ folder: 'starred' })).threads).toEqual([]);
  });

  it('stars one message: the thread shows starred until the message or the thread is unstarred', async () => {
    const { talk } = await conversation();
    const [, reply] = (await thread(talk.id)).body.messages;
    expect((await put(`/v1/mail/messages/inbound/${reply.id}/star`)).body).toEqual({ source: 'inbound', id: reply.id, starred: true });
    expect((await thread(talk.id)).body).toMatchObject({ is_starred: true, messages: [{ is_starred: false }, { is_starred: true }] });
    expect((await threads({ folder: 'starred' })).threads.map((t) => t.id)).toEqual([talk.id]);
    await put(`/v1/mail/threads/${talk.id}/star`, { starred: false });
    expect((await thread(talk.id)).body).toMatchObject({ is_starred: false, messages: [{ is_starred: false }, { is_starred: false }] });
    await put(`/v1/mail/messages/inbound/${reply.id}/star`, { starred: true });
    expect((await put(`/v1/mail/messages/inbound/${reply.id}/star`, { starred: false })).body.starred).toBe(false);
    expect((await threads({ folder: 'starred' })).threads).toEqual([]);
  });

  it("refuses a message star with a bad source (400), an unknown or another account's message (404)", async () => {
    const { talk } = await conversation();
    const [first] = (await thread(talk.id)).body.messages;
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await put(`/v1/mail/messages/sms/${first.id}/star`), 400, 'invalid_request', /source/);
    expectError(await put(`/v1/mail/messages/inbound/inb_00000000000000000000000000/star`), 404, 'not_found');
    expectError(await put(`/v1/mail/messages/outbound/${first.id}/star`), 404, 'not_found');
    expectError(await put(`/v1/mail/messages/inbound/${first.id}/star`, {}, other.admin_key), 404, 'not_found');
    expectError(await put(`/v1/mail/messages/inbound/${first.id}/star`, { starred: 'yes' }), 400, 'invalid_request', /starred/);
  });

  it('moves threads between folders; new mail brings an archived thread back to the inbox, not a trashed one', async () => {
    const { talk, other } = await conversation();
    expect((await put(`/v1/mail/threads/${talk.id}/folder`, { folder: 'archive' })).body).toEqual({ id: talk.id, folder: 'archive' });
    expect((await threads()).threads.map((t) => t.id)).toEqual([other.id]);
    expect((await threads({ folder: 'archive' })).threads.map((t) => t.id)).toEqual([talk.id]);
    expect((await threads({ folder: 'archive', inbox: 'team@in.test' })).threads.map((t) => t.id)).toEqual([talk.id]);

    await put(`/v1/mail/threads/${other.id}/folder`, { folder: 'trash' });
    await put(`/v1/mail/threads/${other.id}/star`);
    expect((await threads({ folder: 'starred' })).threads).toEqual([]);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Re: Plans', text: 'again', references: '<a1@sender.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'sales@in.test', subject: 'Re: Other', text: 'again', references: '<b1@other.test>' }), ['sales@in.test']);
    expect((await threads()).threads.map((t) => t.id)).toEqual([talk.id]);
    expect((await threads({ folder: 'archive' })).threads).toEqual([]);
    expect((await threads({ folder: 'trash' })).threads.map((t) => t.id)).toEqual([other.id]);
    expect((await threads({ folder: 'spam' })).threads).toEqual([]);
    expect((await threads({ folder: 'sent' })).threads).toEqual([]);
  });

  it('refuses sent and unknown folders, bad bodies, unknown and foreign threads', async () => {
    const { talk } = await conversation();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await put(`/v1/mail/threads/${talk.id}/folder`, { folder: 'sent' }), 400, 'invalid_request', /folder/);
    expectError(await put(`/v1/mail/threads/${talk.id}/folder`, { folder: 'starred' }), 400, 'invalid_request', /folder/);
    expectError(await put(`/v1/mail/threads/${talk.id}/folder`), 400, 'invalid_request');
    expectError(await put(`/v1/mail/threads/${talk.id}/read`, { read: 1 }), 400, 'invalid_request', /read/);
    expectError(await put(`/v1/mail/threads/${talk.id}/read`, { seen: true }), 400, 'invalid_request');
    for (const [path, body] of [
      ['read', {}],
      ['star', {}],
      ['folder', { folder: 'archive' }],
      ['labels', { add: [] }],
    ] as const) {
      expectError(await put(`/v1/mail/threads/thr_00000000000000000000000000/${path}`, body), 404, 'not_found');
      expectError(await put(`/v1/mail/threads/${talk.id}/${path}`, body, other.admin_key), 404, 'not_found');
      expectError(await put(`/v1/mail/threads/${talk.id}/${path}`, body, bed.readKey), 403, 'forbidden');
    }
    expect((await storedThread(talk.id))).toMatchObject({ folder: 'inbox', has_unread: true, starred: false });
  });
});

describe('thread labels', () => {
  const label = (name: string, color = '#123') => req({ method: 'POST', path: '/v1/mail/labels', key: bed.sendKey, body: { name, color } });

  it('adds and removes labels by name without regard to case, ignoring unknown names', async () => {
    const { talk } = await conversation();
    await label('Work');
    await label('urgent');
    expect((await put(`/v1/mail/threads/${talk.id}/labels`, { add: ['work', 'URGENT', 'nope'] })).body).toEqual({ id: talk.id });
    expect((await threads()).threads[0].labels).toEqual(['Work', 'urgent']);
    await put(`/v1/mail/threads/${talk.id}/labels`, { remove: ['Urgent', 'nope'] });
    expect((await thread(talk.id)).body.labels).toEqual(['Work']);
    expectError(await put(`/v1/mail/threads/${talk.id}/labels`, { add: 'Work' }), 400, 'invalid_request', /add/);
  });

  it('a deleted label leaves every thread at once, and a new label of the same name is not on them', async () => {
    const { talk, other } = await conversation();
    const work = (await label('Work')).body;
    await put(`/v1/mail/threads/${talk.id}/labels`, { add: ['Work'] });
    await put(`/v1/mail/threads/${other.id}/labels`, { add: ['Work'] });
    expect((await req({ method: 'DELETE', path: `/v1/mail/labels/${work.id}`, key: bed.sendKey })).status).toBe(204);
    expect((await threads()).threads.map((t) => t.labels)).toEqual([[], []]);
    await label('work');
    expect((await threads()).threads.map((t) => t.labels)).toEqual([[], []]);
    expect((await thread(talk.id)).body.labels).toEqual([]);
    // The dead id leaves the thread the next time its labels are written.
    await put(`/v1/mail/threads/${talk.id}/labels`, { add: ['work'] });
    expect((await storedThread(talk.id))?.label_ids).toHaveLength(1);
    expect((await thread(talk.id)).body.labels).toEqual(['work']);
  });
});

describe('the deployment gate', () => {
  it('answers 404 on every Mail route where inbound email is off, after the credentials check', async () => {
    const { talk } = await conversation();
    bed.c.config.inboundEnabled = false;
    try {
      const calls: HttpEventInput[] = [
        { method: 'GET', path: '/v1/mail/inboxes' },
        { method: 'POST', path: '/v1/mail/inboxes', body: { domain: 'in.test', local_part: 'x' } },
        { method: 'DELETE', path: '/v1/mail/inboxes/mbx_00000000000000000000000000' },
        { method: 'GET', path: '/v1/mail/threads' },
        { method: 'GET', path: `/v1/mail/threads/${talk.id}` },
        { method: 'PUT', path: `/v1/mail/threads/${talk.id}/read`, body: {} },
        { method: 'PUT', path: `/v1/mail/threads/${talk.id}/star`, body: {} },
        { method: 'PUT', path: `/v1/mail/threads/${talk.id}/folder`, body: { folder: 'archive' } },
        { method: 'PUT', path: `/v1/mail/threads/${talk.id}/labels`, body: {} },
        { method: 'PUT', path: '/v1/mail/messages/inbound/inb_00000000000000000000000000/star', body: {} },
        { method: 'GET', path: '/v1/mail/labels' },
        { method: 'POST', path: '/v1/mail/labels', body: { name: 'x', color: '#fff' } },
        { method: 'DELETE', path: '/v1/mail/labels/lbl_00000000000000000000000000' },
      ];
      for (const call of calls) {
        expectError(await req({ ...call, key: admin() }), 404, 'not_found');
        expectError(await req(call), 401, 'unauthorized');
      }
    } finally {
      bed.c.config.inboundEnabled = true;
    }
    expect((await storedThread(talk.id))?.folder).toBe('inbox');
  });
});

describe('outbound mail in threads', () => {
  it('lists a thread with outbound mail in the sent view and shows each outbound entry with its sent text, status and timeline', async () => {
    const { talk, other } = await conversation();
    // A long reply: its content is kept beside the message item, and the detail reads it back from there.
    const long = `thanks ${'and more '.repeat(2000)}`;
    const sent = await req({ method: 'POST', path: `/v1/mail/threads/${talk.id}/reply`, key: bed.sendKey, body: { body_text: long } });
    expect(sent.status, JSON.stringify(sent.body)).toBe(201);
    expect((await threads({ folder: 'sent' })).threads.map((t) => t.id)).toEqual([talk.id]);
    expect((await threads()).threads.map((t) => t.id)).toEqual([talk.id, other.id]);

    const job = bed.c.sent.find((s) => s.queue === 'send');
    expect((await sendWorker(sqsEvent([sqsRecord(job?.body)]))).batchItemFailures).toEqual([]);
    const messages = (await thread(talk.id)).body.messages;
    expect(messages.map((m: any) => m.source)).toEqual(['inbound', 'inbound', 'outbound']);
    expect(messages[2]).toEqual({
      id: sent.body.id,
      source: 'outbound',
      from: 'team@in.test',
      to: ['alice@sender.test'],
      subject: 'Re: Plans',
      text_body: long,
      status: 'sent',
      timeline: [expect.objectContaining({ type: 'sent' })],
      occurred_at: sent.body.created_at,
      is_starred: false,
    });

    // The outbound message takes a star of its own; a thread in trash leaves the sent view.
    expect((await put(`/v1/mail/messages/outbound/${sent.body.id}/star`, {})).body).toEqual({ source: 'outbound', id: sent.body.id, starred: true });
    expect((await thread(talk.id)).body.messages[2].is_starred).toBe(true);
    await put(`/v1/mail/threads/${talk.id}/folder`, { folder: 'trash' });
    expect((await threads({ folder: 'sent' })).threads).toEqual([]);
  });

});
