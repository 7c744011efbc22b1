// Signing up against the running service: the verification mail is caught by the SES emulator,
// the session cookie travels as Set-Cookie and Cookie through the local HTTP server.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admitted, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { linkTokenIn } from '../support/sessions';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-auth-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

function call(method: string, path: string, options: { body?: unknown; cookie?: string; csrf?: string } = {}): Promise<Response> {
  const headers: Record<string, string> = {};
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  if (options.cookie) headers.cookie = options.cookie;
  if (options.csrf) headers['x-csrf-token'] = options.csrf;
  return admitted(() => fetch(`${runtime.url}${path}`, { method, headers, body: options.body === undefined ? undefined : JSON.stringify(options.body) }), `${method} ${path}`);
}

async function mailTo(address: string): Promise<Array<{ body: { text: string } }>> {
  const store = (await (await fetch(`${runtime.sesUrl}/store`)).json()) as { emails: Array<{ body: { text: string }; destination: { to: string[] } }> };
  return store.emails.filter((e) => e.destination.to.includes(address));
}

const cookieOf = (res: Response): string | undefined => res.headers.getSetCookie().find((c) => c.startsWith('__Host-postbox_session='))?.split(';')[0];

it('signs up, verifies by the mailed link, signs in, sees the session and signs out', async () => {
  const email = 'newcomer@example.com';
  const password = 'a long and unusual passphrase';
  const signup = await call('POST', '/v1/auth/signup', { body: { email, password, name: 'Newcomer' } });
  expect(signup.status).toBe(201);
  expect(signup.headers.getSetCookie()[0]).toMatch(/^__Host-postbox_session=[\w-]{43}; HttpOnly; Secure; SameSite=Lax; Path=\/; Max-Age=1209600$/);

  const text = await waitFor(async () => (await mailTo(email))[0]?.body.text, { what: 'the verification mail' });
  const verify = await call('POST', '/v1/auth/verify-email', { body: { token: linkTokenIn(text, 'verify-email') } });
  expect(verify.status).toBe(200);

  const login = await call('POST', '/v1/auth/login', { body: { email, password } });
  expect(login.status).toBe(200);
  const cookie = cookieOf(login);
  expect(cookie).toBeDefined();

  const session = await call('GET', '/v1/auth/session', { cookie });
  expect(session.status).toBe(200);
  const view = (await session.json()) as { user: { email: string; email_verified: boolean }; csrf_token: string };
  expect(view.user).toMatchObject({ email, email_verified: true });

  const key = await call('POST', '/v1/keys', { cookie, csrf: view.csrf_token, body: { test_mode: false } });
  expect(key.status).toBe(201);

  const logout = await call('POST', '/v1/auth/logout', { cookie });
  expect(logout.status).toBe(204);
  expect(logout.headers.getSetCookie()[0]).toContain('Max-Age=0');
  expect((await call('GET', '/v1/auth/session', { cookie })).status).toBe(401);
});
