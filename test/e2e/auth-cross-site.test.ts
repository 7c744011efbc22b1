// The sign-in routes against another site's pages, in a real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) and the local runtime started as a process: a
// page on another origin (a second loopback server, as an attacker's site) submits forms to the
// runtime, as a login CSRF or a cross-site sign-out would. The browser, not the test, sets Origin
// and Sec-Fetch-Site, and keeps (or not) the session cookie.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admitted, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { needsTool, whereOnPath } from '../support/system-tools';

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const SESSION = '__Host-postbox_session';
const MALLORY = { email: 'mallory@example.com', password: 'mallory pass=phrase of her own' };
const VICTIM = { email: 'victim@example.com', password: 'the victim chose this passphrase' };

let dataDir: string;
let runtime: RuntimeProcess;
/** The attacker's site: serves whatever page a test puts in `attackPage`. */
let site: Server;
let siteUrl: string;
let attackPage = '';

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-cross-site-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir });
  site = createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(attackPage));
  await new Promise<void>((ready) => site.listen(0, '127.0.0.1', ready));
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  for (const who of [MALLORY, VICTIM]) {
    const res = await admitted(
      () => fetch(`${runtime.url}/v1/auth/signup`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(who) }),
      'POST /v1/auth/signup',
    );
    expect(res.status).toBe(201);
  }
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await new Promise((done) => site?.close(done));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** An HTML attribute value, single-quoted. */
const attr = (value: string): string => value.replace(/&/g, '&amp;').replace(/'/g, '&#39;');

/** A page that submits one form to the runtime as soon as it loads. */
function autoSubmit(path: string, enctype: string, fields: Record<string, string>): string {
  const inputs = Object.entries(fields)
    .map(([name, value]) => `<input type='hidden' name='${attr(name)}' value='${attr(value)}'>`)
    .join('');
  return `<!doctype html><form id='f' method='POST' action='${runtime.url}${path}' enctype='${enctype}'>${inputs}</form><script>document.getElementById('f').submit()</script>`;
}

chromium.describe(chromium.name('the sign-in routes against another site'), () => {
  let browser: Browser;

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
  });
  afterAll(async () => browser?.close());

  /** Opens the attacker's page, which navigates the browser to the runtime's answer; answers that answer's JSON. */
  async function visitAttack(page: Page, path: string): Promise<{ status: number; body: any }> {
    const answer = page.waitForResponse((r) => r.url() === `${runtime.url}${path}`);
    await page.goto(siteUrl);
    const res = await answer;
    return { status: res.status(), body: await res.json() };
  }

  const sessionCookie = async (context: BrowserContext) => (await context.cookies(runtime.url)).find((c) => c.name === SESSION);

  it('does not sign a browser in to the attacker\'s account from her page (login CSRF with a text/plain form)', async () => {
    // text/plain sends `name=value`: a name and a value that join into her credentials as JSON.
    const json = JSON.stringify(MALLORY);
    const at = json.indexOf('=');
    attackPage = autoSubmit('/v1/auth/login', 'text/plain', { [json.slice(0, at)]: json.slice(at + 1) });
    const context = await browser.newContext();
    const page = await context.newPage();

    const answer = await visitAttack(page, '/v1/auth/login');

    expect(answer.status).toBe(403);
    expect(answer.body.error.code).toBe('forbidden');
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });

  it('does not sign the victim out from another site, and her own page signs in and out (the __Host- cookie kept on loopback)', async () => {
    const context = await browser.newContext();
    const page = await context.newPage();
    await page.goto(`${runtime.url}/`);
    const signedIn = await page.evaluate(
      async (body) => (await fetch('/v1/auth/login', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).status,
      VICTIM,
    );
    expect(signedIn).toBe(200);
    expect(await sessionCookie(context)).toMatchObject({ httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });

    attackPage = autoSubmit('/v1/auth/logout', 'application/x-www-form-urlencoded', {});
    const answer = await visitAttack(page, '/v1/auth/logout');

    expect(answer.status).toBe(403);
    expect(await sessionCookie(context)).toBeDefined();
    await page.goto(`${runtime.url}/`);
    const { session, csrf } = await page.evaluate(async () => {
      const res = await fetch('/v1/auth/session');
      return { session: res.status, csrf: ((await res.json()) as { csrf_token: string }).csrf_token };
    });
    expect(session).toBe(200);

    // The console's own sign-out: same origin, no body, no Content-Type.
    const out = await page.evaluate(async (token) => (await fetch('/v1/auth/logout', { method: 'POST', headers: { 'x-csrf-token': token } })).status, csrf);
    expect(out).toBe(204);
    expect(await sessionCookie(context)).toBeUndefined();
    await context.close();
  });
});
