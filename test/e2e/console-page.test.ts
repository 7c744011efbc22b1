// The web console at GET /, served by the local runtime started as a process (one for the file),
// in a real headless Chromium (Debian's /usr/bin/chromium, driven by playwright-core), with real
// sessions: people sign up, verify and sign in through the auth routes, their mail caught by the
// SES emulator, and a domain verifies against a DNS server on loopback. Screenshots of every view
// at 375 px and 1280 px are kept in test-artifacts/console/ (an artifact, not a temp dir).
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MIN_PASSWORD_LENGTH } from '../../shared/auth/schemas';
import { caughtMailTo, countMail, nextMailText } from '../support/caught-mail';
import { startDnsServer, type NameRecords, type RunningDns } from '../support/dns-server';
import { admitted, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { codeIn, pageSession } from '../support/sessions';
import { needsTool, whereOnPath } from '../support/system-tools';
import { waitFor } from '../support/wait';

// The page's side of page.evaluate (serialized into the page; the project's TypeScript has no DOM library).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type InPage = any;

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const shots = new URL('../../test-artifacts/console/', import.meta.url).pathname;
const SIGNED_OUT = ['signin', 'signup', 'code', 'forgot', 'reset-password', 'verify-email'];
const SIGNED_IN = ['overview', 'keys', 'domains', 'messages', 'suppressions', 'webhooks', 'templates', 'broadcasts', 'contacts', 'usage', 'billing'];
const NEWCOMER = 'newcomer@example.com';
const DOMAIN = 'newcomer.test';
const PHONE = { width: 375, height: 740 };
const DESKTOP = { width: 1280, height: 900 };

let dns: RunningDns;
let dataDir: string;
let runtime: RuntimeProcess;
let staffToken: string;

beforeAll(async () => {
  dns = await startDnsServer({});
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-console-'));
  mkdirSync(shots, { recursive: true });
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: dns.server, ACCOUNT_EMAIL: 'owner@example.com', INBOUND_ENABLED: 'true' });
  staffToken = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string }).staff_token;
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

