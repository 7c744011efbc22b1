// The web console at GET /, served by the local runtime started as a process, in a real headless
// Chromium (Debian's /usr/bin/chromium, driven by playwright-core). Signed out: the sign-in and
// sign-up forms with their labels, the keyboard's focus order, phone width without horizontal
// scroll, and a screenshot of each signed-out view kept in test-artifacts/console/ (an artifact,
// not a temp dir). Signed in, until this branch has the auth routes: GET /v1/auth/session is
// answered by a stand-in in the browser (page.route) and each /v1 call carries the bootstrap admin
// key, so each view's screen is drawn from the real API.
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admitted, api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { needsTool, whereOnPath } from '../support/system-tools';

// The page's side of page.evaluate (serialized into the page; the project's TypeScript has no DOM library).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type InPage = any;

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const shots = new URL('../../test-artifacts/console/', import.meta.url).pathname;
const SIGNED_OUT = ['signin', 'signup', 'code', 'forgot', 'reset-password', 'verify-email'];
const SIGNED_IN = ['overview', 'keys', 'domains', 'messages', 'suppressions', 'webhooks', 'templates', 'broadcasts', 'contacts', 'usage', 'billing'];

let dataDir: string;
let runtime: RuntimeProcess;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-console-'));
  mkdirSync(shots, { recursive: true });
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, ACCOUNT_EMAIL: 'owner@example.com' });
  key = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string }).admin_key;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('GET / over plain HTTP', () => {
  it('is the console under its strict policy, HEAD alike without a body', async () => {
    const get = await admitted(() => fetch(`${runtime.url}/`), 'GET /');
    const head = await admitted(() => fetch(`${runtime.url}/`, { method: 'HEAD' }), 'HEAD /');
    expect(get.status).toBe(200);
    expect(await get.text()).toContain('<title>Postbox</title>');
    expect(get.headers.get('content-security-policy')).toMatch(/^default-src 'self'; script-src 'sha256-/);
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
  });
});

chromium.describe(chromium.name('the console in a browser'), () => {
  let browser: Browser;
  const errors: string[] = [];
  const watch = (p: Page): Page => {
    p.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} @ ${m.location().url}`));
    p.on('pageerror', (e) => errors.push(String(e)));
    return p;
  };
  const overflow = (p: Page): Promise<number> => p.evaluate(() => {
    const d = (globalThis as InPage).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
  const open = async (p: Page, view: string): Promise<void> => {
    await p.goto(`${runtime.url}/#/${view}`);
    await p.waitForSelector(`[data-view="${view}"]:not([hidden])`);
  };

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signed out, shows the sign-in form with labelled fields, the heading focused, links to sign-up, the code and OAuth', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await page.goto(`${runtime.url}/`);
    await page.waitForSelector('[data-view="signin"]:not([hidden])');
    expect(await page.isHidden('#app')).toBe(true);
    expect(await page.evaluate(() => (globalThis as InPage).document.activeElement.id)).toBe('h-signin');
    expect(await page.textContent('label[for=signin-email]')).toBe('Email');
    expect(await page.textContent('label[for=signin-password]')).toBe('Password');
    expect(await page.getAttribute('a:has-text("GitHub")', 'href')).toBe('/v1/auth/oauth/github/start');
    expect(await page.getAttribute('a:has-text("Google")', 'href')).toBe('/v1/auth/oauth/google/start');
    await page.click('a:has-text("Create an account")');
    await page.waitForSelector('[data-view="signup"]:not([hidden])');
    expect(await page.evaluate(() => (globalThis as InPage).document.activeElement.id)).toBe('h-signup');
    expect(await page.$$eval('[data-view="signup"] input', (inputs) => inputs.map((i) => (i as InPage).labels.length))).toEqual([1, 1, 1]);
    await page.close();
  });

  it('moves the keyboard focus through the sign-in form in reading order', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await open(page, 'signin');
    const order: string[] = [];
    for (let i = 0; i < 6; i += 1) {
      await page.keyboard.press('Tab');
      order.push(await page.evaluate(() => {
        const a = (globalThis as InPage).document.activeElement;
        return a.id || a.textContent.trim();
      }));
    }
    expect(order).toEqual(['signin-email', 'signin-password', 'Sign in', 'GitHub', 'Google', 'Sign in with a code by email']);
    await page.close();
  });

  it('answers a failed sign-in in the status line, in the envelope’s words', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    await open(page, 'signin');
    await page.fill('#signin-email', 'nobody@example.com');
    await page.fill('#signin-password', 'not the password');
    await page.click('#signin-form button[type=submit]');
    await page.waitForSelector('#status.error');
    expect(await page.textContent('#status')).toMatch(/\((not_found|unauthorized)\)$/);
    expect(page.url()).toBe(`${runtime.url}/#/signin`);
    await page.close();
  });

  it('fits 375 px without horizontal scroll, and keeps a screenshot of each signed-out view', async () => {
    const page = watch(await browser.newPage({ viewport: { width: 375, height: 740 } }));
    const overflows: Record<string, number> = {};
    for (const view of SIGNED_OUT) {
      await open(page, view);
      overflows[view] = await overflow(page);
      await page.screenshot({ path: join(shots, `signed-out-${view}-375.png`), fullPage: true });
    }
    const wide = watch(await browser.newPage({ viewport: { width: 1280, height: 900 } }));
    for (const view of SIGNED_OUT) {
      await open(wide, view);
      await wide.screenshot({ path: join(shots, `signed-out-${view}-1280.png`), fullPage: true });
    }
    expect(overflows).toEqual(Object.fromEntries(SIGNED_OUT.map((v) => [v, 0])));
    await page.close();
    await wide.close();
  });

  describe('signed in with a stand-in session (until the auth routes are on this branch)', () => {
    let page: Page;
    const session = { user: { id: 'usr_1', email: 'owner@example.com', name: 'Owner', email_verified: false, role: 'owner' }, account_id: 'acc_1', account_name: 'Acme <b>', sandbox: true, csrf_token: 'csrf-stand-in', expires_at: '2099-01-01T00:00:00Z' };
    const csrf: string[] = [];

    beforeAll(async () => {
      // A template whose name is markup: the page must show it as text.
      expect((await api(runtime.url, 'POST', '/v1/templates', key, { name: '<img src=x onerror=window.__pwned=1>', channel: 'email', subject: 'Hi {{name}}', body_html: '<p style="color: #b42318">Hello {{name}}</p>' })).status).toBe(201);
      page = watch(await browser.newPage({ viewport: { width: 375, height: 740 } }));
      await page.route('**/v1/**', async (route) => {
        const request = route.request();
        if (new URL(request.url()).pathname === '/v1/auth/session') return route.fulfill({ status: 200, contentType: 'application/json', body: JSON.stringify(session) });
        if (request.method() !== 'GET') csrf.push(request.headers()['x-csrf-token'] ?? '(none)');
        return route.continue({ headers: { ...request.headers(), authorization: `Bearer ${key}` } });
      });
    });
    afterAll(async () => page?.close());

    it('draws each view from the API at phone width without horizontal scroll; the menu folds', async () => {
      const overflows: Record<string, number> = {};
      for (const view of SIGNED_IN) {
        await open(page, view);
        await page.waitForLoadState('networkidle');
        overflows[view] = await overflow(page);
        await page.screenshot({ path: join(shots, `signed-in-${view}-375.png`), fullPage: true });
      }
      expect(overflows).toEqual(Object.fromEntries(SIGNED_IN.map((v) => [v, 0])));
      expect(await page.isHidden('#nav-list')).toBe(true);
      await page.click('#nav-toggle');
      expect(await page.isVisible('#nav-list')).toBe(true);
      expect(await page.isHidden('[data-staff]')).toBe(true);
    });

    it('creates a key and shows its secret once, sending the CSRF header', async () => {
      await open(page, 'keys');
      await page.fill('#key-name', 'ci');
      await page.click('#key-form button[type=submit]');
      await page.waitForSelector('#key-secret .secret code');
      expect(await page.textContent('#key-secret code')).toMatch(/^sk_test_/);
      expect(csrf).toContain('csrf-stand-in');
      expect(csrf.filter((t) => t !== 'csrf-stand-in')).toEqual([]);
    });

    it('shows a template’s markup-laden name as text, and previews its HTML with its inline style applied', async () => {
      await open(page, 'templates');
      await page.waitForSelector('#template-list td:has-text("<img src=x")');
      await page.click('#template-list button[aria-label^="Edit"]');
      await page.waitForFunction(() => (globalThis as InPage).document.querySelector('#template-name').value.startsWith('<img'));
      await page.fill('#template-vars', '{"name": "Ada"}');
      // The frame is same-origin (sandboxed without scripts), so the page's side reads it.
      const previewed = (): InPage => (globalThis as InPage).document.querySelector('#template-preview').contentDocument;
      await page.waitForFunction(() => {
        const p = (globalThis as InPage).document.querySelector('#template-preview').contentDocument?.querySelector('p');
        return p?.textContent === 'Hello Ada' && p.style.color !== '';
      });
      expect(await page.evaluate(`(${previewed.toString()})().defaultView.getComputedStyle((${previewed.toString()})().querySelector('p')).color`)).toBe('rgb(180, 35, 24)');
      expect(await page.evaluate(() => (globalThis as InPage).__pwned)).toBeUndefined();
    });

    it('logged no console error (a CSP violation is one)', () => {
      // A 429 or 503 the page waited out is logged by the browser as a failed load; so is the sign-in's refusal above.
      expect(errors.filter((e) => !/status of (401|404|429|503) /.test(e))).toEqual([]);
    });
  });

  it.todo('a newcomer signs up, verifies by the mailed link, creates a key, registers a domain, sends a test message and sees its timeline (needs the auth routes)');
});
