// Lists through the handler: static and dynamic lists, filters checked on write, member counts
// (exact for static lists, an estimate for dynamic ones), members added, listed and removed, list
// deletes, every failure case; and what a crashed membership write or list delete leaves behind.
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { COUNT_MAX_AGE_MS, continueListDelete, countMatches, deleteList } from '../../shared/audiences/contacts/lists';
import { handler as contactJobs } from '../../functions/uploads/import-contacts';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { PENDING_STALE_MS } from '../../shared/audiences/contacts/members';
import { ContactListRepository } from '../../shared/audiences/contacts/lists-repository';
import { ListMemberRepository } from '../../shared/audiences/contacts/members-repository';
import type { ContactItem } from '../../shared/audiences/contacts/repository';
import { CONTACT_WALK } from '../../shared/audiences/contacts/views';
import { useTestbed } from '../support/testbed';
import { expectError, expectInvalid } from '../support/errors';

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const createContact = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/contacts', key, body });
const getContact = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/contacts/${id}`, key });
const create = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/lists', key, body });
const lists = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/lists', key, query });
const get = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/lists/${id}`, key });
const update = (id: string, body: unknown, key = bed.sendKey) => request({ method: 'PATCH', path: `/v1/lists/${id}`, key, body });
const remove = (id: string, key = bed.sendKey) => request({ method: 'DELETE', path: `/v1/lists/${id}`, key });
const add = (id: string, body: unknown, key = bed.sendKey) => request({ method: 'POST', path: `/v1/lists/${id}/members`, key, body });
const members = (id: string, query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: `/v1/lists/${id}/members`, key, query });
const drop = (id: string, contactId: string, key = bed.sendKey) => request({ method: 'DELETE', path: `/v1/lists/${id}/members/${contactId}`, key });

const pro = { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] };

async function contact(email: string, extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const res = await createContact({ email, ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

async function made(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await create(body);
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return res.body;
}

const staticList = (name = 'Newsletter') => made({ name, type: 'static' });
const dynamicList = (filter: unknown = pro, name = 'Pro') => made({ name, type: 'dynamic', filter });

describe('POST /v1/lists', () => {
  it('creates a static list (exact count, no filter) and a dynamic one (counted at once)', async () => {
    await contact('ada@example.com', { data: { plan: 'pro' } });
    const news = await staticList();
    expect(news).toEqual({
      id: expect.stringMatching(/^lst_[0-9a-z]{26}$/),
      name: 'Newsletter',
      type: 'static',
      filter: null,
      member_count: 0,
      counted_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const dynamic = await dynamicList();
    expect(dynamic).toMatchObject({ type: 'dynamic', filter: pro, member_count: 1, counted_at: bed.c.clock.now().toISOString() });
  });

  it('checks the filter on write, naming the bad condition', async () => {
    const cond = (extra: Record<string, unknown>) => ({ field: 'email', op: 'eq', value: 'a@example.com', ...extra });
    const withConditions = (...conditions: unknown[]) => create({ name: 'Odd', type: 'dynamic', filter: { match: 'all', conditions } });
    expectInvalid(await withConditions(cond({}), cond({}), cond({ op: 'like' })), 'body.filter.conditions.2.op');
    expectInvalid(await withConditions(cond({ field: 'phone' })), 'body.filter.conditions.0.field');
    expectInvalid(await withConditions(cond({ field: 'data.' })), 'body.filter.conditions.0.field');
    expectInvalid(await withConditions(cond({ value: undefined })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ op: 'exists' })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ op: 'gt' })), 'body.filter.conditions.0.op');
    expectInvalid(await withConditions(cond({ field: 'data.seats', op: 'gt', value: '10' })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ field: 'data.plan', op: 'contains', value: 3 })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ field: 'data.plan', op: 'starts_with', value: '' })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ field: 'first_name', value: 3 })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ field: 'created_at', op: 'gt', value: 'yesterday' })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ field: 'created_at', op: 'contains', value: '2026' })), 'body.filter.conditions.0.op');
    expectInvalid(await withConditions(cond({ value: { a: 1 } })), 'body.filter.conditions.0.value');
    expectInvalid(await withConditions(cond({ extra: 1 })), 'body.filter.conditions.0');
    expectInvalid(await withConditions(), 'body.filter.conditions');
    expectInvalid(await withConditions(...Array.from({ length: 21 }, () => cond({}))), 'body.filter.conditions');
    expect((await withConditions(...Array.from({ length: 20 }, () => cond({})))).status).toBe(201);
    expectInvalid(await create({ name: 'Odd', type: 'dynamic', filter: { match: 'some', conditions: [cond({})] } }), 'body.filter.match');
    expectInvalid(await create({ name: 'Odd', type: 'dynamic' }), 'body.filter');
    expectInvalid(await create({ name: 'Odd', type: 'static', filter: pro }), 'body.filter');
    expectInvalid(await create({ name: 'Odd', type: 'smart' }), 'body.type');
    expectInvalid(await create({ name: ' ', type: 'static' }), 'body.name');
    expectInvalid(await create({ type: 'static' }), 'body.name');
    expectError(await create({ name: 'Mine', type: 'static' }, bed.readKey), 403, 'forbidden');
  });
});

