// The auth routes through the pipeline: sign-up, verification, sign-in by password and by code,
// password reset, sign-out and the session view, with every failure case.
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { PermanentSendError } from '../../shared/ports/mailer';
import type { HttpEventInput, ParsedResult } from '../support/events';
import { codeIn, linkTokenIn, sessionCookieOf, sessionFrom, signUp, withSession, type TestSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
let ipCounter = 0;
/** Each test signs in from its own address, so the per-IP budget is what a test measures only where it means to. */
const nextIp = () => `203.0.113.${++ipCounter % 250}`;
let ip = nextIp();
const request = (input: HttpEventInput) => bed.request({ sourceIp: ip, ...input });
let emailCounter = 0;
const freshEmail = () => `person${++emailCounter}@example.com`;
const PASSWORD = 'a long and unusual passphrase';

const post = (path: string, body?: unknown) => request({ method: 'POST', path, body });
const login = (email: string, password = PASSWORD) => post('/v1/auth/login', { email, password });
const lastMail = () => bed.c.mailed.at(-1);

function expectError(res: ParsedResult, status: number, code: string): void {
  expect(res.status).toBe(status);
  expect(res.body).toEqual({ error: { code, message: expect.any(String), status } });
}

describe('POST /v1/auth/signup', () => {
  it('creates the account and its owner, signs them in (cookie flags) and mails the verification link', async () => {
    ip = nextIp();
    const email = freshEmail();
    const res = await post('/v1/auth/signup', { email: ` ${email.toUpperCase()} `, password: PASSWORD, name: 'Ada' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ account_id: expect.stringMatching(/^acct_/) });
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.cookies).toHaveLength(1);
    expect(res.cookies[0]).toMatch(/^__Host-postbox_session=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=1209600$/);
    expect(lastMail()).toMatchObject({ to: email, from: 'onboarding@sandbox.test', subject: 'Confirm your email address' });
    expect(lastMail()?.text).toMatch(/http:\/\/api\.test\/#\/verify-email\/[0-9A-Za-z]{40}/);

    const s = await sessionFrom(request, res, { email, password: PASSWORD });
    const view = await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }));
    expect(view.body).toEqual({
      user: { id: expect.stringMatching(/^usr_/), email, name: 'Ada', email_verified: false, role: 'owner' },
      account_id: res.body.account_id,
      account_name: 'Ada',
      sandbox: true,
      csrf_token: s.csrf,
      expires_at: expect.any(String),
    });
  });

  it('creates no API key at all', async () => {
    const s = await signUp(request);
    const list = await request(withSession(s, { method: 'GET', path: '/v1/keys' }));
    expect(list.status).toBe(200);
    expect(list.body.keys).toEqual([]);
  });

  it('answers 409 conflict for an address that signed up already, whatever its case', async () => {
    const email = freshEmail();
    await signUp(request, { email });
    expectError(await post('/v1/auth/signup', { email: email.toUpperCase(), password: 'another long passphrase' }), 409, 'conflict');
  });

  it.each([
    [{}, 'body.email'],
    [{ email: 'not-an-address', password: PASSWORD }, 'body.email'],
    [{ email: 'a@example.com', password: 'short' }, 'at least 10'],
    [{ email: 'a@example.com', password: 'x'.repeat(257) }, 'at most 256'],
    [{ email: 'a@example.com', password: 'password1234' }, 'common or breached'],
    [{ email: 'sam.smith@example.com', password: 'sam.smith@example.com' }, 'email address'],
    [{ email: 'a@example.com', password: PASSWORD, extra: true }, 'body'],
    [{ email: 'a@example.com', password: 1234567890 }, 'body.password'],
  ])('refuses %j with 400 invalid_request', async (body, mention) => {
    const res = await post('/v1/auth/signup', body);
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.message).toContain(mention);
    expect(res.cookies).toEqual([]);
  });

  it('writes nothing when the verification mail cannot be sent (503), so the address can sign up again', async () => {
    const email = freshEmail();
    bed.c.mailerFailure = new PermanentSendError('refused');
    expectError(await post('/v1/auth/signup', { email, password: PASSWORD }), 503, 'service_unavailable');
    expect(await bed.c.store.get(keys.userEmail(email))).toBeUndefined();
    bed.c.mailerFailure = undefined;
    expect((await post('/v1/auth/signup', { email, password: PASSWORD })).status).toBe(201);
  });
});

