// Staff account listing and lookup: GET /v1/admin/accounts and /v1/admin/accounts/{id}.
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureAccountListed } from '../../shared/accounts/staff';
import { keys } from '../../shared/db/keys';
import { call } from '../support/api';
import type { HttpEventInput } from '../support/events';
import { TEST_SECRETS, type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';

let c: TestContainer;
const staff = TEST_SECRETS['staff-token'];
let ip = 0;
// Staff routes are limited per client IP: each call comes from an address of its own.
const asStaff = (input: Omit<HttpEventInput, 'key' | 'sourceIp'>) => call({ ...input, key: staff, sourceIp: `198.51.100.${++ip % 250}` });
const list = (query: Record<string, string> = {}) => asStaff({ method: 'GET', path: '/v1/admin/accounts', query });

interface Listed {
  account_id: string;
  name: string;
  email: string | null;
  status: string;
  created_at: string;
}

async function createAccount(body: { name?: string; email?: string } = {}): Promise<string> {
  c.clock.advance(1000);
  const res = await asStaff({ method: 'POST', path: '/v1/admin/accounts', body });
  expect(res.status).toBe(201);
  return res.body.account_id as string;
}

/** Every page of a walk, following next_cursor. */
async function walk(query: Record<string, string>): Promise<{ ids: string[]; pages: number }> {
  const ids: string[] = [];
  let pages = 0;
  let cursor: string | undefined;
  do {
    const res = await list({ ...query, ...(cursor ? { cursor } : {}) });
    expect(res.status).toBe(200);
    ids.push(...res.body.accounts.map((a: Listed) => a.account_id));
    cursor = res.body.next_cursor ?? undefined;
    pages++;
  } while (cursor);
  return { ids, pages };
}

const env = useContainer();
beforeAll(() => void (c = env.c));

describe('GET /v1/admin/accounts', () => {
  it('lists accounts newest first, in the project list shape', async () => {
    const first = await createAccount({ name: 'First', email: 'first@example.test' });
    const second = await createAccount({ name: 'Second' });

    const res = await list();

    expect(res.status).toBe(200);
    expect(Object.keys(res.body).sort()).toEqual(['accounts', 'next_cursor']);
    expect(res.body.accounts.slice(0, 2)).toEqual([
      { account_id: second, name: 'Second', email: null, status: 'active', created_at: expect.any(String) },
      { account_id: first, name: 'First', email: 'first@example.test', status: 'active', created_at: expect.any(String) },
    ]);
    expect(Date.parse(res.body.accounts[0].created_at)).toBeGreaterThan(Date.parse(res.body.accounts[1].created_at));
  });

  it('walks every account once, page by page, and ends with a null cursor', async () => {
    for (let i = 0; i < 4; i++) await createAccount({ name: `walk ${i}` });
    const all = (await list({ limit: '100' })).body.accounts.map((a: Listed) => a.account_id);

    const walked = await walk({ limit: '2' });

    expect(walked.ids).toEqual(all);
    expect(new Set(walked.ids).size).toBe(walked.ids.length);
    expect(walked.pages).toBe(Math.ceil(all.length / 2));
  });

  it('refuses a cursor made under other filters, and one that is not a cursor', async () => {
    await createAccount();
    await createAccount();
    const page = await list({ limit: '1' });
    expect(page.body.next_cursor).toEqual(expect.any(String));

    const otherFilter = await list({ status: 'active', cursor: page.body.next_cursor });
    const garbage = await list({ cursor: 'not-a-cursor' });

    expect(otherFilter.status).toBe(400);
    expect(otherFilter.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(/^cursor: filters changed/), status: 400 });
    expect(garbage.status).toBe(400);
    expect(garbage.body.error.code).toBe('invalid_request');
  });

  it('filters by status, and a suspension shows in every list at once', async () => {
    const id = await createAccount({ name: 'To suspend' });
    const listedUnder = async (query: Record<string, string>) => (await walk({ ...query, limit: '100' })).ids.includes(id);

    await asStaff({ method: 'POST', path: `/v1/admin/accounts/${id}/suspend` });
    const suspended = (await list({ status: 'suspended' })).body.accounts as Listed[];
    const inAll = ((await list()).body.accounts as Listed[]).find((a) => a.account_id === id);
    const inActive = await listedUnder({ status: 'active' });

    expect(suspended.find((a) => a.account_id === id)?.status).toBe('suspended');
    expect(suspended.every((a) => a.status === 'suspended')).toBe(true);
    expect(inAll?.status).toBe('suspended');
    expect(inActive).toBe(false);

    await asStaff({ method: 'POST', path: `/v1/admin/accounts/${id}/unsuspend` });

    expect(await listedUnder({ status: 'suspended' })).toBe(false);
    expect(await listedUnder({ status: 'active' })).toBe(true);
  });

  it('finds every account with an address, normalized, newest first', async () => {
    const older = await createAccount({ name: 'Older', email: 'Shared@Example.test' });
    await createAccount({ name: 'Elsewhere', email: 'other@example.test' });
    const newer = await createAccount({ name: 'Newer', email: 'shared@example.test' });

    const res = await list({ email: '  SHARED@example.TEST ' });

    expect(res.status).toBe(200);
    expect(res.body.accounts.map((a: Listed) => [a.account_id, a.email])).toEqual([
      [newer, 'shared@example.test'],
      [older, 'shared@example.test'],
    ]);
    expect(res.body.next_cursor).toBeNull();
  });

  it('pages through the accounts of one address and combines it with a status', async () => {
    const ids = [];
    for (let i = 0; i < 3; i++) ids.push(await createAccount({ email: 'many@example.test' }));
    await asStaff({ method: 'POST', path: `/v1/admin/accounts/${ids[1]}/suspend` });

    const walked = await walk({ email: 'many@example.test', limit: '2' });
    const suspended = await list({ email: 'many@example.test', status: 'suspended' });

    expect(walked).toEqual({ ids: [...ids].reverse(), pages: 2 });
    expect(suspended.body.accounts.map((a: Listed) => a.account_id)).toEqual([ids[1]]);
  });

  it('answers an empty page for an address no account has', async () => {
    for (const email of ['nobody@example.test', 'not an address']) {
      const res = await list({ email });

      expect(res.status).toBe(200);
      expect(res.body).toEqual({ accounts: [], next_cursor: null });
    }
  });

  it('passes over an address entry whose account was never written (a crash between the two writes)', async () => {
    const real = await createAccount({ email: 'crash@example.test' });
    const now = c.clock.now().toISOString();
    // Written raw on purpose: the half of an account creation a crash leaves.
    await c.store.put({ ...keys.accountEmail('crash@example.test', now, 'acct_neverwritten'), entity: 'account_email', account_id: 'acct_neverwritten' });

    const res = await list({ email: 'crash@example.test' });

    expect(res.body.accounts.map((a: Listed) => a.account_id)).toEqual([real]);
  });

  it.each([
    ['an unknown status', { status: 'deleted' }, /^query\.status: /],
    ['an empty email', { email: '  ' }, /^query\.email: /],
    ['an unknown parameter', { sort: 'name' }, /^query: /],
  ])('answers 400 for %s', async (_label, query, message) => {
    const res = await list(query);

    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: expect.stringMatching(message), status: 400 });
  });
});