describe('GET /v1/lists and /v1/lists/{id}', () => {
  it('lists newest first with counts, a page at a time', async () => {
    const one = await staticList('One');
    const two = await dynamicList(pro, 'Two');
    const three = await staticList('Three');
    const page = await lists({ limit: '2' });
    expect(page.body.lists).toEqual([three, two]);
    expect((await lists({ limit: '2', cursor: page.body.next_cursor })).body).toEqual({ lists: [one], next_cursor: null });
    expectInvalid(await lists({ cursor: 'nope' }), 'cursor');
    expect((await get(one.id, bed.sendKey)).body).toEqual(one);
  });

  it("answers 404 for an unknown id, a malformed one and another account's list on every route", async () => {
    const mine = await staticList();
    const ada = await contact('ada@example.com', { list_ids: [mine.id] });
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await get(mine.id, other.admin_key), 404, 'not_found');
    expectError(await get('lst_01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await get('nope'), 404, 'not_found');
    expectError(await update(mine.id, { name: 'X' }, other.admin_key), 404, 'not_found');
    expectError(await members(mine.id, {}, other.admin_key), 404, 'not_found');
    expectError(await add(mine.id, { email: 'x@example.com' }, other.admin_key), 404, 'not_found');
    expectError(await drop(mine.id, ada.id, other.admin_key), 404, 'not_found');
    expectError(await remove(mine.id, other.admin_key), 404, 'not_found');
    expect((await lists({}, other.admin_key)).body.lists).toEqual([]);
    // Their contact is not ours to add.
    const theirs = (await createContact({ email: 'theirs@example.com' }, other.admin_key)).body;
    expectError(await add(mine.id, { contact_id: theirs.id }), 404, 'not_found', new RegExp(theirs.id));
    expect((await get(mine.id)).body.member_count).toBe(1);
  });
});

describe('PATCH /v1/lists/{id}', () => {
  it('renames, changes a dynamic filter (recounted at once), refuses a filter on a static list with 422', async () => {
    await contact('ada@example.com', { data: { plan: 'pro', seats: 12 } });
    await contact('bob@example.com', { data: { plan: 'free', seats: 30 } });
    const news = await staticList();
    const renamed = await update(news.id, { name: 'Weekly' });
    expect(renamed.body).toEqual({ ...news, name: 'Weekly', updated_at: expect.any(String) });
    expectError(await update(news.id, { filter: pro }), 422, 'invalid_request');
    const dynamic = await dynamicList();
    expect(dynamic.member_count).toBe(1);
    const wider = await update(dynamic.id, { filter: { match: 'any', conditions: [{ field: 'data.seats', op: 'gt', value: 10 }] } });
    expect(wider.body).toMatchObject({ member_count: 2, name: 'Pro' });
    expectInvalid(await update(dynamic.id, { type: 'static' }), 'body');
    expectInvalid(await update(dynamic.id, { filter: { match: 'all', conditions: [{ field: 'email', op: 'nope' }] } }), 'body.filter.conditions.0.op');
    expectError(await update(dynamic.id, { name: 'X' }, bed.readKey), 403, 'forbidden');
  });
});

describe('members of a static list', () => {
  it('adds by id and by address (creating the contact), lists newest first, counts exactly, removes', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    const added = await add(news.id, { contact_id: ada.id });
    expect(added.status).toBe(201);
    expect(added.body).toEqual({ ...ada, list_ids: [news.id] });
    const bob = await add(news.id, { email: ' Bob@Example.com' });
    expect(bob.status).toBe(201);
    expect(bob.body).toMatchObject({ email: 'bob@example.com', list_ids: [news.id] });
    // By the address of a contact that exists: that contact.
    const cat = await contact('cat@example.com');
    expect((await add(news.id, { email: 'CAT@example.com' })).body.id).toBe(cat.id);
    expect((await get(news.id)).body.member_count).toBe(3);

    const page = await members(news.id, { limit: '2' });
    expect(page.body.contacts.map((x: { email: string }) => x.email)).toEqual(['cat@example.com', 'bob@example.com']);
    const rest = await members(news.id, { limit: '2', cursor: page.body.next_cursor });
    expect(rest.body).toEqual({ contacts: [{ ...ada, list_ids: [news.id] }], next_cursor: null });

    expect((await drop(news.id, bob.body.id)).status).toBe(204);
    expect((await getContact(bob.body.id)).body.list_ids).toEqual([]);
    expect((await get(news.id)).body.member_count).toBe(2);
    expectError(await drop(news.id, bob.body.id), 404, 'not_found', /not a member/);
    expectError(await drop(news.id, 'ctc_01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await drop(news.id, 'nope'), 404, 'not_found');
  });

  it('answers 409 duplicate_member for a member, and the count does not move', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com', { list_ids: [news.id] });
    expectError(await add(news.id, { contact_id: ada.id }), 409, 'duplicate_member');
    expectError(await add(news.id, { email: 'ada@example.com' }), 409, 'duplicate_member');
    expect((await get(news.id)).body.member_count).toBe(1);
    expect((await get(news.id)).body).not.toHaveProperty('pending');
  });

  it('refuses bad bodies, unknown contacts, read keys', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    expectInvalid(await add(news.id, {}), 'body.contact_id');
    expectInvalid(await add(news.id, { contact_id: ada.id, email: 'ada@example.com' }), 'body.contact_id');
    expectInvalid(await add(news.id, { email: 'nobody' }), 'body.email');
    expectError(await add(news.id, { contact_id: 'ctc_01hzzzzzzzzzzzzzzzzzzzzzzz' }), 404, 'not_found');
    expectError(await add(news.id, { contact_id: 'nope' }), 404, 'not_found');
    expectError(await add(news.id, { contact_id: ada.id }, bed.readKey), 403, 'forbidden');
    expectError(await drop(news.id, ada.id, bed.readKey), 403, 'forbidden');
    expect((await members(news.id, {}, bed.sendKey)).status).toBe(200);
    expect((await get(news.id)).body.member_count).toBe(0);
  });
});

