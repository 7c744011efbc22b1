// Signing in with GitHub against the running service (`npm start`'s process), configured by its
// environment (OAUTH_GITHUB_*) to a loopback stand-in of GitHub: the browser's redirects and
// cookies travel through the local HTTP server as Set-Cookie and Cookie.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admitted, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { githubStandInEnv, startOAuthStandIn, type OAuthStandIn } from '../support/oauth-stand-in';

let dataDir: string;
let runtime: RuntimeProcess;
let github: OAuthStandIn;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-oauth-'));
  github = await startOAuthStandIn();
  runtime = await startRuntimeProcess({
    DATA_DIR: dataDir,
    ...githubStandInEnv(github),
  });
});
afterAll(async () => {
  await runtime?.stop();
  await github?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const get = (path: string, cookie?: string): Promise<Response> =>
  admitted(() => fetch(`${runtime.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} }), `GET ${path}`);
const cookieNamed = (res: Response, name: string): string | undefined => res.headers.getSetCookie().find((c) => c.startsWith(`${name}=`))?.split(';')[0];

it('starts at GitHub, comes back signed in to the console, and Google stays unconfigured', async () => {
  const start = await get('/v1/auth/oauth/github/start');
  expect(start.status).toBe(302);
  const stateCookie = cookieNamed(start, 'postbox_oauth_state');
  expect(stateCookie).toBeDefined();

  const back = await github.authorize(start.headers.get('location')!);
  expect(back.path).toBe('/v1/auth/oauth/github/callback');
  const callback = await get(`${back.path}?${new URLSearchParams(back.query).toString()}`, stateCookie);
  expect(callback.status).toBe(302);
  expect(callback.headers.get('location')).toBe(`${runtime.url}/#/overview`);
  const session = cookieNamed(callback, '__Host-postbox_session');
  expect(session).toBeDefined();

  const view = await get('/v1/auth/session', session);
  expect(view.status).toBe(200);
  expect(((await view.json()) as { user: { email: string; email_verified: boolean } }).user).toMatchObject({
    email: String(github.github.emails[1]!.email).toLowerCase(),
    email_verified: true,
  });

  const google = await get('/v1/auth/oauth/google/start');
  expect(google.status).toBe(503);
  expect(((await google.json()) as { error: { code: string } }).error.code).toBe('oauth_not_configured');
});
