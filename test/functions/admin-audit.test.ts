// The staff audit log (GET /v1/admin/audit) and the staff token staying out of answers: every
// staff action is recorded with who, what, target, when, request id and source IP; an action
// whose record cannot be written does not happen; only staff read the log.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/db/keys';
import { expectError } from '../support/errors';
import { linkTokenIn, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';
import { TEST_SECRETS } from '../support/container';

const bed = useTestbed();
const request = bed.request;
const TOKEN = TEST_SECRETS['staff-token'];
const asToken = { key: TOKEN, sourceIp: '192.0.2.44' };

afterEach(() => vi.restoreAllMocks());

/** A signed-up, verified person made staff by the token, signed in again (a role change ends sessions). */
async function staffSession(): Promise<TestSession> {
  const s = await signUp(request);
  const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
  expect((await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
  expect((await request({ method: 'POST', path: '/v1/admin/users/role', body: { email: s.email, role: 'staff' }, ...asToken })).status).toBe(200);
  return sessionFrom(request, await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } }), s);
}

const auditPage = async (query: Record<string, string> = {}) => {
  const res = await request({ method: 'GET', path: '/v1/admin/audit', query, ...asToken });
  expect(res.status).toBe(200);
  return res.body as { entries: any[]; next_cursor: string | null };
};

/** The log entry a request wrote, found by the request id it was answered with. */
async function entryOf(res: { headers: Record<string, string> }): Promise<any> {
  const requestId = res.headers['x-request-id'];
  const found = (await auditPage({ limit: '100' })).entries.find((e) => e.request_id === requestId);
  expect(found, `an audit entry for ${requestId}`).toBeDefined();
  return found;
}

describe('POST /v1/admin/accounts never answers the staff token', () => {
  it('gives a staff session the account and its keys, and no staff_token', async () => {
    const staff = await staffSession();
    const res = await request(withSession(staff, { method: 'POST', path: '/v1/admin/accounts', body: { name: 'By a session' } }));

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ account_id: expect.stringMatching(/^acct_/), admin_key: expect.stringMatching(/^sk_live_/), test_admin_key: expect.stringMatching(/^sk_test_/) });
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('does not echo it to the token either', async () => {
    const res = await request({ method: 'POST', path: '/v1/admin/accounts', body: {}, ...asToken });

    expect(res.status).toBe(201);
    expect(res.body).not.toHaveProperty('staff_token');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
  });
});