describe('members of a dynamic list', () => {
  it('are the contacts its filter matches when read, never stored; adds and removes are 422', async () => {
    const list = await dynamicList();
    const ada = await contact('ada@example.com', { data: { plan: 'pro' } });
    const bob = await contact('bob@example.com', { data: { plan: 'free' } });
    expect((await members(list.id)).body).toEqual({ contacts: [ada], next_cursor: null });
    const upgraded = (await request({ method: 'PATCH', path: `/v1/contacts/${bob.id}`, key: bed.sendKey, body: { data: { plan: 'PRO' } } })).body;
    expect((await members(list.id)).body.contacts).toEqual([upgraded, ada]);
    expect(upgraded.list_ids).toEqual([]);
    expectError(await add(list.id, { contact_id: ada.id }), 422, 'invalid_request', /dynamic/);
    expectError(await add(list.id, { email: 'new@example.com' }), 422, 'invalid_request');
    expectError(await drop(list.id, ada.id), 422, 'invalid_request');
    expect((await request({ method: 'GET', path: '/v1/contacts', key: bed.readKey, query: { email: 'new@example.com' } })).body.contacts).toEqual([]);
  });

  it('keeps its estimate until it is older than the bound, then recounts when read', async () => {
    await contact('ada@example.com', { data: { plan: 'pro' } });
    const list = await dynamicList();
    expect(list.member_count).toBe(1);
    await contact('bob@example.com', { data: { plan: 'pro' } });
    expect((await get(list.id)).body).toMatchObject({ member_count: 1, counted_at: list.counted_at });
    bed.c.clock.advance(COUNT_MAX_AGE_MS);
    const recounted = (await get(list.id)).body;
    expect(recounted.member_count).toBe(2);
    expect(recounted.counted_at > list.counted_at).toBe(true);
    await contact('cat@example.com', { data: { plan: 'pro' } });
    bed.c.clock.advance(COUNT_MAX_AGE_MS);
    expect((await lists()).body.lists[0]).toMatchObject({ id: list.id, member_count: 3 });
  });

  it('walks the contacts with a bounded budget per page: short pages carry a cursor that resumes the walk', async () => {
    const list = await dynamicList({ match: 'all', conditions: [{ field: 'data.vip', op: 'eq', value: true }] });
    // More contacts than one page's walk reads; the only match is the oldest, so the first page finds nothing.
    const now = bed.c.clock.now().getTime();
    const total = CONTACT_WALK.pageSize * CONTACT_WALK.pages + 50;
    const items: ContactItem[] = Array.from({ length: total }, (_, i) => {
      const id = `ctc_${String(i).padStart(26, '0')}`;
      const at = new Date(now - (total - i) * 1000).toISOString();
      return { ...keys.contact(bed.account.account_id, id), entity: 'contact', id, account_id: bed.account.account_id, email: `c${i}@example.com`, first_name: null, last_name: null, data: i === 0 ? { vip: true } : ({} as Record<string, boolean>), unsubscribed: false, created_at: at, updated_at: at };
    });
    await bed.c.store.batchPut(items);
    const first = await members(list.id, { limit: '5' });
    expect(first.body.contacts).toEqual([]);
    expect(first.body.next_cursor).toEqual(expect.any(String));
    const second = await members(list.id, { limit: '5', cursor: first.body.next_cursor });
    expect(second.body.contacts.map((x: { email: string }) => x.email)).toEqual(['c0@example.com']);
    expect(second.body.next_cursor).toBeNull();
  });

  it('estimates past the count budget: the share of the contacts read that match, times the account’s contact count', async () => {
    for (let i = 0; i < 10; i++) await contact(`c${i}@example.com`, { data: { plan: i % 2 === 0 ? 'pro' : 'free' } });
    const list = await dynamicList();
    expect(list.member_count).toBe(5);
    const stored = (await new ContactListRepository(bed.c.store).getList(bed.account.account_id, list.id))!;
    // The newest 4 contacts hold 2 pro ones: half of 10.
    expect(await countMatches(bed.c, stored, { pageSize: 2, pages: 2 })).toBe(5);
    expect(await countMatches(bed.c, stored, { pageSize: 3, pages: 1 })).toBe(3); // 1 of 3: 10 / 3, rounded
    expect(await countMatches(bed.c, stored, { pageSize: 20, pages: 1 })).toBe(5);
  });
});