describe('POST /v1/auth/verify-email', () => {
  it('verifies the address once; the account leaves the owner-unverified sandbox', async () => {
    const s = await signUp(request);
    const token = linkTokenIn(lastMail()?.text, 'verify-email');

    const res = await post('/v1/auth/verify-email', { token });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ account_id: s.accountId, email_verified: true });
    const view = await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }));
    expect(view.body.user.email_verified).toBe(true);
    expectError(await post('/v1/auth/verify-email', { token }), 400, 'invalid_token');
  });

  it('refuses an expired token (24 hours), an unknown and a malformed one with 400 invalid_token', async () => {
    await signUp(request);
    const token = linkTokenIn(lastMail()?.text, 'verify-email');
    bed.c.clock.advance(24 * 3600_000);
    expectError(await post('/v1/auth/verify-email', { token }), 400, 'invalid_token');
    expectError(await post('/v1/auth/verify-email', { token: '0123456789abcdefghijABCDEFGHIJ0123456789' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/verify-email', { token: 'not a token' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/verify-email', {}), 400, 'invalid_request');
  });

  it('does not take a password-reset token', async () => {
    const s = await signUp(request);
    await post('/v1/auth/password-reset', { email: s.email });
    const reset = linkTokenIn(lastMail()?.text, 'reset-password');
    expectError(await post('/v1/auth/verify-email', { token: reset }), 400, 'invalid_token');
  });
});

describe('POST /v1/auth/login', () => {
  it('signs in with the right password: the session view and a fresh cookie', async () => {
    ip = nextIp();
    const s = await signUp(request);
    const res = await login(s.email.toUpperCase());

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const cookie = sessionCookieOf(res);
    expect(cookie).toBeDefined();
    expect(cookie).not.toBe(s.cookie);
    expect(res.body).toMatchObject({ user: { id: s.userId, email: s.email, role: 'owner' }, account_id: s.accountId, sandbox: true, csrf_token: expect.any(String) });
  });

  it('answers an unknown address and a wrong password with the same 401', async () => {
    ip = nextIp();
    const s = await signUp(request);
    const unknown = await login(freshEmail());
    const wrong = await login(s.email, 'not the right passphrase');

    expectError(unknown, 401, 'unauthorized');
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.cookies).toEqual([]);
  });

  it('does the same store work for an unknown address as for a wrong password (the same reads, the same failure count)', async () => {
    ip = nextIp();
    const s = await signUp(request);
    /** The store calls of one login, each as its method and the key's entity prefix. */
    const storeCallsOf = async (email: string, password: string): Promise<string[]> => {
      const store = bed.c.store as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
      const calls: string[] = [];
      const originals = new Map<string, (...args: unknown[]) => Promise<unknown>>();
      for (const method of ['get', 'batchGet', 'query', 'put', 'create', 'update', 'delete', 'take']) {
        const original = store[method];
        if (typeof original !== 'function') continue;
        originals.set(method, original);
        store[method] = (...args: unknown[]) => {
          const key = args[0] as { pk?: string } | undefined;
          calls.push(`${method} ${String(key?.pk ?? '').split('#')[0]}`);
          return original.apply(store, args);
        };
      }
      try {
        expectError(await login(email, password), 401, 'unauthorized');
      } finally {
        for (const [method, original] of originals) store[method] = original;
      }
      return calls;
    };
    const unknown = await storeCallsOf(freshEmail(), 'not the right passphrase');
    const wrong = await storeCallsOf(s.email, 'not the right passphrase');
    expect(wrong).toEqual(unknown);
    expect(unknown.length).toBeGreaterThan(0);
  });

  it('throttles failures per address: the 6th attempt in 15 minutes is 429 with Retry-After, even with the right password', async () => {
    const s = await signUp(request);
    for (let i = 0; i < 5; i++) {
      ip = nextIp();
      expectError(await login(s.email, `wrong passphrase ${i}`), 401, 'unauthorized');
    }
    ip = nextIp();
    const refused = await login(s.email);
    expectError(refused, 429, 'rate_limit_exceeded');
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);

    bed.c.clock.advance(15 * 60_000);
    expect((await login(s.email)).status).toBe(200);
  });

  it('throttles failures per IP (30 in 15 minutes), and a success does not reset the count', async () => {
    ip = nextIp();
    const s = await signUp(request);
    for (let i = 0; i < 29; i++) expectError(await login(`stranger${i}@example.org`, 'whatever it is'), 401, 'unauthorized');
    expect((await login(s.email)).status).toBe(200);
    expectError(await login('one-more@example.org', 'whatever it is'), 401, 'unauthorized');
    expectError(await login(s.email), 429, 'rate_limit_exceeded');
  });

  it('refuses a malformed body with 400', async () => {
    expectError(await post('/v1/auth/login', { email: 'a@example.com' }), 400, 'invalid_request');
    expectError(await post('/v1/auth/login', { email: 'nope', password: 'x' }), 400, 'invalid_request');
  });
});