describe('the staff audit log', () => {
  it('records an account creation by the token: actor, action, the new account, detail, request id, source IP', async () => {
    const res = await request({ method: 'POST', path: '/v1/admin/accounts', body: { name: 'Audited', email: 'audited@example.com' }, ...asToken });

    expect(res.status).toBe(201);
    expect(await entryOf(res)).toEqual({
      request_id: res.headers['x-request-id'],
      created_at: expect.any(String),
      actor: { type: 'staff_token', user_id: null },
      action: 'account.create',
      target: { type: 'account', id: res.body.account_id },
      detail: { name: 'Audited', email: 'audited@example.com' },
      outcome: 'succeeded',
      error_code: null,
      source_ip: '192.0.2.44',
    });
  });

  it('records every action of a staff session under its user id: create, suspend, unsuspend, a role change', async () => {
    const staff = await staffSession();
    const as = (input: Parameters<typeof request>[0]) => request(withSession(staff, { ...input, sourceIp: '2001:db8::7' }));

    const created = await as({ method: 'POST', path: '/v1/admin/accounts', body: {} });
    const accountId = created.body.account_id as string;
    const suspended = await as({ method: 'POST', path: `/v1/admin/accounts/${accountId}/suspend` });
    const unsuspended = await as({ method: 'POST', path: `/v1/admin/accounts/${accountId}/unsuspend` });
    const other = await signUp(request);
    const promoted = await as({ method: 'POST', path: '/v1/admin/users/role', body: { email: other.email, role: 'owner' } });
    expect([created.status, suspended.status, unsuspended.status, promoted.status]).toEqual([201, 200, 200, 200]);

    const actor = { type: 'staff_session', user_id: staff.userId };
    expect(await entryOf(created)).toMatchObject({ actor, action: 'account.create', target: { type: 'account', id: accountId }, outcome: 'succeeded', source_ip: '2001:db8::7' });
    expect(await entryOf(suspended)).toMatchObject({ actor, action: 'account.suspend', target: { type: 'account', id: accountId }, outcome: 'succeeded' });
    expect(await entryOf(unsuspended)).toMatchObject({ actor, action: 'account.unsuspend', target: { type: 'account', id: accountId }, outcome: 'succeeded' });
    expect(await entryOf(promoted)).toMatchObject({ actor, action: 'user.set_role', target: { type: 'user', id: other.userId }, detail: { email: other.email, role: 'owner' }, outcome: 'succeeded' });
  });

  it('lists newest first', async () => {
    const first = await request({ method: 'POST', path: '/v1/admin/accounts', body: { name: 'older' }, ...asToken });
    const second = await request({ method: 'POST', path: '/v1/admin/accounts', body: { name: 'newer' }, ...asToken });

    const { entries } = await auditPage({ limit: '2' });

    expect(entries.map((e) => e.request_id)).toEqual([second.headers['x-request-id'], first.headers['x-request-id']]);
    expect(Date.parse(entries[0].created_at)).toBeGreaterThan(Date.parse(entries[1].created_at));
  });

  it('records a refused action as failed, with the code it answered', async () => {
    const res = await request({ method: 'POST', path: '/v1/admin/accounts/acct_missing/suspend', ...asToken });

    expectError(res, 404, 'not_found');
    expect(await entryOf(res)).toMatchObject({ action: 'account.suspend', target: { type: 'account', id: 'acct_missing' }, outcome: 'failed', error_code: 'not_found' });
  });

  it('does not act when the record cannot be written: the request fails and the account stays active', async () => {
    const send = bed.c.store.doc.send.bind(bed.c.store.doc);
    vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { input: { Item?: { entity?: string } } }) =>
      command.input.Item?.entity === 'staff_audit' ? Promise.reject(new Error('connection reset')) : send(command as never)) as never);

    const res = await request({ method: 'POST', path: `/v1/admin/accounts/${bed.account.account_id}/suspend`, ...asToken });
    vi.restoreAllMocks();

    expect(res.status).toBeGreaterThanOrEqual(500);
    expect((await request({ method: 'GET', path: `/v1/admin/accounts/${bed.account.account_id}`, ...asToken })).body.status).toBe('active');
    expect((await request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key })).status).toBe(200);
  });

  it('keeps the action and logs the entry at error when only the outcome cannot be written; the entry stays pending', async () => {
    const send = bed.c.store.doc.send.bind(bed.c.store.doc);
    vi.spyOn(bed.c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: { Key?: { pk?: string } } }) =>
      command.constructor.name === 'UpdateCommand' && command.input.Key?.pk === keys.staffAuditPartition ? Promise.reject(new Error('connection reset')) : send(command as never)) as never);
    const errors = vi.spyOn(bed.c.logger, 'error');

    const res = await request({ method: 'POST', path: `/v1/admin/accounts/${bed.account.account_id}/suspend`, ...asToken });
    vi.restoreAllMocks();

    expect(res.status).toBe(200);
    expect(await entryOf(res)).toMatchObject({ action: 'account.suspend', outcome: 'pending' });
    expect(errors).toHaveBeenCalledWith(expect.stringMatching(/audit/), expect.objectContaining({ entry: expect.objectContaining({ outcome: 'succeeded' }) }));
  });

  it('walks every entry once, page by page, newest first', async () => {
    for (let i = 0; i < 5; i++) await request({ method: 'POST', path: `/v1/admin/accounts/${bed.account.account_id}/unsuspend`, ...asToken });
    const all = (await auditPage({ limit: '100' })).entries.map((e) => e.request_id);
    const walked: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await auditPage({ limit: '2', ...(cursor ? { cursor } : {}) });
      expect(page.entries.length).toBeLessThanOrEqual(2);
      walked.push(...page.entries.map((e) => e.request_id));
      cursor = page.next_cursor;
    } while (cursor);

    expect(walked).toEqual(all);
    expect(new Set(walked).size).toBe(walked.length);
  });

  it('refuses a cursor from another list (400) and an unknown query parameter (400)', async () => {
    const accounts = await request({ method: 'GET', path: '/v1/admin/accounts', query: { limit: '1' }, ...asToken });
    expect(accounts.body.next_cursor).toEqual(expect.any(String));
    expectError(await request({ method: 'GET', path: '/v1/admin/audit', query: { cursor: accounts.body.next_cursor }, ...asToken }), 400, 'invalid_request');
    expectError(await request({ method: 'GET', path: '/v1/admin/audit', query: { status: 'x' }, ...asToken }), 400, 'invalid_request');
  });

  it('is for staff only: no token 401, a wrong token 401, an admin key 401, an owner\'s session 403', async () => {
    const path = '/v1/admin/audit';
    expectError(await request({ method: 'GET', path }), 401, 'unauthorized');
    expectError(await request({ method: 'GET', path, key: 'st_wrong' }), 401, 'unauthorized');
    expectError(await request({ method: 'GET', path, key: bed.account.admin_key }), 401, 'unauthorized');
    const owner = await signUp(request);
    expectError(await request(withSession(owner, { method: 'GET', path })), 403, 'forbidden');
    const staff = await staffSession();
    expect((await request(withSession(staff, { method: 'GET', path }))).status).toBe(200);
  });
});