/** A JSON call from the test itself (not the browser), as a client that honours the limiter. */
async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<{ status: number; body: any; cookie?: string }> {
  const res = await admitted(
    () => fetch(`${runtime.url}${path}`, { method, headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, body: body === undefined ? undefined : JSON.stringify(body) }),
    `${method} ${path}`,
  );
  const text = await res.text();
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('__Host-postbox_session='))?.split(';')[0];
  return { status: res.status, body: text ? JSON.parse(text) : undefined, ...(cookie ? { cookie } : {}) };
}

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
  /** What the console sent to POST /v1/send (its body) and every Authorization header it sent. */
  const sent: { send: any[]; authorization: string[] } = { send: [], authorization: [] };
  const watch = (p: Page): Page => {
    p.on('console', (m) => m.type() === 'error' && errors.push(`${m.text()} @ ${m.location().url}`));
    p.on('pageerror', (e) => errors.push(String(e)));
    p.on('request', (r) => {
      if (r.headers().authorization) sent.authorization.push(r.url());
      if (r.method() === 'POST' && new URL(r.url()).pathname === '/v1/send') sent.send.push(r.postDataJSON());
    });
    return p;
  };
  const newPage = async (viewport = DESKTOP): Promise<{ context: BrowserContext; page: Page }> => {
    const context = await browser.newContext({ viewport });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: runtime.url });
    return { context, page: watch(await context.newPage()) };
  };
  const overflow = (p: Page): Promise<number> => p.evaluate(() => {
    const d = (globalThis as InPage).document.documentElement;
    return d.scrollWidth - d.clientWidth;
  });
  const focused = (p: Page): Promise<string> => p.evaluate(() => {
    const a = (globalThis as InPage).document.activeElement;
    return a.id || a.textContent.trim();
  });
  const status = async (p: Page): Promise<string> => (await p.textContent('#status')) ?? '';
  const shown = (p: Page, view: string) => p.waitForSelector(`[data-view="${view}"]:not([hidden])`);
  /** Shows a view as a link in the page would (a hash change, no reload), loading the page first when it is elsewhere. */
  const open = async (p: Page, view: string): Promise<void> => {
    const target = `${runtime.url}/#/${view}`;
    if (p.url().startsWith(`${runtime.url}/#`) && p.url() !== target) await p.evaluate((hash) => void ((globalThis as InPage).location.hash = hash), `#/${view}`);
    else await p.goto(target);
    await shown(p, view);
  };
  /** The page at phone and desktop width, kept as `<name>-375.png` and `<name>-1280.png`; the viewport is put back. */
  const shoot = async (p: Page, name: string): Promise<void> => {
    const before = p.viewportSize() ?? DESKTOP;
    for (const size of [PHONE, DESKTOP]) {
      await p.setViewportSize(size);
      await p.screenshot({ path: join(shots, `${name}-${size.width}.png`), fullPage: true });
    }
    await p.setViewportSize(before);
  };
  /** A request from the page's own script context, with the session's CSRF token unless `csrf: false`. */
  /**
   * A fetch made by the page itself, sent again while the account's per-second limiter refuses it
   * (429 rate_limit_exceeded): the console's own view loads share that budget, and the limiter is
   * not what these tests are about.
   */
  const fromPage = (p: Page, method: string, path: string, body: unknown, csrf = true): Promise<{ status: number; body: any }> =>
    waitFor(
      async () => {
        const res: { status: number; body: any } = await p.evaluate(async ({ method, path, body, csrf }) => {
          const session: InPage = await (await fetch('/v1/auth/session')).json();
          const headers: Record<string, string> = { 'content-type': 'application/json', ...(csrf ? { 'x-csrf-token': session.csrf_token } : {}) };
          const res = await fetch(path, { method, headers, body: JSON.stringify(body) });
          return { status: res.status, body: await res.json() };
        }, { method, path, body, csrf });
        return res.status === 429 && res.body?.error?.code === 'rate_limit_exceeded' ? undefined : res;
      },
      { what: `the rate limiter to admit the page's ${method} ${path}`, timeoutMs: 15_000, intervalMs: 250 },
    );
  const signInWithPassword = async (p: Page, email: string, password: string): Promise<void> => {
    await open(p, 'signin');
    await p.fill('#signin-email', email);
    await p.fill('#signin-password', password);
    await p.click('#signin-form button[type=submit]');
  };

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
  });
  afterAll(async () => {
    await browser?.close();
  });

  describe('signed out', () => {
    it('shows the sign-in form with labelled fields, the heading focused, links to sign-up, the code and OAuth', async () => {
      const { context, page } = await newPage();
      await page.goto(`${runtime.url}/`);
      await shown(page, 'signin');
      expect(await page.isHidden('#app')).toBe(true);
      expect(await focused(page)).toBe('h-signin');
      expect(await page.textContent('label[for=signin-email]')).toBe('Email');
      expect(await page.textContent('label[for=signin-password]')).toBe('Password');
      expect(await page.getAttribute('a:has-text("GitHub")', 'href')).toBe('/v1/auth/oauth/github/start');
      expect(await page.getAttribute('a:has-text("Google")', 'href')).toBe('/v1/auth/oauth/google/start');
      await page.click('a:has-text("Create an account")');
      await shown(page, 'signup');
      expect(await focused(page)).toBe('h-signup');
      expect(await page.$$eval('[data-view="signup"] input', (inputs) => inputs.map((i) => (i as InPage).labels.length))).toEqual([1, 1, 1]);
      expect(await page.getAttribute('#signup-password', 'minlength')).toBe(String(MIN_PASSWORD_LENGTH));
      expect(await page.getAttribute('#reset-password-new', 'minlength')).toBe(String(MIN_PASSWORD_LENGTH));
      await context.close();
    });

    it('moves the keyboard focus through the sign-in form in reading order, the focus ring visible on each stop', async () => {
      const { context, page } = await newPage();
      await open(page, 'signin');
      const order: string[] = [];
      const rings: string[] = [];
      for (let i = 0; i < 6; i += 1) {
        await page.keyboard.press('Tab');
        order.push(await focused(page));
        rings.push(await page.evaluate(() => (globalThis as InPage).getComputedStyle((globalThis as InPage).document.activeElement).outlineStyle));
      }
      expect(order).toEqual(['signin-email', 'signin-password', 'Sign in', 'GitHub', 'Google', 'Sign in with a code by email']);
      expect(rings).toEqual(Array(6).fill('solid'));
      await context.close();
    });

    it('fits 375 px without horizontal scroll, and keeps a screenshot of each signed-out view', async () => {
      const { context, page } = await newPage(PHONE);
      const overflows: Record<string, number> = {};
      for (const view of SIGNED_OUT) {
        await open(page, view);
        overflows[view] = await overflow(page);
        await shoot(page, `signed-out-${view}`);
      }
      expect(overflows).toEqual(Object.fromEntries(SIGNED_OUT.map((v) => [v, 0])));
      await context.close();
    });
  });

  describe('a newcomer', () => {
    let context: BrowserContext;
    let page: Page;
    let password = 'a long and unusual passphrase';
    let records: string[][] = [];

    beforeAll(async () => {
      ({ context, page } = await newPage());
    });
    afterAll(async () => context?.close());

    it('signs up in the browser and lands on the overview, in the sandbox, asked to verify the address', async () => {
      await open(page, 'signup');
      await page.fill('#signup-name', 'Newcomer');
      await page.fill('#signup-email', NEWCOMER);
      await page.fill('#signup-password', password);
      await page.click('#signup-form button[type=submit]');
      await shown(page, 'overview');
      await page.waitForSelector('#overview-steps li.next');

      expect(await focused(page)).toBe('h-overview');
      expect(await page.textContent('#who')).toBe(`${NEWCOMER} · Newcomer`);
      expect(await page.textContent('#overview-steps li.next')).toContain(`Verify your email address: open the link we mailed to ${NEWCOMER}.`);
      expect(await page.textContent('#overview-body .badge')).toMatch(/^Sandbox/);
      expect(await page.textContent('#overview-reputation')).toBe('Reputation, last 7 days: 0 sends, bounce rate 0.00%, complaint rate 0.00%.');
      expect(await page.textContent('#overview-test-mode')).toMatch(/^You are in test mode until you verify your email address/);
      expect(await status(page)).toBe('Account created. We emailed you a link to verify your address.');
      const [cookie] = await context.cookies();
      expect(cookie).toMatchObject({ name: '__Host-postbox_session', httpOnly: true, secure: true, sameSite: 'Lax', path: '/' });
      await shoot(page, 'newcomer-1-overview-unverified');
    });

    it('verifies the address by the link in the mail the SES emulator caught; the link works once', async () => {
      const text = await nextMailText(runtime.sesUrl, NEWCOMER, /^Confirm your email address$/);
      const link = /(\S+#\/verify-email\/\S+)/.exec(text)?.[1] ?? '';
      expect(link.startsWith(`${runtime.url}/#/verify-email/`)).toBe(true);

      await page.goto(link);
      await page.waitForSelector('#verify-result:has-text("Your address is verified.")');
      expect(page.url()).toBe(`${runtime.url}/#/verify-email`);
      expect(await page.isHidden('#app')).toBe(true);
      await shoot(page, 'newcomer-2-verified');
      await open(page, 'overview');
      await page.waitForSelector('#overview-steps li.done');
      expect(await page.textContent('#overview-steps li.next')).toContain('Register a sending domain.');
      expect(await page.$('#overview-test-mode')).toBeNull();

      await page.goto(link);
      await page.waitForSelector('#verify-result:has-text("This link is used, expired or unknown.")');
    });

    it('creates an API key: the secret shown once, with a copy button that copies it', async () => {
      await open(page, 'keys');
      await page.fill('#key-name', 'ci');
      await page.click('#key-form button[type=submit]');
      await page.waitForSelector('#key-secret .secret code');
      const secret = (await page.textContent('#key-secret code')) ?? '';
      await page.click('#key-secret button.copy');
      await page.waitForFunction(() => (globalThis as InPage).document.querySelector('#status').textContent.startsWith('Copied'));
      const copied = await page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText());
      await shoot(page, 'newcomer-3-key-created');
      const prefix = await page.textContent('#key-list tbody tr td:nth-child(2) code');

      expect(secret).toMatch(/^sk_test_/);
      expect(copied).toBe(secret);
      expect(secret.startsWith(prefix ?? '-')).toBe(true);
      expect(await page.getAttribute('#key-secret .secret', 'role')).toBe('alert');

      await open(page, 'overview');
      await open(page, 'keys');
      await page.waitForSelector('#key-list td:has-text("ci")');
      expect(await page.textContent('#key-secret')).toBe('');
      expect(await page.textContent('body')).not.toContain(secret);
    });

    it('registers a domain: its records with copy buttons, and its zone file to download', async () => {
      await open(page, 'domains');
      await page.fill('#domain-name', DOMAIN);
      await page.click('#domain-form button[type=submit]');
      await page.waitForSelector('#domain-detail:not([hidden]) #domain-records tbody tr');
      await page.waitForFunction(() => (globalThis as InPage).document.activeElement.id === 'domain-title');
      records = await page.$$eval('#domain-records tbody tr', (rows) => rows.map((r) => [...(r as InPage).cells].slice(0, 3).map((c: InPage) => c.textContent)));
      await page.click('#domain-records tbody tr:first-child button[aria-label$="value"]');
      await page.waitForFunction(() => (globalThis as InPage).document.querySelector('#status').textContent.startsWith('Copied'));
      const copied = await page.evaluate(() => (globalThis as InPage).navigator.clipboard.readText());
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('a:has-text("Download zone file")')]);
      const zone = readFileSync(await download.path(), 'utf8');
      await shoot(page, 'newcomer-4-domain-registered');

      expect(await page.textContent('#domain-title')).toBe(`${DOMAIN} (not verified yet)`);
      expect(records.map((r) => r[0])).toEqual(['CNAME', 'CNAME', 'CNAME', 'MX', 'TXT', 'TXT']);
      expect(await page.$$eval('#domain-records tbody button.copy', (b) => b.length)).toBe(records.length * 2);
      expect(copied).toBe(records[0]?.[2]);
      expect(download.suggestedFilename()).toBe(`${DOMAIN}.zone`);
      for (const [, name, value] of records) {
        expect(zone).toContain(`${name}.`);
        expect(zone).toContain(value?.split(' ').pop());
      }
    });

    it('sends a test message from the overview, from the shared sender to its own address, and sees its timeline', async () => {
      await open(page, 'overview');
      await page.waitForSelector('#test-send-from option', { state: 'attached' });
      expect(await page.inputValue('#test-send-to')).toBe(NEWCOMER);
      expect(await page.$$eval('#test-send-from option', (o) => o.map((x) => x.textContent))).toEqual(['The shared sender (sandbox)']);
      await page.click('#test-send-form button[type=submit]');
      await page.waitForSelector('#test-send-result a:has-text("Open its timeline")');
      await page.click('#test-send-result a');
      await page.waitForSelector('#message-detail:not([hidden])');
      expect(await focused(page)).toBe('message-title');
      const events = await waitFor(async () => {
        await page.click('#message-refresh');
        const types = await page.$$eval('#message-timeline li strong', (s) => s.map((x) => x.textContent));
        return types.includes('delivered') && types;
      }, { what: 'the timeline to show the delivery', timeoutMs: 20_000, intervalMs: 200 });
      await page.waitForSelector('#message-list td:has-text("delivered")');
      await shoot(page, 'newcomer-5-message-timeline');

      expect(events).toEqual(['sent', 'delivered']);
      expect(sent.send).toHaveLength(1);
      expect(sent.send[0]).toMatchObject({ channel: 'email', destination: { email: NEWCOMER }, idempotency_key: expect.stringMatching(/^console-test-/) });
      expect(sent.send[0].metadata).toBeUndefined();
      const mail = (await caughtMailTo(runtime.sesUrl, NEWCOMER)).filter((m) => m.subject === 'Hello from Postbox');
      expect(mail).toHaveLength(1);
    });

    it('verifies the domain once its records are on the DNS server, and the account leaves the sandbox', async () => {
      const zone = new Map<string, NameRecords>();
      for (const [type, name, value] of records as Array<[string, string, string]>) {
        const at = zone.get(name) ?? {};
        if (type === 'CNAME') at.cname = value;
        if (type === 'TXT') at.txt = [...(at.txt ?? []), value];
        if (type === 'MX') at.mx = [{ priority: Number(value.split(' ')[0]), exchange: value.split(' ')[1] ?? '' }];
        zone.set(name, at);
      }
      for (const [name, at] of zone) dns.publish(name, at);

      await open(page, 'domains');
      await page.click(`button[aria-label="Open ${DOMAIN}"]`);
      await page.click('button:has-text("Verify now")');
      await page.waitForSelector('#domain-verify p');
      expect(await page.textContent('#domain-verify'), 'the verification as the page shows it').toMatch(new RegExp(`^Verified: you can send from ${DOMAIN.replace('.', '\\.')}\\.`));
      await shoot(page, 'newcomer-6-domain-verified');
      await open(page, 'overview');
      await page.waitForSelector('#overview-body .badge.ok');
      await shoot(page, 'newcomer-7-overview-live');

      expect(await page.$$eval('#test-send-from option', (o) => o.map((x) => x.textContent))).toEqual([`test@${DOMAIN}`]);
      // Live, the way out of the sandbox is behind it: the next steps are a key to send with and a webhook.
      expect(await page.textContent('#overview-steps-title')).toBe('Next steps');
      expect(await page.textContent('[data-view="overview"]')).not.toContain('Leave the sandbox');
      expect(await page.$$eval('#overview-steps li a', (a) => a.map((x) => x.getAttribute('href')))).toEqual(['#/keys', '#/webhooks']);
    });

    it('draws every signed-in view at 375 px without horizontal scroll, its heading focused; a screenshot of each at 375 and 1280 px; the menu folds', async () => {
      await page.setViewportSize(PHONE);
      const overflows: Record<string, number> = {};
      const focus: Record<string, string> = {};
      const failures: Record<string, string> = {};
      const unlabelled: Record<string, string[]> = {};
      for (const view of SIGNED_IN) {
        await page.evaluate(() => void ((globalThis as InPage).document.querySelector('#status').className = ''));
        await open(page, view);
        await page.waitForLoadState('networkidle');
        overflows[view] = await overflow(page);
        focus[view] = await focused(page);
        failures[view] = (await page.isVisible('#status.error')) ? await status(page) : '';
        unlabelled[view] = await page.$$eval(`[data-view="${view}"] :is(input, select, textarea)`, (controls) =>
          controls.filter((c) => !(c as InPage).labels?.length && !(c as InPage).getAttribute('aria-label')).map((c) => (c as InPage).id || (c as InPage).name));
        await shoot(page, `signed-in-${view}`);
      }
      expect(overflows).toEqual(Object.fromEntries(SIGNED_IN.map((v) => [v, 0])));
      expect(focus).toEqual(Object.fromEntries(SIGNED_IN.map((v) => [v, `h-${v}`])));
      expect(failures).toEqual(Object.fromEntries(SIGNED_IN.map((v) => [v, ''])));
      expect(unlabelled).toEqual(Object.fromEntries(SIGNED_IN.map((v) => [v, []])));
      expect(await page.isHidden('#nav-list')).toBe(true);
      await page.click('#nav-toggle');
      expect(await page.isVisible('#nav-list')).toBe(true);
      expect(await page.isHidden('[data-staff]')).toBe(true);
      await page.setViewportSize(DESKTOP);
    });

    it('after navigating by the menu, the focus is on the view’s heading and Tab goes on into the view', async () => {
      const next: Record<string, string> = {};
      for (const [view, label] of [['keys', 'API keys'], ['domains', 'Domains'], ['messages', 'Messages']] as const) {
        await page.click(`nav a:has-text("${label}")`);
        await shown(page, view);
        expect(await focused(page)).toBe(`h-${view}`);
        await page.keyboard.press('Tab');
        next[view] = await focused(page);
      }
      expect(next).toEqual({ keys: 'key-name', domains: 'domain-name', messages: 'message-channel' });
    });

    it('refuses a state-changing fetch from the page without the CSRF header (403), and takes it with the header', async () => {
      const without = await fromPage(page, 'POST', '/v1/suppressions', { channel: 'email', recipient: 'nobody@example.com' }, false);
      const withHeader = await fromPage(page, 'POST', '/v1/suppressions', { channel: 'email', recipient: 'nobody@example.com' });
      expect(without.status).toBe(403);
      expect(without.body.error).toMatchObject({ code: 'forbidden', status: 403 });
      expect(withHeader.status).toBe(201);
    });

    it('shows a template’s markup-laden name as text, and previews its HTML with its inline style applied', async () => {
      const made = await fromPage(page, 'POST', '/v1/templates', { name: '<img src=x onerror=window.__pwned=1>', channel: 'email', subject: 'Hi {{name}}', body_html: '<p style="color: #b42318">Hello {{name}}</p>' });
      expect(made.status).toBe(201);
      await open(page, 'templates');
      await page.waitForSelector('#template-list td:has-text("<img src=x")');
      await page.click('#template-list button[aria-label^="Edit"]');
      await page.waitForFunction(() => (globalThis as InPage).document.querySelector('#template-name').value.startsWith('<img'));
      await page.fill('#template-vars', '{"name": "Ada"}');
      // The frame is same-origin (sandboxed without scripts), so the page's side reads it.
      await page.waitForFunction(() => {
        const p = (globalThis as InPage).document.querySelector('#template-preview').contentDocument?.querySelector('p');
        return p?.textContent === 'Hello Ada' && p.style.color !== '';
      });
      const color = await page.evaluate(() => {
        const doc = (globalThis as InPage).document.querySelector('#template-preview').contentDocument;
        return doc.defaultView.getComputedStyle(doc.querySelector('p')).color;
      });
      expect(color).toBe('rgb(180, 35, 24)');
      expect(await page.evaluate(() => (globalThis as InPage).__pwned)).toBeUndefined();
    });

    it('opens the Mail app at /mail signed in by the session alone: no key typed, none sent', async () => {
      const mail = watch(await context.newPage());
      await mail.goto(`${runtime.url}/mail`);
      await mail.waitForSelector('#app:not([hidden])');
      await mail.waitForSelector('#threads li.empty:has-text("No threads here.")');
      expect(await mail.isHidden('#signin')).toBe(true);
      expect(await mail.evaluate(() => (globalThis as InPage).sessionStorage.length)).toBe(0);
      await shoot(mail, 'mail-app-session');
      await mail.close();
      expect(sent.authorization).toEqual([]);
    });

    it('signs out, and back in with the password', async () => {
      await open(page, 'overview');
      await page.click('#signout');
      await shown(page, 'signin');
      expect(await status(page)).toBe('Signed out.');
      expect(await page.textContent('#who')).toBe('');
      // Signed out, the session read is a public request: the per-IP limiter may refuse it (429) after the page's own requests.
      expect((await pageSession(page)).status).toBe(401);

      await signInWithPassword(page, NEWCOMER, password);
      await shown(page, 'overview');
      expect(await status(page)).toBe('Signed in.');
      expect(await page.textContent('#who')).toBe(`${NEWCOMER} · Newcomer`);
    });

    it('says a wrong password, and an unknown address, in the same words', async () => {
      const { context: other, page: out } = await newPage();
      await signInWithPassword(out, NEWCOMER, 'not the password at all');
      await out.waitForSelector('#status.error');
      const wrong = await status(out);
      await shoot(out, 'signin-wrong-password');
      await out.evaluate(() => {
        const line = (globalThis as InPage).document.querySelector('#status');
        line.textContent = '';
        line.className = '';
      });
      await signInWithPassword(out, 'nobody@example.com', 'not the password at all');
      await out.waitForSelector('#status.error');

      expect(wrong).toBe('the email address or the password is wrong (unauthorized)');
      expect(await status(out)).toBe(wrong);
      expect(out.url()).toBe(`${runtime.url}/#/signin`);
      await other.close();
    });

    it('signs in with a code read from the caught mail', async () => {
      const { context: other, page: out } = await newPage();
      const before = await countMail(runtime.sesUrl, NEWCOMER, /^Your sign-in code/);
      await open(out, 'code');
      await out.fill('#code-email', NEWCOMER);
      await out.click('#code-request-form button[type=submit]');
      await out.waitForSelector('#code-form:not([hidden])');
      expect(await focused(out)).toBe('code-value');
      await shoot(out, 'signin-code-entry');
      const code = codeIn(await nextMailText(runtime.sesUrl, NEWCOMER, /^Your sign-in code/, before));
      await out.fill('#code-value', code);
      await out.click('#code-form button[type=submit]');
      await shown(out, 'overview');
      expect(await out.textContent('#who')).toBe(`${NEWCOMER} · Newcomer`);
      await other.close();
    });

    it('resets the password through the mailed link; the old session is gone and the old password refused', async () => {
      const { context: other, page: out } = await newPage();
      const before = await countMail(runtime.sesUrl, NEWCOMER, /^Reset your password$/);
      await open(out, 'forgot');
      await out.fill('#forgot-email', NEWCOMER);
      await out.click('#forgot-form button[type=submit]');
      await out.waitForFunction(() => (globalThis as InPage).document.querySelector('#status').textContent.includes('reset link is on its way'));
      const link = /(\S+#\/reset-password\/\S+)/.exec(await nextMailText(runtime.sesUrl, NEWCOMER, /^Reset your password$/, before))?.[1] ?? '';
      await out.goto(link);
      await shown(out, 'reset-password');
      expect(out.url()).toBe(`${runtime.url}/#/reset-password`);
      const old = password;
      password = 'another long and unusual passphrase';
      await out.fill('#reset-password-new', password);
      await out.click('#reset-form button[type=submit]');
      await shown(out, 'signin');
      expect(await status(out)).toBe('Password changed. Sign in with it.');

      // The newcomer's first browser: its session ended with the reset, so the keys view, shown
      // for a moment, loads nothing and hands over to the sign-in.
      await page.evaluate(() => void ((globalThis as InPage).location.hash = '#/keys'));
      await shown(page, 'signin');
      expect(await status(page)).toBe('Your session ended. Sign in again. (unauthorized)');
      await signInWithPassword(out, NEWCOMER, old);
      await out.waitForSelector('#status.error');
      await signInWithPassword(page, NEWCOMER, password);
      await shown(page, 'overview');
      await other.close();
    });

    it('is suspended by a staff user from the Accounts view, looked up by email; its session then shows account_suspended plainly', async () => {
      // A second person, verified, made staff with the deployment's staff token.
      const staff = { email: 'staff@example.com', password: 'staff keep the lights on' };
      const before = await countMail(runtime.sesUrl, staff.email, /^Confirm your email address$/);
      expect((await call('POST', '/v1/auth/signup', staff)).status).toBe(201);
      const token = /#\/verify-email\/(\w+)/.exec(await nextMailText(runtime.sesUrl, staff.email, /^Confirm your email address$/, before))?.[1];
      expect((await call('POST', '/v1/auth/verify-email', { token })).status).toBe(200);
      const role = await call('POST', '/v1/admin/users/role', { email: staff.email, role: 'staff' }, { authorization: `Bearer ${staffToken}` });
      expect(role).toMatchObject({ status: 200, body: { email: staff.email, role: 'staff' } });

      const { context: other, page: desk } = await newPage();
      await signInWithPassword(desk, staff.email, staff.password);
      await shown(desk, 'overview');
      expect(await desk.isVisible('nav a:has-text("Accounts")')).toBe(true);
      await desk.click('nav a:has-text("Accounts")');
      await shown(desk, 'accounts');
      expect(await focused(desk)).toBe('h-accounts');
      await desk.fill('#account-email', NEWCOMER);
      await desk.click('#account-lookup button[type=submit]');
      await desk.waitForFunction((email) => {
        const rows = [...(globalThis as InPage).document.querySelectorAll('#account-list tbody tr')];
        return rows.length === 1 && rows[0].textContent.includes(email);
      }, NEWCOMER);
      desk.once('dialog', (d) => void d.accept());
      await desk.click('button[aria-label="Suspend Newcomer"]');
      await desk.waitForSelector('#account-list td:has-text("suspended")');
      expect(await status(desk)).toBe('Suspended Newcomer.');
      await shoot(desk, 'staff-accounts');
      await desk.setViewportSize(PHONE);
      expect(await overflow(desk)).toBe(0);
      await other.close();

      await open(page, 'domains');
      await page.waitForSelector('#suspended:not([hidden])');
      expect(await page.textContent('#suspended')).toContain('This account is suspended');
      expect(await status(page)).toBe('this account is suspended; contact support (account_suspended)');
      await shoot(page, 'newcomer-8-suspended');
    });
  });

  it('logged no console error (a CSP violation is one)', () => {
    // The browser logs each refused request as a failed load: the signed-out session probes and
    // the refused sign-ins (401), the CSRF refusal and a suspended account's calls (403), the
    // verification link opened twice (400), and any 429 or 503 the page waited out.
    const expected = /status of (401|403|429|503) |status of 400 .*\/v1\/auth\/verify-email$/;
    expect(errors.filter((e) => !expected.test(e))).toEqual([]);
  });
});
