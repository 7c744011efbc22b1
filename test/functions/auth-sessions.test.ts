// A session in the pipeline: it authenticates key routes as the account's admin, needs its CSRF
// token on every state-changing request, yields to an Authorization header, meets suspension and
// the staff routes, and an unverified owner's account stays in sandbox without live keys.
import { describe, expect, it } from 'vitest';
import { giveVerifiedDomain } from '../support/domains';
import type { ParsedResult } from '../support/events';
import { codeIn, linkTokenIn, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
let n = 0;
const sendBody = (to: string, over: Record<string, unknown> = {}) => ({
  channel: 'email',
  idempotency_key: `session-send-${++n}`,
  destination: { email: to },
  payload: { subject: 'Hello', body_text: 'Hi' },
  ...over,
});
const request = bed.request;

function expectError(res: ParsedResult, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { code, message: expect.any(String), status } });
}

async function verified(): Promise<TestSession> {
  const s = await signUp(request);
  const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
  expect((await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
  return s;
}

describe('a session on key routes', () => {
  it('acts as the account\'s admin: reads, and writes with the CSRF token, with the account rate-limit headers', async () => {
    const s = await signUp(request);
    const list = await request(withSession(s, { method: 'GET', path: '/v1/keys' }));
    expect(list.status).toBe(200);
    expect(list.headers['x-ratelimit-limit']).toBe('10');

    const created = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: true, name: 'console' } }));
    expect(created.status).toBe(201);
    expect(created.body.key).toMatch(/^sk_test_/);
    const usage = await request(withSession(s, { method: 'GET', path: '/v1/usage' }));
    expect(usage.status).toBe(200);
  });

  it('refuses a state-changing request without the CSRF token, or with another session\'s, with 403 forbidden', async () => {
    const s = await signUp(request);
    const other = await signUp(request);
    const missing = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: true } }, { csrf: false }));
    expectError(missing, 403, 'forbidden');
    expect(missing.body.error.message).toContain('X-CSRF-Token');
    expectError(await request(withSession({ cookie: s.cookie, csrf: other.csrf }, { method: 'POST', path: '/v1/keys', body: { test_mode: true } })), 403, 'forbidden');
    expectError(await request(withSession(s, { method: 'DELETE', path: '/v1/keys/key_x' }, { csrf: false })), 403, 'forbidden');
    // Reads need none.
    expect((await request(withSession(s, { method: 'GET', path: '/v1/keys' }, { csrf: false }))).status).toBe(200);
    const keysNow = await request(withSession(s, { method: 'GET', path: '/v1/keys' }));
    expect(keysNow.body.keys).toEqual([]);
  });

  it('answers 401 for an unknown or ended session on a key route', async () => {
    expectError(await request({ method: 'GET', path: '/v1/keys', cookies: [`__Host-postbox_session=${'Z'.repeat(43)}`] }), 401, 'unauthorized');
    expectError(await request({ method: 'GET', path: '/v1/keys', cookies: ['__Host-postbox_session=garbage'] }), 401, 'unauthorized');
  });

  it('yields to an Authorization header: the key decides, and API-key requests need no CSRF token', async () => {
    const s = await signUp(request);
    const withKey = await request({ ...withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: true } }, { csrf: false }), key: bed.account.admin_key });
    expect(withKey.status).toBe(201);
    // The key's account, not the session's.
    const listed = await request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key });
    expect(listed.body.keys.map((k: { id: string }) => k.id)).toContain(withKey.body.id);
    expectError(await request({ ...withSession(s, { method: 'GET', path: '/v1/keys' }), key: 'sk_live_wrong' }), 401, 'unauthorized');
  });

  it('sees only its own account: another account\'s ids are 404', async () => {
    const s = await signUp(request);
    const otherKey = (await request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key })).body.keys[0].id;
    expectError(await request(withSession(s, { method: 'POST', path: `/v1/keys/${otherKey}/rotate` })), 404, 'not_found');
  });

  it('answers 403 account_suspended once the account is suspended', async () => {
    const s = await signUp(request);
    const staff = { key: 'st_test_staff_token_value' };
    expect((await request({ method: 'POST', path: `/v1/admin/accounts/${s.accountId}/suspend`, ...staff })).status).toBe(200);
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/keys' })), 403, 'account_suspended');
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 403, 'account_suspended');
  });

  it('refuses a suspended account\'s sign-in once the password checks out (a wrong one still gets 401), and starts no session', async () => {
    const s = await signUp(request);
    expect((await request({ method: 'POST', path: `/v1/admin/accounts/${s.accountId}/suspend`, key: 'st_test_staff_token_value' })).status).toBe(200);
    expectError(await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: 'not the password at all' } }), 401, 'unauthorized');
    const refused = await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } });
    expectError(refused, 403, 'account_suspended');
    expect(refused.cookies).toEqual([]);

    expect((await request({ method: 'POST', path: '/v1/auth/login-code', body: { email: s.email } })).status).toBe(202);
    const code = codeIn(bed.c.mailed.at(-1)?.text);
    const byCode = await request({ method: 'POST', path: '/v1/auth/login-code', body: { email: s.email, code } });
    expectError(byCode, 403, 'account_suspended');
    expect(byCode.cookies).toEqual([]);

    expect((await request({ method: 'POST', path: `/v1/admin/accounts/${s.accountId}/unsuspend`, key: 'st_test_staff_token_value' })).status).toBe(200);
    expect((await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } })).status).toBe(200);
  });
});

