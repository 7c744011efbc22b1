// Signing in with GitHub or Google, through the auth function's routes against a stand-in of both
// providers on loopback (test/support/oauth-stand-in.ts): the start's redirect and state cookie,
// the whole round trip (a new account, the same user again, an existing user matched by the
// verified address), and every refusal: unconfigured, unknown provider, the state (mismatch,
// reuse, expiry, another provider's), the provider's refusal, an unverified address, a wrong PKCE
// verifier, a failing or garbled provider, a suspended account.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { setAccountStatus } from '../../shared/accounts/service';
import { staticSecrets } from '../../shared/adapters/static-secrets';
import { TEST_SECRETS } from '../support/container';
import type { HttpEventInput, ParsedResult } from '../support/events';
import { expectError } from '../support/errors';
import { startOAuthStandIn, STAND_IN_CLIENTS, type OAuthStandIn } from '../support/oauth-stand-in';
import { sessionCookieOf, signUp } from '../support/sessions';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
const request = bed.request;
let provider: OAuthStandIn;

const CONSOLE = 'http://api.test/#/';

function configure(): void {
  bed.c.config.oauth = {
    github: { clientId: STAND_IN_CLIENTS.github.id, baseUrl: provider.url },
    google: { clientId: STAND_IN_CLIENTS.google.id, baseUrl: provider.url },
  };
  bed.c.secrets = staticSecrets({
    ...TEST_SECRETS,
    'oauth-github-client-secret': STAND_IN_CLIENTS.github.secret,
    'oauth-google-client-secret': STAND_IN_CLIENTS.google.secret,
  });
}

beforeAll(async () => {
  provider = await startOAuthStandIn();
});
afterAll(async () => provider.close());
beforeEach(() => {
  provider.reset();
  configure();
});

const start = (name: string): Promise<ParsedResult> => request({ method: 'GET', path: `/v1/auth/oauth/${name}/start` });

/** The `name=value` of the state cookie a start set. */
const stateCookieOf = (res: ParsedResult): string => res.cookies.find((c) => c.startsWith('postbox_oauth_state='))!.split(';')[0]!;

/** Starts, goes through the provider as a browser, and answers the callback request to make (with the state cookie). */
async function throughProvider(name: 'github' | 'google', tamper?: (authorize: URL) => void): Promise<HttpEventInput> {
  const started = await start(name);
  expect(started.status).toBe(302);
  const location = new URL(started.headers.location!);
  tamper?.(location);
  const back = await provider.authorize(location.href);
  return { method: 'GET', path: back.path, query: back.query, cookies: [stateCookieOf(started)] };
}

async function signInWith(name: 'github' | 'google'): Promise<ParsedResult> {
  return request(await throughProvider(name));
}

async function sessionOf(res: ParsedResult): Promise<ParsedResult> {
  return request({ method: 'GET', path: '/v1/auth/session', cookies: [sessionCookieOf(res)!] });
}

function expectSentBack(res: ParsedResult, reason: string): void {
  expect(res.status).toBe(302);
  expect(res.headers.location).toBe(`${CONSOLE}sign-in?error=${reason}`);
  expect(sessionCookieOf(res)).toBeUndefined();
  expect(res.cookies).toContain('postbox_oauth_state=; HttpOnly; Secure; SameSite=Lax; Path=/v1/auth/oauth; Max-Age=0');
}

describe('GET /v1/auth/oauth/{provider}/start', () => {
  it('redirects to GitHub with the client id, the configured callback, the scope, the state and an S256 challenge, and binds the state to a cookie', async () => {
    const res = await start('github');

    expect(res.status).toBe(302);
    expect(res.headers['cache-control']).toBe('no-store');
    const location = new URL(res.headers.location!);
    expect(`${location.origin}${location.pathname}`).toBe(`${provider.url}/login/oauth/authorize`);
    const params = Object.fromEntries(location.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: STAND_IN_CLIENTS.github.id,
      redirect_uri: 'http://api.test/v1/auth/oauth/github/callback',
      scope: 'read:user user:email',
      state: expect.stringMatching(/^[0-9A-Za-z]{40}$/),
      code_challenge: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      code_challenge_method: 'S256',
    });
    expect(res.cookies).toEqual([`postbox_oauth_state=${params.state}; HttpOnly; Secure; SameSite=Lax; Path=/v1/auth/oauth; Max-Age=600`]);
  });

  it("redirects to Google's authorize page with Google's scope", async () => {
    const location = new URL((await start('google')).headers.location!);
    expect(location.pathname).toBe('/o/oauth2/v2/auth');
    expect(location.searchParams.get('scope')).toBe('openid email profile');
    expect(location.searchParams.get('redirect_uri')).toBe('http://api.test/v1/auth/oauth/google/callback');
  });

  it('takes the redirect URI from the configured origin, never from the Host header', async () => {
    const res = await request({ method: 'GET', path: '/v1/auth/oauth/github/start', headers: { host: 'evil.example', 'x-forwarded-host': 'evil.example' } });
    expect(new URL(res.headers.location!).searchParams.get('redirect_uri')).toBe('http://api.test/v1/auth/oauth/github/callback');
  });

  it('answers 503 oauth_not_configured without a client id, or without a client secret', async () => {
    bed.c.config.oauth = { google: bed.c.config.oauth!.google! };
    expectError(await start('github'), 503, 'oauth_not_configured');
    configure();
    bed.c.secrets = staticSecrets({ ...TEST_SECRETS, 'oauth-github-client-secret': 'unset' });
    expectError(await start('github'), 503, 'oauth_not_configured');
    expectError(await start('google'), 503, 'oauth_not_configured');
    expectError(await request({ method: 'GET', path: '/v1/auth/oauth/google/callback', query: { code: 'c', state: 's' } }), 503, 'oauth_not_configured');
  });

  it('answers 404 not_found for a provider it does not know', async () => {
    expectError(await start('gitlab'), 404, 'not_found');
    expectError(await request({ method: 'GET', path: '/v1/auth/oauth/gitlab/callback', query: { code: 'c', state: 's' } }), 404, 'not_found');
  });
});

