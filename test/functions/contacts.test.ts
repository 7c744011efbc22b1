// Contacts through the handler: create (normalized, unique addresses; data rules; list_ids),
// list (newest first, email, list_id, q, pagination), read, update, delete and every failure case;
// and what a crashed request leaves behind (a stale address claim, a contact marked deleted).
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { STALE_EMAIL_CLAIM_MS } from '../../shared/audiences/contacts/contacts';
import { ContactClaimRepository } from '../../shared/audiences/contacts/claims-repository';
import { ListMemberRepository } from '../../shared/audiences/contacts/members-repository';
import { ContactRepository } from '../../shared/audiences/contacts/repository';
import { useTestbed } from '../support/testbed';
import { expectError, expectInvalid } from '../support/errors';

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const create = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/contacts', key, body });
const list = (query: Record<string, string> = {}, key = bed.readKey) => request({ method: 'GET', path: '/v1/contacts', key, query });
const get = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/contacts/${id}`, key });
const update = (id: string, body: unknown, key = bed.sendKey) => request({ method: 'PATCH', path: `/v1/contacts/${id}`, key, body });
const remove = (id: string, key = bed.sendKey) => request({ method: 'DELETE', path: `/v1/contacts/${id}`, key });
const createList = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/lists', key, body });
const getList = (id: string, key = bed.readKey) => request({ method: 'GET', path: `/v1/lists/${id}`, key });

async function made(body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await create(body);
  expect(res.status).toBe(201);
  return res.body;
}

async function staticList(name = 'Newsletter'): Promise<Record<string, any>> {
  const res = await createList({ name, type: 'static' });
  expect(res.status).toBe(201);
  return res.body;
}

describe('POST /v1/contacts', () => {
  it('stores the address trimmed and lower-cased, with defaults, and answers the contact', async () => {
    const res = await create({ email: '  Ada.Lovelace@Example.COM ', first_name: ' Ada ', data: { plan: 'pro', seats: 3, beta: true } });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^ctc_[0-9a-z]{26}$/),
      email: 'ada.lovelace@example.com',
      first_name: 'Ada',
      last_name: null,
      data: { plan: 'pro', seats: 3, beta: true },
      unsubscribed: false,
      list_ids: [],
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    expect((await get(res.body.id)).body).toEqual(res.body);
  });

  it('answers 409 duplicate_contact for an address the account has, regardless of case; another account may have it', async () => {
    await made({ email: 'ada@example.com' });
    expectError(await create({ email: 'ADA@example.com ' }), 409, 'duplicate_contact', /ada@example\.com/);
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expect((await create({ email: 'ada@example.com' }, other.admin_key)).status).toBe(201);
  });

  it('refuses data that is not a flat object of strings, numbers and booleans, naming the field', async () => {
    const email = 'data@example.com';
    expectInvalid(await create({ email, data: { address: { city: 'London' } } }), 'body.data.address');
    expectInvalid(await create({ email, data: { tags: ['a'] } }), 'body.data.tags');
    expectInvalid(await create({ email, data: { gone: null } }), 'body.data.gone');
    expectInvalid(await create({ email, data: { 'has space': 'x' } }), 'body.data.has space');
    expectInvalid(await create({ email, data: { big: 1e300 } }), 'body.data.big');
    expectInvalid(await create({ email, data: { tiny: -1e-300 } }), 'body.data.tiny');
    expectInvalid(await create({ email, data: ['a'] }), 'body.data');
    expectInvalid(await create({ email, data: 'plan=pro' }), 'body.data');
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expectInvalid(await create({ email, data: many }), 'body.data');
    expect((await create({ email: 'fifty@example.com', data: Object.fromEntries(Object.entries(many).slice(0, 50)) })).status).toBe(201);
    expectInvalid(await create({ email, data: { a: 'x'.repeat(4100), b: 'y'.repeat(4100) } }), 'body.data');
    expect((await list()).body.contacts.map((x: { email: string }) => x.email)).toEqual(['fifty@example.com']);
  });

  it('refuses a bad address, unknown fields, long names and a missing body', async () => {
    expectInvalid(await create({ email: 'nobody' }), 'body.email');
    expectInvalid(await create({ first_name: 'Ada' }), 'body.email');
    expectInvalid(await create({ email: 'a@example.com', nickname: 'x' }), 'body');
    expectInvalid(await create({ email: 'a@example.com', first_name: 'x'.repeat(201) }), 'body.first_name');
    expectInvalid(await create({ email: 'a@example.com', unsubscribed: 'yes' }), 'body.unsubscribed');
    expectInvalid(await create(undefined), 'body');
  });

  it('adds the contact to static lists in list_ids; 404 naming a list that is not the account’s, 422 for a dynamic one, writing nothing then', async () => {
    const one = await staticList('One');
    const two = await staticList('Two');
    const res = await made({ email: 'ada@example.com', list_ids: [one.id, two.id, one.id] });
    expect(res.list_ids).toEqual([one.id, two.id].sort());
    expect((await getList(one.id)).body.member_count).toBe(1);

    const dynamic = (await createList({ name: 'Pro', type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] } })).body;
    expectError(await create({ email: 'bob@example.com', list_ids: [one.id, dynamic.id] }), 422, 'invalid_request', new RegExp(dynamic.id));
    expectError(await create({ email: 'bob@example.com', list_ids: ['lst_01hzzzzzzzzzzzzzzzzzzzzzzz'] }), 404, 'not_found', /lst_01hzzzzzzzzzzzzzzzzzzzzzzz/);
    expectError(await create({ email: 'bob@example.com', list_ids: ['nope'] }), 404, 'not_found', /nope/);
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = (await createList({ name: 'Theirs', type: 'static' }, other.admin_key)).body;
    expectError(await create({ email: 'bob@example.com', list_ids: [theirs.id] }), 404, 'not_found', new RegExp(theirs.id));
    // Nothing was written: the address is free and the list still has one member.
    expect((await create({ email: 'bob@example.com' })).status).toBe(201);
    expect((await getList(one.id)).body.member_count).toBe(1);
  });

  it('refuses a read key with 403 and takes an admin key', async () => {
    expectError(await create({ email: 'ada@example.com' }, bed.readKey), 403, 'forbidden');
    expect((await create({ email: 'ada@example.com' }, bed.account.admin_key)).status).toBe(201);
  });

  it('takes over an address claim a crashed create left once it is stale, never a fresh one', async () => {
    await new ContactClaimRepository(bed.c.store).claimEmail(bed.account.account_id, 'ghost@example.com', 'ctc_01hzzzzzzzzzzzzzzzzzzzzzzz', bed.c.clock.now().getTime());
    expectError(await create({ email: 'ghost@example.com' }), 409, 'duplicate_contact');
    bed.c.clock.advance(STALE_EMAIL_CLAIM_MS + 1);
    const res = await made({ email: 'ghost@example.com' });
    expect((await list({ email: 'ghost@example.com' })).body.contacts).toEqual([res]);
  });

  it('test-mode keys read the account’s contacts but may not add one (live broadcasts reach contacts)', async () => {
    const testKey = (await createKey(bed.c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: true })).key;
    const mine = await made({ email: 'ada@example.com' });
    expect((await get(mine.id, testKey)).body).toEqual(mine);
    expectError(await create({ email: 'grace@example.com' }, testKey), 403, 'forbidden');
    expect((await list({ email: 'grace@example.com' })).body.contacts).toEqual([]);
  });
});

describe('GET /v1/contacts', () => {
  it('lists newest first, a page at a time, with a cursor bound to the filters', async () => {
    const a = await made({ email: 'a@example.com' });
    const b = await made({ email: 'b@example.com' });
    const cc = await made({ email: 'c@example.com' });
    const first = await list({ limit: '2' });
    expect(first.body.contacts).toEqual([cc, b]);
    const second = await list({ limit: '2', cursor: first.body.next_cursor });
    expect(second.body).toEqual({ contacts: [a], next_cursor: null });
    expectInvalid(await list({ limit: '2', cursor: first.body.next_cursor, q: 'a' }), 'cursor');
    expectInvalid(await list({ cursor: 'not-a-cursor' }), 'cursor');
    expect((await list({ limit: 'lots' })).body.contacts).toHaveLength(3);
    expect((await list({ limit: '1000' })).body.contacts).toHaveLength(3);
    expectInvalid(await list({ colour: 'red' }), 'query');
    expect((await list({}, bed.sendKey)).status).toBe(200);
  });

  it('finds one contact by address (normalized), and none for an unknown or malformed one', async () => {
    const ada = await made({ email: 'ada@example.com' });
    await made({ email: 'bob@example.com' });
    expect((await list({ email: ' ADA@example.com' })).body).toEqual({ contacts: [ada], next_cursor: null });
    expect((await list({ email: 'nobody@example.com' })).body).toEqual({ contacts: [], next_cursor: null });
    expect((await list({ email: 'nobody' })).body).toEqual({ contacts: [], next_cursor: null });
  });

  it('filters by a prefix of the email, first or last name, regardless of case', async () => {
    const ada = await made({ email: 'ada@example.com', first_name: 'Augusta', last_name: 'King' });
    const bob = await made({ email: 'bob@example.com', first_name: 'Robert', last_name: 'Adams' });
    await made({ email: 'carol@example.com', first_name: 'Carol' });
    expect((await list({ q: 'AD' })).body.contacts).toEqual([bob, ada]);
    expect((await list({ q: 'aug' })).body.contacts).toEqual([ada]);
    expect((await list({ q: 'kin' })).body.contacts).toEqual([ada]);
    expect((await list({ q: 'xyz' })).body.contacts).toEqual([]);
    expect((await list({ q: 'example' })).body.contacts).toEqual([]);
    expectInvalid(await list({ q: '' }), 'query.q');
  });

  it('filters by list: a static list’s members, a dynamic list’s matches, with q; 404 for a list not the account’s', async () => {
    const news = await staticList();
    const ada = await made({ email: 'ada@example.com', data: { plan: 'pro' }, list_ids: [news.id] });
    const bob = await made({ email: 'bob@example.com', data: { plan: 'free' }, list_ids: [news.id] });
    const cat = await made({ email: 'cat@example.com', data: { plan: 'pro' } });
    const pro = (await createList({ name: 'Pro', type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] } })).body;
    expect((await list({ list_id: news.id })).body.contacts).toEqual([bob, ada]);
    expect((await list({ list_id: news.id, q: 'a' })).body.contacts).toEqual([ada]);
    expect((await list({ list_id: pro.id })).body.contacts).toEqual([cat, ada]);
    expect((await list({ list_id: pro.id, email: 'bob@example.com' })).body.contacts).toEqual([]);
    expect((await list({ list_id: news.id, email: 'bob@example.com' })).body.contacts).toEqual([bob]);
    expect((await list({ list_id: news.id, email: 'cat@example.com' })).body.contacts).toEqual([]);
    const page = await list({ list_id: news.id, limit: '1' });
    expect(page.body.contacts).toEqual([bob]);
    expect((await list({ list_id: news.id, limit: '1', cursor: page.body.next_cursor })).body).toEqual({ contacts: [ada], next_cursor: null });
    expectInvalid(await list({ list_id: pro.id, limit: '1', cursor: page.body.next_cursor }), 'cursor');
    expectError(await list({ list_id: 'lst_01hzzzzzzzzzzzzzzzzzzzzzzz' }), 404, 'not_found');
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await list({ list_id: news.id }, other.admin_key), 404, 'not_found');
    expect((await list({}, other.admin_key)).body.contacts).toEqual([]);
  });
});

describe('GET, PATCH, DELETE /v1/contacts/{id}', () => {
  it("answers 404 for an unknown id, a malformed one and another account's contact", async () => {
    const mine = await made({ email: 'ada@example.com' });
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await get(mine.id, other.admin_key), 404, 'not_found');
    expectError(await get('ctc_01hzzzzzzzzzzzzzzzzzzzzzzz'), 404, 'not_found');
    expectError(await get('nope'), 404, 'not_found');
    expectError(await get('x'.repeat(300)), 404, 'not_found');
    expectError(await update(mine.id, { first_name: 'X' }, other.admin_key), 404, 'not_found');
    expectError(await remove(mine.id, other.admin_key), 404, 'not_found');
    expect((await get(mine.id)).body).toEqual(mine);
  });

  it('changes only the fields sent; data is replaced whole; names may be cleared; unsubscribed may be set', async () => {
    const ada = await made({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro', seats: 2 } });
    const res = await update(ada.id, { last_name: null, data: { plan: 'free' }, unsubscribed: true });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ ...ada, last_name: null, data: { plan: 'free' }, unsubscribed: true, updated_at: expect.any(String) });
    expect(res.body.updated_at > ada.updated_at).toBe(true);
    expect((await update(ada.id, {})).body.data).toEqual({ plan: 'free' });
    expectInvalid(await update(ada.id, { data: { a: { b: 1 } } }), 'body.data.a');
    expectInvalid(await update(ada.id, { list_ids: [] }), 'body');
    expectInvalid(await update(ada.id, { email: 'nobody' }), 'body.email');
    expectError(await update(ada.id, { first_name: 'X' }, bed.readKey), 403, 'forbidden');
  });

  it('moves a contact to a free address and frees the old one; 409 duplicate_contact for a taken one', async () => {
    const ada = await made({ email: 'ada@example.com' });
    await made({ email: 'bob@example.com' });
    expectError(await update(ada.id, { email: 'BOB@example.com' }), 409, 'duplicate_contact');
    const moved = await update(ada.id, { email: ' Countess@Example.com' });
    expect(moved.body.email).toBe('countess@example.com');
    expect((await list({ email: 'countess@example.com' })).body.contacts).toEqual([moved.body]);
    expect((await list({ email: 'ada@example.com' })).body.contacts).toEqual([]);
    expect((await create({ email: 'ada@example.com' })).status).toBe(201);
    expect((await update(ada.id, { email: 'countess@example.com', first_name: 'Ada' })).status).toBe(200);
  });

  it('deletes a contact: out of every list (counts move), its address free, 404 afterwards', async () => {
    const one = await staticList('One');
    const two = await staticList('Two');
    const ada = await made({ email: 'ada@example.com', list_ids: [one.id, two.id] });
    await made({ email: 'bob@example.com', list_ids: [one.id] });
    expectError(await remove(ada.id, bed.readKey), 403, 'forbidden');
    expect((await remove(ada.id)).status).toBe(204);
    expectError(await get(ada.id), 404, 'not_found');
    expectError(await remove(ada.id), 404, 'not_found');
    expect((await getList(one.id)).body.member_count).toBe(1);
    expect((await getList(two.id)).body.member_count).toBe(0);
    expect((await list({ list_id: two.id })).body.contacts).toEqual([]);
    expect(await new ListMemberRepository(bed.c.store).member(bed.account.account_id, one.id, ada.id)).toBeUndefined();
    expect((await create({ email: 'ada@example.com' })).status).toBe(201);
  });

  it('finishes a delete a crash cut short: the marked contact is gone for every read, and a repeated DELETE completes it', async () => {
    const one = await staticList();
    const ada = await made({ email: 'ada@example.com', list_ids: [one.id] });
    const repo = new ContactRepository(bed.c.store);
    await repo.markContactDeleted(bed.account.account_id, ada.id, bed.c.clock.now().toISOString());
    expectError(await get(ada.id), 404, 'not_found');
    expectError(await update(ada.id, { first_name: 'X' }), 404, 'not_found');
    expect((await list()).body.contacts).toEqual([]);
    expect((await list({ email: 'ada@example.com' })).body.contacts).toEqual([]);
    expect((await list({ list_id: one.id })).body.contacts).toEqual([]);
    // A new contact may take the address of one being deleted at once.
    const again = await made({ email: 'ada@example.com' });
    expect((await remove(ada.id)).status).toBe(204);
    expect(await repo.getContact(bed.account.account_id, ada.id)).toBeUndefined();
    expect((await getList(one.id)).body.member_count).toBe(0);
    expect((await list({ email: 'ada@example.com' })).body.contacts).toEqual([again]);
  });
});