describe('an unverified owner', () => {
  it('may sign in and create test keys, but no live key until the address is verified', async () => {
    const s = await signUp(request);
    const live = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: false } }));
    expectError(live, 403, 'forbidden');
    expect(live.body.error.message).toContain('verify your email address first');

    const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
    await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } });
    const after = await request(withSession(s, { method: 'POST', path: '/v1/keys', body: { test_mode: false } }));
    expect(after.status).toBe(201);
    expect(after.body.key).toMatch(/^sk_live_/);
  });

  it('keeps the account in sandbox mode even with a verified domain', async () => {
    const s = await signUp(request);
    await giveVerifiedDomain(bed.c, s.accountId);
    const before = await request(withSession(s, { method: 'GET', path: '/v1/account/verification' }));
    expect(before.body.sandbox_mode).toBe(true);
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).body.sandbox).toBe(true);
    const send = await request(withSession(s, { method: 'POST', path: '/v1/send', body: sendBody('someone@example.org', { metadata: { from_email: 'hello@acme.test' } }) }));
    expectError(send, 422, 'no_verified_domain');

    const token = linkTokenIn(bed.c.mailed.at(-1)?.text, 'verify-email');
    await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } });
    const after = await request(withSession(s, { method: 'GET', path: '/v1/account/verification' }));
    expect(after.body.sandbox_mode).toBe(false);
  });

  it('leaves accounts made by staff unaffected', async () => {
    const live = await request({ method: 'POST', path: '/v1/keys', key: bed.account.admin_key, body: { test_mode: false } });
    expect(live.status).toBe(201);
  });
});

describe('a session sends as a live admin key would', () => {
  it('sends to the account\'s own address in sandbox mode and is refused elsewhere', async () => {
    const s = await verified();
    const own = await request(withSession(s, { method: 'POST', path: '/v1/send', body: sendBody(s.email) }));
    expect(own.status).toBe(201);
    const stranger = await request(withSession(s, { method: 'POST', path: '/v1/send', body: sendBody('stranger@example.org') }));
    expectError(stranger, 403, 'recipient_not_verified');
  });
});

describe('staff sessions', () => {
  it('reach /v1/admin for a user with the staff role; an owner\'s session is 403 there', async () => {
    const s = await verified();
    expectError(await request(withSession(s, { method: 'POST', path: '/v1/admin/accounts', body: {} })), 403, 'forbidden');

    expect((await request({ method: 'POST', path: '/v1/admin/users/role', body: { email: s.email, role: 'staff' }, key: 'st_test_staff_token_value' })).status).toBe(200);
    const login = await request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } });
    const staff = await sessionFrom(request, login, s);
    expect(login.body.user.role).toBe('staff');

    const created = await request(withSession(staff, { method: 'POST', path: '/v1/admin/accounts', body: {} }));
    expect(created.status).toBe(201);
    expectError(await request(withSession(staff, { method: 'POST', path: '/v1/admin/accounts', body: {} }, { csrf: false })), 403, 'forbidden');
    // The staff token keeps working.
    expect((await request({ method: 'POST', path: '/v1/admin/accounts', body: {}, key: 'st_test_staff_token_value' })).status).toBe(201);
  });
});