describe('DELETE /v1/lists/{id}', () => {
  it('deletes a list; its contacts stay and lose its id', async () => {
    const news = await staticList();
    const keep = await staticList('Keep');
    const ada = await contact('ada@example.com', { list_ids: [news.id, keep.id] });
    expectError(await remove(news.id, bed.readKey), 403, 'forbidden');
    expect((await remove(news.id)).status).toBe(204);
    expectError(await get(news.id), 404, 'not_found');
    expectError(await remove(news.id), 404, 'not_found');
    expect((await getContact(ada.id)).body.list_ids).toEqual([keep.id]);
    expect(await new ListMemberRepository(bed.c.store).member(bed.account.account_id, news.id, ada.id)).toBeUndefined();
    expect((await lists()).body.lists.map((l: { id: string }) => l.id)).toEqual([keep.id]);
    const dynamic = await dynamicList();
    expect((await remove(dynamic.id)).status).toBe(204);
    expectError(await members(dynamic.id), 404, 'not_found');
  });

  it('finishes a delete a crash cut short: the marked list is gone for every read and write, and a repeated DELETE completes it', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com', { list_ids: [news.id] });
    const listRepo = new ContactListRepository(bed.c.store);
    await listRepo.markListDeleted(bed.account.account_id, news.id, bed.c.clock.now().toISOString());
    expectError(await get(news.id), 404, 'not_found');
    expectError(await members(news.id), 404, 'not_found');
    expectError(await add(news.id, { email: 'bob@example.com' }), 404, 'not_found');
    expectError(await update(news.id, { name: 'X' }), 404, 'not_found');
    expect((await lists()).body.lists).toEqual([]);
    expectError(await createContact({ email: 'bob@example.com', list_ids: [news.id] }), 404, 'not_found');
    expect((await remove(news.id)).status).toBe(204);
    expect(await listRepo.getList(bed.account.account_id, news.id)).toBeUndefined();
    expect((await getContact(ada.id)).body.list_ids).toEqual([]);
  });
});