describe('POST /v1/auth/login-code', () => {
  it('answers 202 {} for any address and mails a six-digit code only to a user', async () => {
    const s = await signUp(request);
    const before = bed.c.mailed.length;
    const unknown = await post('/v1/auth/login-code', { email: freshEmail() });
    expect(unknown.status).toBe(202);
    expect(unknown.body).toEqual({});
    expect(bed.c.mailed).toHaveLength(before);

    const known = await post('/v1/auth/login-code', { email: s.email });
    expect(known.status).toBe(202);
    expect(known.body).toEqual({});
    expect(bed.c.mailed).toHaveLength(before + 1);
    expect(lastMail()?.to).toBe(s.email);
  });

  it('signs in with the code once, which also verifies the address', async () => {
    ip = nextIp();
    const s = await signUp(request);
    await post('/v1/auth/login-code', { email: s.email });
    const code = codeIn(lastMail()?.text);

    const res = await post('/v1/auth/login-code', { email: s.email, code });
    expect(res.status).toBe(200);
    expect(sessionCookieOf(res)).toBeDefined();
    expect(res.body.user).toMatchObject({ id: s.userId, email_verified: true });
    expectError(await post('/v1/auth/login-code', { email: s.email, code }), 400, 'invalid_token');
  });

  it('uses the code up on the 5th wrong attempt, and a code expires after 10 minutes', async () => {
    ip = nextIp();
    const s = await signUp(request);
    await post('/v1/auth/login-code', { email: s.email });
    const code = codeIn(lastMail()?.text);
    const wrong = code === '000000' ? '111111' : '000000';
    for (let i = 0; i < 5; i++) expectError(await post('/v1/auth/login-code', { email: s.email, code: wrong }), 400, 'invalid_token');
    bed.c.clock.advance(15 * 60_000); // the address's failure budget is spent; let it refill
    expectError(await post('/v1/auth/login-code', { email: s.email, code }), 400, 'invalid_token');

    await post('/v1/auth/login-code', { email: s.email });
    const next = codeIn(lastMail()?.text);
    bed.c.clock.advance(10 * 60_000);
    expectError(await post('/v1/auth/login-code', { email: s.email, code: next }), 400, 'invalid_token');
  });

  it('answers an unknown address with invalid_token and throttles wrong codes with the sign-in budget', async () => {
    ip = nextIp();
    const email = freshEmail();
    for (let i = 0; i < 5; i++) expectError(await post('/v1/auth/login-code', { email, code: '123456' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/login-code', { email, code: '123456' }), 429, 'rate_limit_exceeded');
  });

  it('mails at most 5 codes per address an hour; past that the answer stays 202 and nothing is sent', async () => {
    const s = await signUp(request); // the verification mail counts too
    for (let i = 0; i < 4; i++) expect((await post('/v1/auth/login-code', { email: s.email })).status).toBe(202);
    const before = bed.c.mailed.length;
    const res = await post('/v1/auth/login-code', { email: s.email });
    expect(res.status).toBe(202);
    expect(bed.c.mailed).toHaveLength(before);
  });

  it('refuses a malformed body with 400', async () => {
    expectError(await post('/v1/auth/login-code', {}), 400, 'invalid_request');
    expectError(await post('/v1/auth/login-code', { email: 'a@example.com', code: 12 }), 400, 'invalid_request');
  });
});

describe('POST /v1/auth/password-reset', () => {
  it('answers 202 for any address and mails a link only to a user', async () => {
    const s = await signUp(request);
    const before = bed.c.mailed.length;
    expect((await post('/v1/auth/password-reset', { email: freshEmail() })).status).toBe(202);
    expect(bed.c.mailed).toHaveLength(before);
    const res = await post('/v1/auth/password-reset', { email: s.email });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({});
    expect(lastMail()?.text).toMatch(/http:\/\/api\.test\/#\/reset-password\/[0-9A-Za-z]{40}/);
  });

  it('sets the new password, verifies the address and ends every session of the user', async () => {
    ip = nextIp();
    const s = await signUp(request);
    const second = await sessionFrom(request, await login(s.email), s);
    await post('/v1/auth/password-reset', { email: s.email });
    const token = linkTokenIn(lastMail()?.text, 'reset-password');

    const res = await post('/v1/auth/password-reset', { token, password: 'a brand new passphrase' });
    expect(res.status).toBe(200);

    for (const ended of [s, second]) expectError(await request(withSession(ended, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
    expectError(await login(s.email), 401, 'unauthorized');
    const fresh = await login(s.email, 'a brand new passphrase');
    expect(fresh.status).toBe(200);
    expect(fresh.body.user.email_verified).toBe(true);
    expectError(await post('/v1/auth/password-reset', { token, password: 'yet another passphrase' }), 400, 'invalid_token');
  });

  it('refuses an expired (1 hour), unknown or older token with invalid_token, and a weak password with 400', async () => {
    const s = await signUp(request);
    await post('/v1/auth/password-reset', { email: s.email });
    const older = linkTokenIn(lastMail()?.text, 'reset-password');
    await post('/v1/auth/password-reset', { email: s.email });
    const newest = linkTokenIn(lastMail()?.text, 'reset-password');

    expectError(await post('/v1/auth/password-reset', { token: older, password: 'a brand new passphrase' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/password-reset', { token: newest, password: 'short' }), 400, 'invalid_request');
    bed.c.clock.advance(3600_000);
    expectError(await post('/v1/auth/password-reset', { token: newest, password: 'a brand new passphrase' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/password-reset', { token: '0123456789abcdefghijABCDEFGHIJ0123456789', password: 'a brand new passphrase' }), 400, 'invalid_token');
    expectError(await post('/v1/auth/password-reset', { token: 'x' }), 400, 'invalid_request');
  });

  it('refuses a common new password before the token is used: the link still works', async () => {
    const s = await signUp(request);
    await post('/v1/auth/password-reset', { email: s.email });
    const token = linkTokenIn(lastMail()?.text, 'reset-password');
    expectError(await post('/v1/auth/password-reset', { token, password: 'qwertyuiop' }), 400, 'invalid_request');
    expect((await post('/v1/auth/password-reset', { token, password: 'a brand new passphrase' })).status).toBe(200);
  });
});

describe('POST /v1/auth/logout and GET /v1/auth/session', () => {
  it('ends the session and clears the cookie; the old cookie no longer works', async () => {
    const s = await signUp(request);
    const res = await request(withSession(s, { method: 'POST', path: '/v1/auth/logout' }));

    expect(res.status).toBe(204);
    expect(res.cookies).toEqual(['__Host-postbox_session=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0']);
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/keys' })), 401, 'unauthorized');
  });

  it('answers 204 without a session or with an unknown one', async () => {
    expect((await post('/v1/auth/logout')).status).toBe(204);
    expect((await request({ method: 'POST', path: '/v1/auth/logout', cookies: ['__Host-postbox_session=nonsense'] })).status).toBe(204);
  });

  it('answers 401 without a session, with an unknown one and once it expired (14 days)', async () => {
    expectError(await request({ method: 'GET', path: '/v1/auth/session' }), 401, 'unauthorized');
    expectError(await request({ method: 'GET', path: '/v1/auth/session', cookies: [`__Host-postbox_session=${'A'.repeat(43)}`] }), 401, 'unauthorized');
    const s = await signUp(request);
    bed.c.clock.advance(14 * 24 * 3600_000);
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
  });

  it('reads the cookie from the Cookie header as well as from API Gateway\'s cookies', async () => {
    const s = await signUp(request);
    const res = await request({ method: 'GET', path: '/v1/auth/session', headers: { cookie: `theme=dark; ${s.cookie}` } });
    expect(res.status).toBe(200);
  });

  it('stores the session as its SHA-256 only', async () => {
    const s = await signUp(request);
    const id = s.cookie.split('=')[1] as string;
    const { createHash } = await import('node:crypto');
    expect(await bed.c.store.get(keys.session(id))).toBeUndefined();
    expect(await bed.c.store.get(keys.session(createHash('sha256').update(id).digest('hex')))).toMatchObject({ user_id: s.userId, account_id: s.accountId });
  });
});

describe('an address someone else signed up with (pre-hijack)', () => {
  /** Someone signs up with the address and keeps two sessions: the sign-up's and a later login's. */
  async function squatted(): Promise<{ squatter: TestSession; second: TestSession }> {
    ip = nextIp();
    const squatter = await signUp(request, { password: 'the squatter chose this one' });
    const second = await sessionFrom(request, await login(squatter.email, squatter.password), squatter);
    return { squatter, second };
  }

  async function expectSquatterOut({ squatter, second }: { squatter: TestSession; second: TestSession }): Promise<void> {
    for (const ended of [squatter, second]) expectError(await request(withSession(ended, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
    expectError(await login(squatter.email, squatter.password), 401, 'unauthorized');
  }

  it('a login code claims it: the password chosen before it was verified and every session end; the code\'s session works', async () => {
    const squat = await squatted();
    expect((await post('/v1/auth/login-code', { email: squat.squatter.email })).status).toBe(202);

    const owner = await post('/v1/auth/login-code', { email: squat.squatter.email, code: codeIn(lastMail()?.text) });

    expect(owner.status).toBe(200);
    expect(owner.body.user).toMatchObject({ id: squat.squatter.userId, email_verified: true });
    await expectSquatterOut(squat);
    const mine = await sessionFrom(request, owner, squat.squatter);
    expect((await request(withSession(mine, { method: 'GET', path: '/v1/auth/session' }))).status).toBe(200);
  });

  it('a password reset claims it too: the squatter\'s password and sessions end', async () => {
    const squat = await squatted();
    await post('/v1/auth/password-reset', { email: squat.squatter.email });
    const token = linkTokenIn(lastMail()?.text, 'reset-password');
    expect((await post('/v1/auth/password-reset', { token, password: 'the owner chose this one' })).status).toBe(200);
    await expectSquatterOut(squat);
    expect((await login(squat.squatter.email, 'the owner chose this one')).status).toBe(200);
  });

  /** The squatter, in test mode, makes a test key and a webhook subscription before the owner claims the address. */
  async function squattersAccess(squat: { squatter: TestSession }): Promise<{ secret: string; webhookId: string }> {
    const key = await request(withSession(squat.squatter, { method: 'POST', path: '/v1/keys', body: { name: 'mine', scope: 'admin', test_mode: true } }));
    expect(key.status).toBe(201);
    const hook = await request({ method: 'POST', path: '/v1/webhooks', headers: { authorization: `Bearer ${key.body.key}` }, body: { endpoint_url: 'https://93.184.216.34/hook' } }); // a public IP literal: no DNS, nothing sent
    expect(hook.status).toBe(201);
    return { secret: key.body.key, webhookId: hook.body.id };
  }

  async function expectAccessGone(squat: { squatter: TestSession }, access: { secret: string; webhookId: string }): Promise<void> {
    expectError(await request({ method: 'GET', path: '/v1/inbound', headers: { authorization: `Bearer ${access.secret}` } }), 401, 'unauthorized');
    expect(await bed.c.store.get(keys.webhook(squat.squatter.accountId, access.webhookId))).toBeUndefined();
  }

  it('a claim by code also revokes the keys and removes the webhooks made before it: none reads the owner\'s mail', async () => {
    const squat = await squatted();
    const access = await squattersAccess(squat);
    await post('/v1/auth/login-code', { email: squat.squatter.email });
    expect((await post('/v1/auth/login-code', { email: squat.squatter.email, code: codeIn(lastMail()?.text) })).status).toBe(200);
    await expectAccessGone(squat, access);
  });

  it('a claim by password reset revokes them too', async () => {
    const squat = await squatted();
    const access = await squattersAccess(squat);
    await post('/v1/auth/password-reset', { email: squat.squatter.email });
    const token = linkTokenIn(lastMail()?.text, 'reset-password');
    expect((await post('/v1/auth/password-reset', { token, password: 'the owner chose this one' })).status).toBe(200);
    await expectAccessGone(squat, access);
  });

  it('a verified address keeps its password and sessions when its owner signs in with a code', async () => {
    ip = nextIp();
    const s = await signUp(request);
    expect((await post('/v1/auth/verify-email', { token: linkTokenIn(lastMail()?.text, 'verify-email') })).status).toBe(200);
    await post('/v1/auth/login-code', { email: s.email });
    expect((await post('/v1/auth/login-code', { email: s.email, code: codeIn(lastMail()?.text) })).status).toBe(200);
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).status).toBe(200);
    expect((await login(s.email)).status).toBe(200);
  });

  it('the sign-up\'s own link verifies it and ends nothing: opening it is agreeing to the sign-up', async () => {
    ip = nextIp();
    const s = await signUp(request);
    expect((await post('/v1/auth/verify-email', { token: linkTokenIn(lastMail()?.text, 'verify-email') })).status).toBe(200);
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).body.user.email_verified).toBe(true);
    expect((await login(s.email)).status).toBe(200);
    // The mail tells someone who did not sign up not to open it, and how to claim the address instead.
    expect(bed.c.mailed.find((m) => m.subject === 'Confirm your email address' && m.to === s.email)?.text).toContain('Signing in with a code mailed to this address makes the account yours');
  });

  /**
   * A password sign-in whose password was checked before `claim` ran and whose session is written
   * after it (the claim lands just before the session's entry in the user's partition).
   */
  async function loginRacing(email: string, password: string, claim: () => Promise<void>): Promise<ParsedResult> {
    const store = bed.c.store as unknown as { put: (item: { entity?: string }, ...rest: unknown[]) => Promise<unknown> };
    const put = store.put;
    let pending = true;
    store.put = async (item, ...rest) => {
      if (pending && item.entity === 'user_session') {
        pending = false;
        await claim();
      }
      return put.call(store, item, ...rest);
    };
    try {
      return await login(email, password);
    } finally {
      store.put = put;
    }
  }

  it.each([
    ['a login code', 'code'],
    ['a password reset', 'reset'],
  ])('a squatter\'s password sign-in racing %s does not outlive it', async (_name, how) => {
    const { squatter } = await squatted();
    if (how === 'code') await post('/v1/auth/login-code', { email: squatter.email });
    else await post('/v1/auth/password-reset', { email: squatter.email });
    const mailed = lastMail()?.text;
    const claim = async (): Promise<void> => {
      const res =
        how === 'code'
          ? await post('/v1/auth/login-code', { email: squatter.email, code: codeIn(mailed) })
          : await post('/v1/auth/password-reset', { token: linkTokenIn(mailed, 'reset-password'), password: 'the owner chose this one' });
      expect(res.status).toBe(200);
    };

    const raced = await loginRacing(squatter.email, squatter.password, claim);

    expectError(raced, 401, 'unauthorized');
    const cookie = sessionCookieOf(raced);
    if (cookie) expectError(await request({ method: 'GET', path: '/v1/auth/session', cookies: [cookie] }), 401, 'unauthorized');
  });
});

describe('login codes and reset links past the mail budget', () => {
  it('a code request past the budget answers 202 as before, mails nothing, and the code mailed before still works', async () => {
    ip = nextIp();
    const s = await signUp(request); // the verification mail is the first of 5
    for (let i = 0; i < 4; i++) expect((await post('/v1/auth/login-code', { email: s.email })).status).toBe(202);
    const held = codeIn(lastMail()?.text);
    const before = bed.c.mailed.length;

    const past = await post('/v1/auth/login-code', { email: s.email });

    expect(past.status).toBe(202);
    expect(past.body).toEqual({});
    expect(bed.c.mailed).toHaveLength(before);
    expect((await post('/v1/auth/login-code', { email: s.email, code: held })).status).toBe(200);
  });

  it('a reset request past the budget leaves the link mailed before working', async () => {
    const s = await signUp(request);
    for (let i = 0; i < 4; i++) expect((await post('/v1/auth/password-reset', { email: s.email })).status).toBe(202);
    const held = linkTokenIn(lastMail()?.text, 'reset-password');
    expect((await post('/v1/auth/password-reset', { email: s.email })).status).toBe(202);
    expect((await post('/v1/auth/password-reset', { token: held, password: 'a brand new passphrase' })).status).toBe(200);
  });
});

describe('the auth routes take JSON from this service\'s own pages, or from no browser', () => {
  const credentials = async (): Promise<{ email: string; password: string }> => {
    ip = nextIp();
    const s = await signUp(request);
    return { email: s.email, password: s.password };
  };

  it.each([
    ['text/plain', 'a cross-site form with enctype=text/plain'],
    ['application/x-www-form-urlencoded', 'a form'],
    ['multipart/form-data; boundary=x', 'a multipart form'],
  ])('refuses a login labelled %s with 400 invalid_request, even when the body is JSON (%s)', async (contentType) => {
    const body = await credentials();
    const res = await request({ method: 'POST', path: '/v1/auth/login', rawBody: JSON.stringify(body), headers: { 'content-type': contentType } });
    expectError(res, 400, 'invalid_request');
    expect(res.body.error.message).toContain('application/json');
    expect(res.cookies).toEqual([]);
  });

  it('takes application/json with a charset, and a body with no Content-Type is refused', async () => {
    const body = await credentials();
    expect((await request({ method: 'POST', path: '/v1/auth/login', body, headers: { 'content-type': 'Application/JSON; charset=utf-8' } })).status).toBe(200);
    const unlabelled = await request({ method: 'POST', path: '/v1/auth/login', rawBody: JSON.stringify(body), headers: { 'content-type': undefined as unknown as string } });
    expectError(unlabelled, 400, 'invalid_request');
  });

  it.each([
    [{ 'sec-fetch-site': 'cross-site' }],
    [{ 'sec-fetch-site': 'same-site' }],
    [{ origin: 'https://evil.example' }],
    [{ origin: 'http://api.test.evil.example' }],
    [{ origin: 'null' }],
    [{ origin: 'https://api.test' }],
    [{ origin: 'http://api.test', 'sec-fetch-site': 'cross-site' }],
  ])('refuses a browser\'s login from another site (%j) with 403 forbidden', async (headers) => {
    const body = await credentials();
    const res = await request({ method: 'POST', path: '/v1/auth/login', body, headers });
    expectError(res, 403, 'forbidden');
    expect(res.cookies).toEqual([]);
  });

  it('takes a login from the configured origin (Origin and Sec-Fetch-Site: same-origin), and from curl with neither', async () => {
    const body = await credentials();
    expect((await request({ method: 'POST', path: '/v1/auth/login', body, headers: { origin: 'http://api.test', 'sec-fetch-site': 'same-origin' } })).status).toBe(200);
    expect((await request({ method: 'POST', path: '/v1/auth/login', body })).status).toBe(200);
  });

  it.each([
    ['/v1/auth/signup', { email: 'cross@example.com', password: PASSWORD }],
    ['/v1/auth/verify-email', { token: '0123456789abcdefghijABCDEFGHIJ0123456789' }],
    ['/v1/auth/login-code', { email: 'cross@example.com' }],
    ['/v1/auth/password-reset', { email: 'cross@example.com' }],
  ])('guards %s the same way', async (path, body) => {
    expectError(await request({ method: 'POST', path, body, headers: { 'sec-fetch-site': 'cross-site' } }), 403, 'forbidden');
    expectError(await request({ method: 'POST', path, rawBody: JSON.stringify(body), headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request');
  });

  it('refuses a cross-site sign-out: the session goes on; the console\'s own, without a body or a Content-Type, signs out', async () => {
    const s = await signUp(request);
    const cross = await request(withSession(s, { method: 'POST', path: '/v1/auth/logout', headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' } }));
    expectError(cross, 403, 'forbidden');
    expect(cross.cookies).toEqual([]);
    expect((await request(withSession(s, { method: 'GET', path: '/v1/auth/session' }))).status).toBe(200);

    const own = await request(withSession(s, { method: 'POST', path: '/v1/auth/logout', headers: { origin: 'http://api.test', 'sec-fetch-site': 'same-origin', 'content-type': undefined as unknown as string } }));
    expect(own.status).toBe(204);
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
  });
});
