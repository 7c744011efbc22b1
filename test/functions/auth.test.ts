// The auth routes through the pipeline: sign-up, verification, sign-in by password and by code,
// password reset, sign-out and the session view, with every failure case.
import { describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { PermanentSendError } from '../../shared/ports/mailer';
import type { HttpEventInput, ParsedResult } from '../support/events';
import { codeIn, linkTokenIn, sessionCookieOf, sessionFrom, signUp, withSession } from '../support/sessions';
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
    expect(res.cookies[0]).toMatch(/^postbox_session=[A-Za-z0-9_-]{43}; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=1209600$/);
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
    expect(res.cookies).toEqual(['postbox_session=; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=0']);
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/auth/session' })), 401, 'unauthorized');
    expectError(await request(withSession(s, { method: 'GET', path: '/v1/keys' })), 401, 'unauthorized');
  });

  it('answers 204 without a session or with an unknown one', async () => {
    expect((await post('/v1/auth/logout')).status).toBe(204);
    expect((await request({ method: 'POST', path: '/v1/auth/logout', cookies: ['postbox_session=nonsense'] })).status).toBe(204);
  });

  it('answers 401 without a session, with an unknown one and once it expired (14 days)', async () => {
    expectError(await request({ method: 'GET', path: '/v1/auth/session' }), 401, 'unauthorized');
    expectError(await request({ method: 'GET', path: '/v1/auth/session', cookies: [`postbox_session=${'A'.repeat(43)}`] }), 401, 'unauthorized');
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
