// A broadcast's list audience, read at fan-out through the real handlers and the fanout consumer:
// static and dynamic lists walked page by page into chunks, unsubscribed and suppressed contacts
// skipped, each contact's fields and data as template variables, re-runs and crashes that send and
// count nobody twice, a deleted list failing the broadcast, and bounded reads per walk job.
import { describe, expect, it } from 'vitest';
import { recipientIdempotencyKey } from '../../shared/audiences/broadcasts/fan-out';
import { DYNAMIC_WALK } from '../../shared/audiences/broadcasts/audience';
import type { WalkJob } from '../../shared/audiences/broadcasts/messages';
import type { BroadcastItem, RecipientChunkItem } from '../../shared/audiences/broadcasts/model';
import { inParallel } from '../../shared/concurrency';
import { ListMemberRepository } from '../../shared/audiences/contacts/members-repository';
import { ContactRepository, type NewContact } from '../../shared/audiences/contacts/repository';
import { keys } from '../../shared/db/keys';
import type { Store } from '../../shared/db/store';
import { findByIdempotencyKey } from '../../shared/sending/messages/query';
import { loadContent } from '../../shared/sending/messages/content';
import { MessageRepository } from '../../shared/sending/messages/repository';
import type { MessageItem } from '../../shared/sending/messages/model';
import { suppress } from '../../shared/sending/suppressions/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { call } from '../support/api';
import { drain, sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { fanOut } from '../support/consumers';

const bed = useTestbed({ scopedKeys: true });

const bulk = (listId: string, over: Record<string, unknown> = {}) => ({
  from_email: 'news@acme.test',
  subject: 'News',
  body_text: 'News for you',
  audience_list_id: listId,
  ...over,
});
const postBulk = (body: unknown, key = bed.sendKey) => call({ method: 'POST', path: '/v1/send/bulk', key, body });
const get = (id: string) => call({ method: 'GET', path: `/v1/broadcasts/${id}`, key: bed.readKey });
const makeList = async (body: Record<string, unknown>): Promise<string> => {
  const res = await call({ method: 'POST', path: '/v1/lists', key: bed.sendKey, body: { name: 'audience', ...body } });
  expect(res.status).toBe(201);
  return res.body.id;
};

const fanoutBodies = (): Array<Record<string, unknown>> => bed.c.sent.filter((s) => s.queue === 'fanout').map((s) => s.body as Record<string, unknown>);
const walkJobs = () => fanoutBodies().filter((b) => 'page' in b) as WalkJob[];
const sendJobs = () => bed.c.sent.filter((s) => s.queue === 'send');
const runJob = (job: unknown) => fanOut(sqsEvent([sqsRecord(job)]));
const drainFanout = () => drain(bed.c.sent, 'fanout', fanOut, { keep: true });
const stored = (id: string) => bed.c.store.get<BroadcastItem>(keys.broadcast(bed.account.account_id, id));
/** The message to a recipient, with what it says wherever its content is kept (on the item or beside it). */
async function messageTo(broadcastId: string, recipient: string): Promise<MessageItem | undefined> {
  const found = await findByIdempotencyKey(bed.c.store, bed.account.account_id, recipientIdempotencyKey(broadcastId, recipient));
  const message = found && (await bed.c.store.get<MessageItem>(keys.message(found.message_id)));
  return message && { ...message, ...(await loadContent({ objects: bed.c.objects, messages: new MessageRepository(bed.c.store) }, message)) };
}

interface Seed {
  email: string;
  first_name?: string | null;
  last_name?: string | null;
  data?: Record<string, string | number | boolean>;
  unsubscribed?: boolean;
  deleted?: boolean;
}

/**
 * Contacts written through the contacts repository (and made members of a static list), without
 * the API's address claims and counts: a fan-out reads only contacts and memberships.
 */
async function seedContacts(store: Store, accountId: string, seeds: Seed[], listId?: string): Promise<void> {
  const now = bed.c.clock.now().toISOString();
  const contacts = new ContactRepository(store);
  const made = seeds.map((s): NewContact => ({
    id: bed.c.ids.next('ctc'),
    account_id: accountId,
    email: s.email,
    first_name: s.first_name ?? null,
    last_name: s.last_name ?? null,
    data: s.data ?? {},
    unsubscribed: s.unsubscribed ?? false,
    created_at: now,
    updated_at: now,
  }));
  await contacts.putNewContacts(made);
  await inParallel(made.map((ct, i) => ({ ct, deleted: seeds[i]?.deleted })), 8, async ({ ct, deleted }) => {
    if (listId) {
      expect(await contacts.addListToContact(accountId, ct.id, listId)).toBe(true);
      expect(await new ListMemberRepository(store).putMember({ account_id: accountId, list_id: listId, contact_id: ct.id, op: '0123456789abcdef', created_at: now })).toBe(true);
    }
    if (deleted) expect(await contacts.markContactDeleted(accountId, ct.id, now)).toBe(true);
  });
}
const people = (count: number, over: (i: number) => Partial<Seed> = () => ({})): Seed[] => Array.from({ length: count }, (_, i) => ({ email: `p${i}@example.com`, ...over(i) }));

describe('a static list audience', () => {
  it('is walked at fan-out, not in the request: each member once, unsubscribed and suppressed ones skipped, deleted ones not counted', async () => {
    const listId = await makeList({ type: 'static' });
    await seedContacts(bed.c.store, bed.account.account_id, [...people(3), { email: 'gone@example.com', unsubscribed: true }, { email: 'deleted@example.com', deleted: true }, { email: 'muted@example.com' }], listId);
    await suppress(bed.c, bed.account.account_id, { channel: 'email', recipient: 'muted@example.com', reason: 'manual' });

    const res = await postBulk(bulk(listId));

    expect(res.status).toBe(202);
    expect(res.body).toMatchObject({ status: 'sending', audience_list_id: listId, total_recipients: 0 });
    expect(walkJobs()).toEqual([{ broadcast_id: res.body.id, account_id: bed.account.account_id, page: 0 }]);
    await drainFanout();
    expect(sendJobs()).toHaveLength(3);
    expect(await messageTo(res.body.id, 'p0@example.com')).toMatchObject({ status: 'queued', subject: 'News' });
    expect(await messageTo(res.body.id, 'gone@example.com')).toBeUndefined();
    expect((await messageTo(res.body.id, 'muted@example.com'))?.status).toBe('suppressed');
    expect((await get(res.body.id)).body).toEqual({
      broadcast: expect.objectContaining({ status: 'sent', total_recipients: 5, sent_count: 3, failed_count: 0, completed_at: bed.c.clock.now().toISOString() }),
      // The stats' sent counts `sent` events, and no send job has run yet.
      stats: expect.objectContaining({ total: 5, sent: 0, failed: 0 }),
    });
    expect(await stored(res.body.id)).toMatchObject({ skipped_count: 2, chunk_count: 1, walk_done: true, pages_walked: 1 });
  });

  it('walks a list past one page into numbered chunks and finishes once the walk and every chunk are done', async () => {
    const listId = await makeList({ type: 'static' });
    await seedContacts(bed.c.store, bed.account.account_id, people(1203), listId);

    const { body: made } = await postBulk(bulk(listId));
    await drainFanout();

    expect(walkJobs().map((j) => j.page)).toEqual([0, 1, 2]);
    const chunks = await Promise.all([0, 1, 2].map((i) => bed.c.store.get<RecipientChunkItem>(keys.broadcastRecipients(made.id, i))));
    expect(chunks.map((ch) => ch?.recipients.length)).toEqual([500, 500, 203]);
    expect(new Set(chunks.flatMap((ch) => ch?.recipients ?? [])).size).toBe(1203);
    expect(sendJobs()).toHaveLength(1203);
    expect(await stored(made.id)).toMatchObject({ status: 'sent', total_recipients: 1203, sent_count: 1203, chunk_count: 3 });
  });

  it('finishes an empty list as sent with nobody', async () => {
    const listId = await makeList({ type: 'static' });

    const { body: made } = await postBulk(bulk(listId));
    await drainFanout();

    expect(sendJobs()).toHaveLength(0);
    expect((await get(made.id)).body.broadcast).toMatchObject({ status: 'sent', total_recipients: 0, sent_count: 0 });
  });
});

describe('a dynamic list audience', () => {
  it("sends to the contacts the filter matches when the fan-out runs, with each contact's fields and data as template variables", async () => {
    const template = await call({
      method: 'POST',
      path: '/v1/templates',
      key: bed.sendKey,
      body: {
        name: 'Plan note',
        channel: 'email',
        subject: 'Hi {{ first_name }}',
        body_html: '<p>Hello {{ first_name }}</p>',
        body_text: 'Hello {{ first_name }} {{ last_name }} ({{ email }}), your plan is {{ plan }}.',
        variables: [{ name: 'first_name', required: true }, { name: 'last_name' }, { name: 'email' }, { name: 'plan' }],
      },
    });
    const listId = await makeList({ type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] } });
    await seedContacts(bed.c.store, bed.account.account_id, [
      { email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro' } },
      { email: 'bob@example.com', first_name: 'Bob', data: { plan: 'free' } },
      { email: 'cy@example.com', data: { plan: 'pro' } },
    ]);

    expect(template.status).toBe(201);
    const { body: made } = await postBulk({ from_email: 'news@acme.test', template_id: template.body.id, audience_list_id: listId });
    // Matched at fan-out: a contact added after the request is in.
    await seedContacts(bed.c.store, bed.account.account_id, [{ email: 'dee@example.com', first_name: 'Dee', data: { plan: 'pro' } }]);
    await drainFanout();

    expect(await messageTo(made.id, 'ada@example.com')).toMatchObject({ subject: 'Hi Ada', body_text: 'Hello Ada Lovelace (ada@example.com), your plan is pro.' });
    expect((await messageTo(made.id, 'dee@example.com'))?.subject).toBe('Hi Dee');
    expect(await messageTo(made.id, 'bob@example.com')).toBeUndefined();
    // cy has no first_name: missing_variable, counted as failed.
    expect(await stored(made.id)).toMatchObject({ status: 'sent', total_recipients: 3, sent_count: 2, failed_count: 1 });
  });

  it('reads at most DYNAMIC_WALK contacts per walk job, carrying on from where it stopped', async () => {
    const listId = await makeList({ type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'data.vip', op: 'eq', value: true }] } });
    const read = DYNAMIC_WALK.pageSize * DYNAMIC_WALK.pages;
    await seedContacts(bed.c.store, bed.account.account_id, people(read + 10, (i) => ({ data: { vip: i === 3 || i === read + 5 } })));
    const queries: number[] = [];
    const query = bed.c.store.query.bind(bed.c.store);
    bed.c.store.query = (async (request: Parameters<Store['query']>[0]) => {
      const out = await query(request);
      if (String(request.values[':prefix'] ?? '') === keys.contactPrefix) queries.push(out.items.length);
      return out;
    }) as Store['query'];
    try {
      const { body: made } = await postBulk(bulk(listId));
      await drainFanout();

      expect(walkJobs().map((j) => j.page)).toEqual([0, 1]);
      expect(queries.slice(0, DYNAMIC_WALK.pages).every((n) => n <= DYNAMIC_WALK.pageSize)).toBe(true);
      expect(queries).toHaveLength(DYNAMIC_WALK.pages + 1);
      expect(sendJobs()).toHaveLength(2);
      expect(await stored(made.id)).toMatchObject({ status: 'sent', total_recipients: 2, chunk_count: 2 });
    } finally {
      bed.c.store.query = query;
    }
  });
});

