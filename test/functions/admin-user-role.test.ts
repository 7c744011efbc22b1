// POST /v1/admin/users/role: staff make a signed-up person staff (their next session reaches
// /v1/admin) or an owner again. Only a verified address may be made staff, a change ends the
// user's sessions, and only staff may call it.
import { describe, expect, it } from 'vitest';
import { expectError } from '../support/errors';
import { linkTokenIn, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
const request = bed.request;
const STAFF = { key: 'st_test_staff_token_value' };
const setRole = (email: string, role: string, as: Record<string, unknown> = STAFF) =>
  request({ method: 'POST', path: '/v1/admin/users/role', body: { email, role }, ...as });

async function verified(): Promise<TestSession> {
  const s = await signUp(request);
  const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
  expect((await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
  return s;
}

const signIn = async (s: TestSession): Promise<TestSession> =>
  sessionFrom(request, await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } }), s);

describe('POST /v1/admin/users/role', () => {
  it('makes a verified user staff: their old session ends, the next one reaches /v1/admin', async () => {
    const s = await verified();
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/admin/accounts' })), 403, 'forbidden');

    const res = await setRole(`  ${s.email.toUpperCase()} `, 'staff');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user_id: s.userId, email: s.email, role: 'staff', account_id: s.accountId });

    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
    const staff = await signIn(s);
    const list = await request(withSession(staff, { method: 'GET', path: '/v1/admin/accounts', query: { email: s.email } }));
    expect(list.status).toBe(200);
    expect(list.body.accounts.map((a: { account_id: string }) => a.account_id)).toEqual([s.accountId]);
  });

  it('lets a staff session make another user staff and back; an owner again loses /v1/admin at once', async () => {
    const ops = await verified();
    expect((await setRole(ops.email, 'staff')).status).toBe(200);
    const staff = await signIn(ops);
    const other = await verified();
    expect((await request(withSession(staff, { method: 'POST', path: '/v1/admin/users/role', body: { email: other.email, role: 'staff' } }))).status).toBe(200);
    const otherStaff = await signIn(other);
    expect((await request(withSession(otherStaff, { method: 'GET', path: '/v1/admin/accounts' }))).status).toBe(200);

    expect((await setRole(other.email, 'owner')).body.role).toBe('owner');
    expectError(await request(withSession(otherStaff, { method: 'GET', path: '/v1/admin/accounts' })), 401, 'unauthorized');
    expectError(await request(withSession(await signIn(other), { method: 'GET', path: '/v1/admin/accounts' })), 403, 'forbidden');
  });

  it('changes nothing and keeps the session when the role is already the one asked for', async () => {
    const s = await verified();
    expect((await setRole(s.email, 'owner')).body.role).toBe('owner');
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).status).toBe(200);
  });

  it('refuses to make an unverified address staff (409 conflict), and keeps its role', async () => {
    const s = await signUp(request);
    expectError(await setRole(s.email, 'staff'), 409, 'conflict', /verified/);
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).body.user.role).toBe('owner');
  });

  it('answers 404 for an address no user signs in with, and 400 for a bad body', async () => {
    expectError(await setRole('nobody@example.com', 'staff'), 404, 'not_found');
    expectError(await setRole('not-an-address', 'staff'), 400, 'invalid_request');
    expectError(await setRole('ops@example.com', 'root'), 400, 'invalid_request');
    expectError(await request({ method: 'POST', path: '/v1/admin/users/role', body: { email: 'ops@example.com', role: 'staff', extra: 1 }, ...STAFF }), 400, 'invalid_request');
    expectError(await request({ method: 'POST', path: '/v1/admin/users/role', ...STAFF }), 400, 'invalid_request');
  });

  it('is for staff only: no token, a wrong token, an admin key, an owner\'s session, a staff session without its CSRF token', async () => {
    const s = await verified();
    expectError(await setRole(s.email, 'staff', {}), 401, 'unauthorized');
    expectError(await setRole(s.email, 'staff', { key: 'st_wrong' }), 401, 'unauthorized');
    expectError(await setRole(s.email, 'staff', { key: bed.account.admin_key }), 401, 'unauthorized');
    expectError(await request(withSession(s, { method: 'POST', path: '/v1/admin/users/role', body: { email: s.email, role: 'staff' } })), 403, 'forbidden');
    expect((await setRole(s.email, 'staff')).status).toBe(200);
    const staff = await signIn(s);
    expectError(await request(withSession(staff, { method: 'POST', path: '/v1/admin/users/role', body: { email: s.email, role: 'owner' } }, { csrf: false })), 403, 'forbidden');
  });
});