describe('a list longer than one request removes', () => {
  it('answers once the list is marked and a share removed; jobs on the imports queue remove the rest, then the list', async () => {
    const news = await staticList();
    const keep = await staticList('Keep');
    const people: Array<Record<string, any>> = [];
    for (let i = 0; i < 7; i++) people.push(await contact(`reader${i}@example.com`, { list_ids: [news.id, keep.id] }));
    const listIdsOf = async () => Promise.all(people.map(async (p) => (await getContact(p.id)).body.list_ids));
    bed.c.sent.length = 0;

    // A request that may remove 3 memberships: the list is gone for every read at once, 4 remain.
    await deleteList(bed.c, bed.account.account_id, news.id, 3);
    expectError(await get(news.id), 404, 'not_found');
    const listRepo = new ContactListRepository(bed.c.store);
    const memberRepo = new ListMemberRepository(bed.c.store);
    expect(await memberRepo.firstMembers(bed.account.account_id, news.id, 100)).toHaveLength(4);
    // Until the job reaches them, the contacts not yet removed still name the list.
    expect((await listIdsOf()).filter((ids) => ids.includes(news.id))).toHaveLength(4);
    const job = { account_id: bed.account.account_id, list_id: news.id };
    expect(bed.c.sent).toEqual([{ queue: 'imports', body: job, delaySeconds: undefined }]);

    // A job with room for 2 queues the next one.
    expect(await continueListDelete(bed.c, job, 2)).toBe('continued');
    expect(await memberRepo.firstMembers(bed.account.account_id, news.id, 100)).toHaveLength(2);
    expect(bed.c.sent.slice(1)).toEqual([{ queue: 'imports', body: job, delaySeconds: undefined }]);

    // The imports queue's consumer removes the rest and the list; a repeated job finds nothing to do.
    expect(await contactJobs(sqsEvent([sqsRecord(job)]))).toEqual({ batchItemFailures: [] });
    expect(await memberRepo.firstMembers(bed.account.account_id, news.id, 100)).toEqual([]);
    expect(await listIdsOf()).toEqual(people.map(() => [keep.id]));
    expect(await listRepo.getList(bed.account.account_id, news.id)).toBeUndefined();
    expect((await members(keep.id)).body.contacts).toHaveLength(7);
    expect(await continueListDelete(bed.c, job)).toBe('gone');
    expect(bed.c.sent).toHaveLength(2);
  });

  it('leaves a list that is not being deleted alone, whatever a job says', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com', { list_ids: [news.id] });
    expect(await continueListDelete(bed.c, { account_id: bed.account.account_id, list_id: news.id })).toBe('gone');
    expect((await getContact(ada.id)).body.list_ids).toEqual([news.id]);
    expect((await get(news.id)).body.member_count).toBe(1);
  });
});