describe('walks across a crash', () => {
  it('sends and counts nobody twice when a page job runs again, or runs again after its page was recorded', async () => {
    const listId = await makeList({ type: 'static' });
    await seedContacts(bed.c.store, bed.account.account_id, people(600), listId);
    const { body: made } = await postBulk(bulk(listId));
    const [first] = walkJobs();

    await runJob(first);
    await runJob(first); // recorded already: the next page is handed on again
    await drainFanout();

    // drainFanout() ran the first job a third time, which handed page 1 on once more.
    expect(new Set(walkJobs().map((j) => j.page))).toEqual(new Set([0, 1]));
    expect(sendJobs()).toHaveLength(600);
    expect(await stored(made.id)).toMatchObject({ status: 'sent', total_recipients: 600, sent_count: 600, chunk_count: 2, pages_walked: 2 });
  });

  it('re-runs a page from its stored chunk when the first run died before recording it, even if the list changed meanwhile', async () => {
    const listId = await makeList({ type: 'static' });
    await seedContacts(bed.c.store, bed.account.account_id, people(600), listId);
    const { body: made } = await postBulk(bulk(listId));
    const [first] = walkJobs();
    const before = await stored(made.id);

    await runJob(first);
    const chunk0 = await bed.c.store.get<RecipientChunkItem>(keys.broadcastRecipients(made.id, 0));
    await bed.c.store.put(before as BroadcastItem); // as if the run died after writing and handing on its chunk
    await seedContacts(bed.c.store, bed.account.account_id, [{ email: 'late@example.com' }], listId);
    await runJob(first);
    await drainFanout();

    expect(await bed.c.store.get<RecipientChunkItem>(keys.broadcastRecipients(made.id, 0))).toEqual(chunk0);
    expect(sendJobs()).toHaveLength(601);
    expect(await stored(made.id)).toMatchObject({ status: 'sent', total_recipients: 601, sent_count: 601 });
  });
});

describe('a list that goes away', () => {
  it('fails the broadcast with its reason when the list is deleted before the walk ends', async () => {
    const listId = await makeList({ type: 'static' });
    await seedContacts(bed.c.store, bed.account.account_id, people(600), listId);
    const { body: made } = await postBulk(bulk(listId));
    const [first] = walkJobs();
    await runJob(first);

    expect((await call({ method: 'DELETE', path: `/v1/lists/${listId}`, key: bed.sendKey })).status).toBe(204);
    await drainFanout();

    expect(await stored(made.id)).toMatchObject({ status: 'failed', failure_reason: `the audience list ${listId} was deleted`, completed_at: bed.c.clock.now().toISOString() });
    expect((await get(made.id)).body.broadcast).toMatchObject({ status: 'failed', failure_reason: expect.stringContaining('deleted') });
  });

  it("refuses an unknown list and another account's list as 404 on /v1/send/bulk", async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = await call({ method: 'POST', path: '/v1/lists', key: other.admin_key, body: { name: 'theirs', type: 'static' } });

    for (const id of [theirs.body.id, 'lst_01jz0000000000000000000000', 'nope']) {
      const res = await postBulk(bulk(id));
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(bed.c.sent).toEqual([]);
  });
});
