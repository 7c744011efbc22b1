// Signing up and signing in through the auth routes, for tests that act as a signed-in person:
// the session cookie to send (as API Gateway hands cookies over) and the CSRF token for writes.
import type { Page } from 'playwright-core';
import type { HttpEventInput, ParsedResult } from './events';
import { waitFor } from './wait';

export interface TestSession {
  email: string;
  password: string;
  accountId: string;
  userId: string;
  /** `__Host-postbox_session=<id>`, as a browser sends it back. */
  cookie: string;
  csrf: string;
}

type Request = (input: HttpEventInput) => Promise<ParsedResult>;

/** The `name=value` of the session cookie an answer set; undefined when it set none. */
export function sessionCookieOf(res: ParsedResult): string | undefined {
  const set = res.cookies.find((c) => c.startsWith('__Host-postbox_session='));
  return set?.split(';')[0];
}

/** A request made with the session: its cookie, and its CSRF token unless `csrf: false`. */
export function withSession(session: Pick<TestSession, 'cookie' | 'csrf'>, input: HttpEventInput, options: { csrf?: boolean } = {}): HttpEventInput {
  const headers = { ...(input.headers ?? {}), ...(options.csrf === false ? {} : { 'x-csrf-token': session.csrf }) };
  return { ...input, cookies: [...(input.cookies ?? []), session.cookie], headers };
}

let counter = 0;

/** Signs a new person up (a fresh address unless given) and answers their session. */
export async function signUp(request: Request, options: { email?: string; password?: string; name?: string } = {}): Promise<TestSession> {
  const email = options.email ?? `person-${++counter}-${Date.now()}@example.com`;
  const password = options.password ?? 'a long and unusual passphrase';
  const res = await request({ method: 'POST', path: '/v1/auth/signup', body: { email, password, ...(options.name ? { name: options.name } : {}) } });
  if (res.status !== 201) throw new Error(`sign-up answered ${res.status}: ${JSON.stringify(res.body)}`);
  return sessionFrom(request, res, { email, password });
}

/** The session an answer started (sign-up, login), with its CSRF token from GET /v1/auth/session. */
export async function sessionFrom(request: Request, res: ParsedResult, who: { email: string; password: string }): Promise<TestSession> {
  const cookie = sessionCookieOf(res);
  if (!cookie) throw new Error(`no session cookie in ${res.status} ${JSON.stringify(res.cookies)}`);
  const view = await request({ method: 'GET', path: '/v1/auth/session', cookies: [cookie] });
  if (view.status !== 200) throw new Error(`GET /v1/auth/session answered ${view.status}: ${JSON.stringify(view.body)}`);
  return { ...who, accountId: view.body.account_id, userId: view.body.user.id, cookie, csrf: view.body.csrf_token };
}

/** The token of a link in a mail's text: `#/verify-email/<token>` or `#/reset-password/<token>`. */
export function linkTokenIn(text: string | undefined, kind: 'verify-email' | 'reset-password'): string {
  const match = new RegExp(`#/${kind}/([0-9A-Za-z]+)`).exec(text ?? '');
  if (!match) throw new Error(`no ${kind} link in: ${text}`);
  return match[1] as string;
}

/** The six-digit code in a sign-in code mail. */
export function codeIn(text: string | undefined): string {
  const match = /sign-in code is (\d{6})/.exec(text ?? '');
  if (!match) throw new Error(`no code in: ${text}`);
  return match[1] as string;
}

/**
 * GET /v1/auth/session from a browser page, with the page's cookie, asked again while the per-IP
 * limiter refuses it (429): signed out, the read is a public request, which the page's own
 * requests before it may have used the budget of.
 */
export async function pageSession<B = unknown>(page: Page): Promise<{ status: number; body: B }> {
  let answer: { status: number; body: B } | undefined;
  await waitFor(
    async () => {
      const got = (await page.evaluate(async () => {
        const res = await fetch('/v1/auth/session');
        return { status: res.status, body: (await res.json()) as unknown };
      })) as { status: number; body: B };
      answer = got;
      return got.status !== 429;
    },
    { what: 'the rate limiter to admit GET /v1/auth/session', timeoutMs: 15_000, intervalMs: 250 },
  );
  return answer!;
}