describe('GET /v1/admin/accounts/{id}', () => {
  it('answers one account as the list shows it', async () => {
    const id = await createAccount({ name: 'Lookup', email: 'Lookup@Example.test' });

    const res = await asStaff({ method: 'GET', path: `/v1/admin/accounts/${id}` });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account_id: id, name: 'Lookup', email: 'lookup@example.test', status: 'active', created_at: c.clock.now().toISOString() });
  });

  it.each([['an unknown id', 'acct_nobody'], ['an id longer than any issued', `acct_${'x'.repeat(200)}`]])('answers 404 for %s', async (_label, id) => {
    const res = await asStaff({ method: 'GET', path: `/v1/admin/accounts/${id}` });

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });
});

describe('accounts from before the list', () => {
  /** An account item as it was written before the staff list existed: no index entries, no address entry (raw: no repository writes this shape now). */
  async function legacyAccount(id: string, email: string): Promise<void> {
    const at = c.clock.now().toISOString();
    await c.store.put({
      ...keys.account(id),
      entity: 'account',
      id,
      name: 'Legacy',
      email,
      status: 'active',
      enabled_channels: ['email'],
      created_at: at,
      updated_at: at,
    });
  }
  const listedIds = async (query: Record<string, string>) => (await walk({ ...query, limit: '100' })).ids;

  it('are read by id but listed only once ensureAccountListed has given them their entries', async () => {
    await legacyAccount('acct_legacyone', 'legacy@example.test');

    const byId = await asStaff({ method: 'GET', path: '/v1/admin/accounts/acct_legacyone' });
    const before = await listedIds({});
    await ensureAccountListed(c.store, 'acct_legacyone');
    await ensureAccountListed(c.store, 'acct_legacyone'); // again: nothing changes

    expect(byId.status).toBe(200);
    expect(before).not.toContain('acct_legacyone');
    expect((await listedIds({}))[0]).toBe('acct_legacyone');
    expect(await listedIds({ status: 'active' })).toContain('acct_legacyone');
    expect(await listedIds({ email: 'legacy@example.test' })).toEqual(['acct_legacyone']);
  });

  it('keep a status set before they were listed', async () => {
    await legacyAccount('acct_legacytwo', 'legacy2@example.test');
    await asStaff({ method: 'POST', path: '/v1/admin/accounts/acct_legacytwo/suspend' });

    await ensureAccountListed(c.store, 'acct_legacytwo');

    expect(await listedIds({ status: 'suspended' })).toContain('acct_legacytwo');
    expect(await listedIds({ status: 'active' })).not.toContain('acct_legacytwo');
  });

  it('leave an unknown id alone', async () => {
    await ensureAccountListed(c.store, 'acct_nobodyatall');

    expect((await asStaff({ method: 'GET', path: '/v1/admin/accounts/acct_nobodyatall' })).status).toBe(404);
  });
});

describe('staff access', () => {
  it.each([
    ['no token', undefined],
    ['a wrong token', 'st_wrong'],
    ['an API key instead of the staff token', 'sk_live_' + 'A'.repeat(40)],
  ])('answers 401 for %s on both routes', async (_label, token) => {
    const id = await createAccount();
    for (const path of ['/v1/admin/accounts', `/v1/admin/accounts/${id}`]) {
      const res = await call({ method: 'GET', path, key: token, sourceIp: `198.51.100.${++ip % 250}` });

      expect(res.status).toBe(401);
      expect(res.body.error.code).toBe('unauthorized');
    }
  });

  it("answers 401 to a real account's admin key", async () => {
    const created = await asStaff({ method: 'POST', path: '/v1/admin/accounts', body: {} });

    const res = await call({ method: 'GET', path: '/v1/admin/accounts', key: created.body.admin_key, sourceIp: '198.51.100.251' });

    expect(res.status).toBe(401);
  });
});