describe('GET /v1/auth/oauth/{provider}/callback', () => {
  it('creates an account and a verified owner without a password, signs them in and redirects to the console', async () => {
    const email = String(provider.github.emails[1]!.email).toLowerCase();
    const res = await signInWith('github');

    expect(res.status).toBe(302);
    expect(res.headers.location).toBe(`${CONSOLE}overview`);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.cookies).toContain('postbox_oauth_state=; HttpOnly; Secure; SameSite=Lax; Path=/v1/auth/oauth; Max-Age=0');
    expect(res.cookies.find((c) => c.startsWith('__Host-postbox_session='))).toMatch(/; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=1209600$/);
    const session = await sessionOf(res);
    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ email, name: 'Octo Cat', email_verified: true, role: 'owner' });
    expect(session.body.account_name).toBe('Octo Cat');
    // The exchange carried the verifier the challenge was made from, and the client secret.
    expect(provider.tokenRequests).toEqual([expect.objectContaining({ provider: 'github', granted: true })]);
    expect(provider.tokenRequests[0]!.params).toMatchObject({ client_secret: STAND_IN_CLIENTS.github.secret, redirect_uri: 'http://api.test/v1/auth/oauth/github/callback' });
    // No password: a password sign-in is refused as for a wrong password.
    expectError(await request({ method: 'POST', path: '/v1/auth/login', body: { email, password: 'anything at all here' } }), 401, 'unauthorized');
    // Verified by the provider: no verification mail, and live keys may be made.
    expect(bed.c.mailed).toEqual([]);
  });

  it('signs the same provider account into the same user again, even after its address changed', async () => {
    const first = await sessionOf(await signInWith('google'));
    provider.google.userinfo = { ...provider.google.userinfo, email: `new-${String(provider.google.userinfo.email)}` };

    const second = await sessionOf(await signInWith('google'));

    expect(second.body.user.id).toBe(first.body.user.id);
    expect(second.body.account_id).toBe(first.body.account_id);
  });

  it('matches an unverified password user by the verified address: no second account, the address verified, and whoever chose the password is out', async () => {
    const email = String(provider.google.userinfo.email);
    // Someone signed up with the address before its owner came, and kept the session (a pre-hijack).
    const squatter = await signUp(request, { email });
    expect((await request({ method: 'GET', path: '/v1/auth/session', cookies: [squatter.cookie] })).body.user.email_verified).toBe(false);
    bed.c.mailed.length = 0;

    const session = await sessionOf(await signInWith('google'));

    expect(session.status).toBe(200);
    expect(session.body.user).toMatchObject({ id: squatter.userId, email, email_verified: true });
    expect(session.body.account_id).toBe(squatter.accountId);
    // The password chosen before the address was proven, and every session started with it, end.
    expectError(await request({ method: 'GET', path: '/v1/auth/session', cookies: [squatter.cookie] }), 401, 'unauthorized');
    expectError(await request({ method: 'POST', path: '/v1/auth/login', body: { email, password: squatter.password } }), 401, 'unauthorized');
  });

  it('leaves a verified password user\'s password and sessions as they were', async () => {
    const email = String(provider.github.emails[1]!.email).toLowerCase();
    const person = await signUp(request, { email });
    const token = /#\/verify-email\/([0-9A-Za-z]+)/.exec(bed.c.mailed.at(-1)?.text ?? '')![1]!;
    expect((await request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);

    const session = await sessionOf(await signInWith('github'));

    expect(session.body.user.id).toBe(person.userId);
    expect((await request({ method: 'GET', path: '/v1/auth/session', cookies: [person.cookie] })).status).toBe(200);
    expect((await request({ method: 'POST', path: '/v1/auth/login', body: { email, password: person.password } })).status).toBe(200);
  });

  it('leaves a suspended account\'s unverified user as it was: no session, the password kept', async () => {
    const email = String(provider.google.userinfo.email);
    const person = await signUp(request, { email });
    await setAccountStatus(bed.c, person.accountId, 'suspended');
    expectSentBack(await signInWith('google'), 'account_suspended');
    await setAccountStatus(bed.c, person.accountId, 'active');
    expect((await request({ method: 'POST', path: '/v1/auth/login', body: { email, password: person.password } })).status).toBe(200);
  });

  it('takes the callback however the browser arrives (it comes back cross-site from the provider): only the POSTs are first-party', async () => {
    const callback = await throughProvider('github');
    const res = await request({ ...callback, headers: { 'sec-fetch-site': 'cross-site', origin: provider.url } });
    expect(res.headers.location).toBe(`${CONSOLE}overview`);
  });

  it('refuses an address the provider has not verified: back to sign-in with oauth_email_unverified', async () => {
    provider.github.emails = [{ email: 'octo-unverified@example.com', primary: true, verified: false }];
    expectSentBack(await signInWith('github'), 'oauth_email_unverified');
    provider.google.userinfo = { ...provider.google.userinfo, email_verified: false };
    expectSentBack(await signInWith('google'), 'oauth_email_unverified');
  });

  it("sends the person back with oauth_denied when they said no at the provider", async () => {
    provider.deny = true;
    expectSentBack(await signInWith('github'), 'oauth_denied');
    expect(provider.tokenRequests).toEqual([]);
  });

  it('answers 400 invalid_token when the state is not the cookie\'s, or there is no cookie', async () => {
    const callback = await throughProvider('github');
    const other = stateCookieOf(await start('github'));
    expectError(await request({ ...callback, cookies: [other] }), 400, 'invalid_token');
    expectError(await request({ ...callback, cookies: [] }), 400, 'invalid_token');
    expectError(await request({ ...callback, query: { code: callback.query!.code! } }), 400, 'invalid_token');
    expect(provider.tokenRequests).toEqual([]);
  });

  it('answers 400 invalid_token to a state used once already', async () => {
    const callback = await throughProvider('github');
    expect((await request(callback)).headers.location).toBe(`${CONSOLE}overview`);
    expectError(await request(callback), 400, 'invalid_token');
  });

  it('answers 400 invalid_token to a state past its 10 minutes', async () => {
    const callback = await throughProvider('google');
    bed.c.clock.advance(10 * 60_000);
    expectError(await request(callback), 400, 'invalid_token');
  });

  it("answers 400 invalid_token to another provider's state", async () => {
    const callback = await throughProvider('github');
    expectError(await request({ ...callback, path: '/v1/auth/oauth/google/callback' }), 400, 'invalid_token');
  });

  it('sends the person back with oauth_failed when the provider refuses the PKCE verifier', async () => {
    // Another challenge than the one the state's verifier was made from, as if the authorize request had been swapped.
    const callback = await throughProvider('github', (authorize) => authorize.searchParams.set('code_challenge', 'A'.repeat(43)));
    expectSentBack(await request(callback), 'oauth_failed');
    expect(provider.tokenRequests).toEqual([expect.objectContaining({ granted: false })]);

    const google = await throughProvider('google', (authorize) => authorize.searchParams.set('code_challenge', 'B'.repeat(43)));
    expectSentBack(await request(google), 'oauth_failed');
  });

  it('sends the person back with oauth_failed, and logs it, when the provider answers 500 or no JSON', async () => {
    provider.overrides.set('/user/emails', { status: 500, body: { message: 'boom' } });
    expectSentBack(await signInWith('github'), 'oauth_failed');
    expect(bed.c.logs.some((l) => l.msg === 'oauth sign-in failed at the provider' && String(l.error).includes('500'))).toBe(true);

    provider.overrides.clear();
    provider.overrides.set('/v1/userinfo', { status: 200, body: '<html>not json</html>' });
    expectSentBack(await signInWith('google'), 'oauth_failed');

    provider.overrides.clear();
    provider.overrides.set('/token', { status: 503, body: 'unavailable' });
    expectSentBack(await signInWith('google'), 'oauth_failed');
  });

  it('sends the person back with oauth_failed when the provider does not answer in time', async () => {
    bed.c.config.oauthTimeoutMs = 200;
    provider.silent.add('/user');
    try {
      expectSentBack(await signInWith('github'), 'oauth_failed');
      expect(bed.c.logs.some((l) => l.msg === 'oauth sign-in failed at the provider' && String(l.error).includes('timeout'))).toBe(true);
    } finally {
      bed.c.config.oauthTimeoutMs = undefined;
    }
  });

  it('starts no session for a suspended account: back to sign-in with account_suspended', async () => {
    const first = await sessionOf(await signInWith('github'));
    await setAccountStatus(bed.c, first.body.account_id, 'suspended');
    expectSentBack(await signInWith('github'), 'account_suspended');
  });

  it('sends the person back with oauth_failed from a callback with a state but neither a code nor an error', async () => {
    const callback = await throughProvider('github');
    const res = await request({ ...callback, query: { state: callback.query!.state! } });
    expectSentBack(res, 'oauth_failed');
  });
});