describe('membership writes a crash cut short', () => {
  it('an add that died after its membership is finished by a read of the list once stale', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    const listRepo = new ContactListRepository(bed.c.store);
    const memberRepo = new ListMemberRepository(bed.c.store);
    const token = `+${ada.id}|0123456789abcdef|${bed.c.clock.now().getTime()}`;
    await listRepo.beginCount(bed.account.account_id, news.id, 1, token);
    await memberRepo.putMember({ account_id: bed.account.account_id, list_id: news.id, contact_id: ada.id, op: '0123456789abcdef', created_at: bed.c.clock.now().toISOString() });
    // Fresh: the add may still be running; a removal waits for it.
    expect((await get(news.id)).body.member_count).toBe(1);
    expectError(await drop(news.id, ada.id), 409, 'conflict');
    bed.c.clock.advance(PENDING_STALE_MS + 1);
    expect((await get(news.id)).body.member_count).toBe(1);
    expect((await getContact(ada.id)).body.list_ids).toEqual([news.id]);
    expect((await listRepo.getList(bed.account.account_id, news.id))?.pending).toBeUndefined();
    expect((await drop(news.id, ada.id)).status).toBe(204);
    expect((await get(news.id)).body.member_count).toBe(0);
  });

  it('an add that died before its membership is undone: the count moves back', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    const listRepo = new ContactListRepository(bed.c.store);
    await listRepo.beginCount(bed.account.account_id, news.id, 1, `+${ada.id}|0123456789abcdef|${bed.c.clock.now().getTime()}`);
    bed.c.clock.advance(PENDING_STALE_MS + 1);
    expect((await lists()).body.lists[0]).toMatchObject({ id: news.id, member_count: 0 });
    expect((await add(news.id, { contact_id: ada.id })).status).toBe(201);
    expect((await get(news.id)).body.member_count).toBe(1);
  });

  it('a removal that died after it counted is finished once stale; one that died before is taken over', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com', { list_ids: [news.id] });
    const bob = await contact('bob@example.com', { list_ids: [news.id] });
    const listRepo = new ContactListRepository(bed.c.store);
    const memberRepo = new ListMemberRepository(bed.c.store);
    const nowMs = bed.c.clock.now().getTime();
    const adaMember = (await memberRepo.member(bed.account.account_id, news.id, ada.id))!;
    const token = `-${ada.id}|${adaMember.op}|${nowMs}`;
    await memberRepo.markRemoving(bed.account.account_id, news.id, ada.id, adaMember.op, token, nowMs);
    await listRepo.beginCount(bed.account.account_id, news.id, -1, token);
    const bobMember = (await memberRepo.member(bed.account.account_id, news.id, bob.id))!;
    await memberRepo.markRemoving(bed.account.account_id, news.id, bob.id, bobMember.op, `-${bob.id}|${bobMember.op}|${nowMs}`, nowMs);
    // While fresh, a second removal of bob is refused as "not a member" being removed.
    expectError(await drop(news.id, bob.id), 404, 'not_found');
    bed.c.clock.advance(PENDING_STALE_MS + 1);
    expect((await get(news.id)).body.member_count).toBe(1);
    expect((await getContact(ada.id)).body.list_ids).toEqual([]);
    expect(await memberRepo.member(bed.account.account_id, news.id, ada.id)).toBeUndefined();
    expect((await drop(news.id, bob.id)).status).toBe(204);
    expect((await get(news.id)).body.member_count).toBe(0);
    expect((await members(news.id)).body.contacts).toEqual([]);
  });
});

describe('races with deletes', () => {
  it('an add that meets a list delete begun meanwhile takes its membership back and answers 404', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    const listRepo = new ContactListRepository(bed.c.store);
    const memberRepo = new ListMemberRepository(bed.c.store);
    const create = bed.c.store.create.bind(bed.c.store);
    // The delete marks the list (and its sweep passes) right after the add wrote its membership.
    bed.c.store.create = async (item) => {
      await create(item);
      if ((item as { entity?: string }).entity === 'list_member') await listRepo.markListDeleted(bed.account.account_id, news.id, bed.c.clock.now().toISOString());
    };
    try {
      expectError(await add(news.id, { contact_id: ada.id }), 404, 'not_found', new RegExp(news.id));
    } finally {
      bed.c.store.create = create;
    }
    expect(await memberRepo.member(bed.account.account_id, news.id, ada.id)).toBeUndefined();
    expect((await getContact(ada.id)).body.list_ids).toEqual([]);
    expect((await remove(news.id)).status).toBe(204);
  });

  it('a contact delete takes the contact out of a list an add put it in just before the mark', async () => {
    const news = await staticList();
    const ada = await contact('ada@example.com');
    const update = bed.c.store.update.bind(bed.c.store);
    let raced = false;
    bed.c.store.update = (async (key, change) => {
      if (!raced && change.expression === 'SET deleted_at = :now') {
        raced = true;
        expect((await add(news.id, { contact_id: ada.id })).status).toBe(201);
      }
      return update(key, change);
    }) as typeof bed.c.store.update;
    try {
      expect((await request({ method: 'DELETE', path: `/v1/contacts/${ada.id}`, key: bed.sendKey })).status).toBe(204);
    } finally {
      bed.c.store.update = update;
    }
    expect(raced).toBe(true);
    expect((await get(news.id)).body.member_count).toBe(0);
    expect(await new ListMemberRepository(bed.c.store).member(bed.account.account_id, news.id, ada.id)).toBeUndefined();
  });
});
