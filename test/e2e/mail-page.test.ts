// The Mail app's web page at GET /mail, served by the local runtime started as a process. Its
// headers in plain HTTP; then, in a real headless Chromium (Debian's /usr/bin/chromium, driven by
// playwright-core), a person signs in with a key, reads a thread, stars, labels and moves it,
// replies, searches, uses the keyboard, and sees a message's HTML sanitized in a sandboxed frame
// whose script never runs and whose remote image loads only when asked. Mail arrives as a sender's
// MTA would bring it: real SMTP to the runtime's listener, for a domain verified against a DNS
// server on loopback. Nothing the page asks for leaves its origin but the one remote image, once
// asked for, from an image server of the test's own on loopback.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';
import type { DnsRecord } from '../../shared/domains/model';
import { startDnsServer, type RunningDns } from '../support/dns-server';
import { admitted, api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { needsTool, whereOnPath } from '../support/system-tools';
import { waitFor } from '../support/wait';

// The page's side of page.evaluate (serialized into the page; the project's TypeScript has no DOM library).
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type InPage = any;

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');
const DOMAIN = 'mailpage.test';
const INBOX = `hello@${DOMAIN}`;
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');
const routeExists = (method: string, path: string): boolean => httpRoutes().some((r) => r.method === method && r.path === path);
const hasReply = routeExists('POST', '/v1/mail/threads/{id}/reply');
const hasSearch = routeExists('GET', '/v1/mail/search');
const hasCompose = routeExists('POST', '/v1/mail/compose');
const hasForward = routeExists('POST', '/v1/mail/threads/{id}/forward');

let dataDir: string;
let shotsDir: string;
let dns: RunningDns;
let runtime: RuntimeProcess;
let key: string;
/** The "remote" image's server (another origin, on loopback) and the requests it got. */
let images: Server;
let imageUrl: string;
const origin = (): string => new URL(imageUrl).origin;
const imageHits: string[] = [];

async function deliver(subject: string, parts: { from: string; text: string; html?: string }): Promise<void> {
  const transport = createTransport({ host: '127.0.0.1', port: Number(new URL(runtime.smtpUrl ?? '').port), secure: false, ignoreTLS: true, name: 'mx.sender.test' });
  try {
    await transport.sendMail({ from: parts.from, to: INBOX, subject, text: parts.text, ...(parts.html ? { html: parts.html } : {}) });
  } finally {
    transport.close();
  }
}

/** The thread summaries of a folder, read through the API beside the page. */
async function threads(folder = 'inbox'): Promise<Array<{ id: string; subject: string; has_unread: boolean; is_starred: boolean; labels: string[]; folder: string }>> {
  const res = await api(runtime.url, 'GET', `/v1/mail/threads?folder=${folder}`, key);
  expect(res.status).toBe(200);
  return res.body.threads;
}

beforeAll(async () => {
  dns = await startDnsServer({});
  images = createServer((req, res) => {
    imageHits.push(req.url ?? '');
    res.writeHead(200, { 'content-type': 'image/gif' }).end(PIXEL);
  });
  await new Promise<void>((ok) => images.listen(0, '127.0.0.1', () => ok()));
  imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/pixel.gif`;
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-mail-page-'));
  shotsDir = mkdtempSync(join(tmpdir(), 'postbox-mail-page-shots-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: dns.server, ACCOUNT_EMAIL: 'owner@example.com', INBOUND_ENABLED: 'true' });
  key = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string }).admin_key;

  // A domain verified against the DNS server, then inbound on, as a person would do it.
  const created = await api(runtime.url, 'POST', '/v1/domains', key, { domain: DOMAIN });
  expect(created.status).toBe(201);
  for (const r of created.body.dns_records as DnsRecord[]) if (r.type === 'CNAME') dns.publish(r.name, { cname: r.value });
  dns.publish(`send.${DOMAIN}`, { txt: ['v=spf1 include:amazonses.com ~all'] });
  dns.publish(`_dmarc.${DOMAIN}`, { txt: ['v=DMARC1; p=none'] });
  expect((await api(runtime.url, 'POST', `/v1/domains/${DOMAIN}/verify`, key)).body.fully_verified).toBe(true);
  expect((await api(runtime.url, 'POST', `/v1/domains/${DOMAIN}/inbound`, key, { enabled: true })).status).toBe(200);
  for (const local_part of ['hello', 'sales']) expect((await api(runtime.url, 'POST', '/v1/mail/inboxes', key, { domain: DOMAIN, local_part })).status).toBe(201);

  await deliver('Quarterly report', { from: 'alice@sender.test', text: 'The numbers are in.\nSee you Monday.' });
  await deliver('Newsletter with pictures', {
    from: 'news@sender.test',
    text: 'Our news, in plain text.',
    html:
      '<p onclick="window.__clicked = 1">Our <b>news</b>.</p><script>window.__pwned = 1; console.error("script ran")</script>' +
      `<img src="${imageUrl}" alt="pixel"><a href=" javascript:window.__pwned = 2">click</a><iframe src="${origin()}/iframe"></iframe>` +
      // Every other way to run or fetch something, each pointing at the image server under its own path.
      `<img src="x" onerror="window.__pwned = 3"><svg onload="window.__pwned = 4"><image href="${origin()}/svg"/></svg>` +
      `<style>@import url(${origin()}/import.css);</style><div style="background: url(${origin()}/background.gif)">styled</div>` +
      `<meta http-equiv="refresh" content="0; url=${origin()}/refresh"><base href="${origin()}/base/"><form action="${origin()}/form"><input name="q"></form>` +
      `<object data="${origin()}/object"></object><embed src="${origin()}/embed"><link rel="stylesheet" href="${origin()}/link.css"><video poster="${origin()}/poster.gif"></video>`,
  });
  await deliver('Lunch on Friday', { from: 'bob@other.test', text: 'Shall we meet at noon?' });
  await waitFor(async () => (await threads()).length === 3, { what: 'three threads in the inbox', timeoutMs: 30_000, intervalMs: 200 });
}, 120_000);

afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
  await new Promise<void>((ok) => (images ? images.close(() => ok()) : ok()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  if (shotsDir) rmSync(shotsDir, { recursive: true, force: true });
});

describe('the page over plain HTTP', () => {
  it('GET /mail: HTML under a strict policy (its one script by hash), never framed nor sniffed, revalidated; HEAD alike without a body', async () => {
    const get = await admitted(() => fetch(`${runtime.url}/mail`), 'GET /mail');
    const head = await admitted(() => fetch(`${runtime.url}/mail`, { method: 'HEAD' }), 'HEAD /mail');
    const body = await get.text();
    const policy = get.headers.get('content-security-policy') ?? '';
    const scripts = [...body.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)];

    expect(get.status).toBe(200);
    expect(get.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(body).toMatch(/^<!doctype html>/i);
    expect(policy.split('; ')).toEqual(
      expect.arrayContaining(["default-src 'none'", "connect-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "form-action 'none'"]),
    );
    expect(policy).not.toMatch(/script-src[^;]*('unsafe-inline'|'unsafe-eval'|'self'|https?:|\*)/);
    expect(scripts).toHaveLength(1);
    expect(scripts[0]![1]!.trim()).toBe('type="module"');
    expect(policy).toContain(`script-src 'sha256-${createHash('sha256').update(scripts[0]![2]!).digest('base64')}'`);
    expect(get.headers.get('x-frame-options')).toBe('DENY');
    expect(get.headers.get('x-content-type-options')).toBe('nosniff');
    expect(get.headers.get('cache-control')).toBe('no-cache');
    expect(get.headers.get('referrer-policy')).toBe('no-referrer');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(head.headers.get('content-security-policy')).toBe(policy);
    expect(head.headers.get('content-length')).toBe(String(Buffer.byteLength(body)));
  });

  it('the page asks for nothing on another host and has no inline event handler', async () => {
    const html = await (await admitted(() => fetch(`${runtime.url}/mail`), 'GET /mail')).text();
    const markup = html.replace(/<script\b[^>]*>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '');
    expect(markup).not.toMatch(/(src|href)="(?!data:|#)/);
    expect(markup).not.toMatch(/\son[a-z]+=/);
  });

  it('refuses another method with 405 in the envelope, and a path under it with 404', async () => {
    const post = await admitted(() => fetch(`${runtime.url}/mail`, { method: 'POST' }), 'POST /mail');
    const unknown = await admitted(() => fetch(`${runtime.url}/mail/app.js`), 'GET /mail/app.js');
    expect(post.status).toBe(405);
    expect(post.headers.get('allow')).toContain('GET');
    expect(((await post.json()) as { error: unknown }).error).toMatchObject({ code: 'method_not_allowed', status: 405 });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: unknown }).error).toMatchObject({ code: 'not_found', status: 404 });
  });
});

chromium.describe(chromium.name('the Mail app in a browser'), () => {
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const errors: string[] = [];
  const requested: string[] = [];

  const watch = (p: Page): Page => {
    p.on('console', (message) => {
      if (message.type() === 'error') errors.push(`${message.text()} @ ${message.location().url}`);
    });
    p.on('pageerror', (error) => errors.push(String(error)));
    p.on('request', (request) => requested.push(request.url()));
    return p;
  };

  /** A fresh context: its own sessionStorage. */
  const newContext = (viewport: { width: number; height: number }): Promise<BrowserContext> => browser.newContext({ viewport });

  async function signIn(p: Page): Promise<void> {
    await p.goto(`${runtime.url}/mail`);
    await p.fill('#key', key);
    await p.click('#signin-form button[type=submit]');
    await p.waitForSelector('#threads li[data-thread]');
  }

  const listed = (p: Page): Promise<string[]> => p.$$eval('#threads li[data-thread] .subject', (nodes) => nodes.map((n) => n.textContent ?? ''));
  const status = (p: Page): Promise<string> => p.textContent('#status').then((t) => t ?? '');
  const threadOf = async (subject: string) => (await threads()).find((t) => t.subject === subject);

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
    context = await newContext({ width: 1280, height: 900 });
    page = watch(await context.newPage());
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('signs in with the key, kept in the tab’s session storage and never in a URL, and lists the inbox newest first', async () => {
    await signIn(page);

    expect(await listed(page)).toEqual(['Lunch on Friday', 'Newsletter with pictures', 'Quarterly report']);
    expect(await page.$$eval('#threads li.unread', (nodes) => nodes.length)).toBe(3);
    expect(await page.evaluate(() => (globalThis as InPage).sessionStorage.getItem('postbox.mail.key'))).toBe(key);
    expect(await page.evaluate(() => (globalThis as InPage).localStorage.length)).toBe(0);
    expect(await context.cookies()).toEqual([]);
    expect(requested.filter((url) => url.includes(key))).toEqual([]);
    expect(await page.getAttribute('#folders button[data-folder=inbox]', 'aria-current')).toBe('true');
  });

  it('narrows the list to one of the account’s addresses', async () => {
    await page.selectOption('#inbox-filter', { label: `sales@${DOMAIN}` });
    await page.waitForSelector('#threads li.empty:has-text("No threads here.")');
    await page.selectOption('#inbox-filter', { label: INBOX });
    await page.waitForSelector('#threads li[data-thread]');
    const narrowed = await listed(page);
    await page.selectOption('#inbox-filter', '');
    await page.waitForSelector('#threads li[data-thread]');

    expect(narrowed).toHaveLength(3);
    expect(requested.filter((url) => new URL(url).searchParams.has('inbox_id'))).toHaveLength(2);
  });

  it('opens a thread, which is then shown read, with its text as text', async () => {
    await page.click('#threads li[data-thread] button:has-text("Quarterly report")');
    await page.waitForSelector('#thread:not([hidden]) #messages section.message');

    expect(await page.textContent('#thread-title')).toBe('Quarterly report');
    expect(await page.textContent('#messages pre.text')).toBe('The numbers are in.\nSee you Monday.\n');
    expect(await page.$$eval('#threads li.unread .subject', (nodes) => nodes.map((n) => n.textContent))).toEqual(['Lunch on Friday', 'Newsletter with pictures']);
    expect((await threadOf('Quarterly report'))?.has_unread).toBe(false);
  });

  it('stars, labels (a label made on the page) and moves the open thread', async () => {
    await page.click('#star');
    await page.waitForSelector('#star[aria-pressed=true]');
    await page.fill('#label-name', 'Finance');
    await page.click('#label-form button[type=submit]');
    await page.waitForSelector('#labels li:has-text("Finance")');
    await page.selectOption('#add-label', 'Finance');
    await page.click('#label-add');
    await page.waitForSelector('#thread-labels li:has-text("Finance")');
    const labelled = await threadOf('Quarterly report');
    await page.selectOption('#move-to', 'archive');
    await page.click('#move');
    await page.waitForSelector('#threads:not(:has-text("Quarterly report"))');

    expect(labelled).toMatchObject({ is_starred: true, labels: ['Finance'] });
    expect(await status(page)).toBe('Moved to Archive.');
    expect(await listed(page)).toEqual(['Lunch on Friday', 'Newsletter with pictures']);
    expect((await threads('archive')).map((t) => [t.subject, t.folder])).toEqual([['Quarterly report', 'archive']]);
    await page.click('#folders button[data-folder=archive]');
    await page.waitForSelector('#threads li[data-thread] button:has-text("Quarterly report")');
    expect(await page.textContent('#threads li[data-thread]')).toContain('Finance');
    expect(await page.textContent('#threads li[data-thread]')).toContain('\u2605');
  });

  it('shows a message’s HTML sanitized in a sandboxed frame: its script never runs, remote images wait to be asked for', async () => {
    await page.click('#folders button[data-folder=inbox]');
    await page.click('#threads li[data-thread] button:has-text("Newsletter with pictures")');
    const frame = await page.waitForSelector('#messages iframe.html');
    const srcdoc = (await frame.getAttribute('srcdoc')) ?? '';
    const before = imageHits.length;
    const inside = await frame.contentFrame();

    expect(await frame.getAttribute('sandbox')).toBe('allow-popups allow-popups-to-escape-sandbox');
    expect(srcdoc).toContain('<b>news</b>');
    expect(srcdoc).not.toMatch(/<script|onclick|onerror|onload|javascript:|<iframe|<svg|<form|<object|<embed|<video|@import|url\(|refresh|<base/i);
    expect(srcdoc).not.toContain(origin());
    expect(await inside?.textContent('body')).toContain('Our news.');
    expect(await page.evaluate(() => typeof (globalThis as InPage).__pwned)).toBe('undefined');
    expect(before).toBe(0);
    expect(await page.textContent('.show-images')).toBe('Show 1 remote image');

    await page.click('.show-images');
    const shown = await page.waitForSelector('#messages iframe.html');
    // The frame's requests are its own (an opaque origin): the image server sees the one it makes.
    await waitFor(() => imageHits.length > 0, { what: 'the remote image asked for once shown', timeoutMs: 10_000, intervalMs: 50 });
    expect(await shown.getAttribute('srcdoc')).toContain(imageUrl);
    expect(imageHits).toEqual(['/pixel.gif']);
    expect(await page.$('.show-images')).toBeNull();
    expect(await page.evaluate(() => typeof (globalThis as InPage).__pwned)).toBe('undefined');
  });

  if (hasReply) {
    it('replies to the open thread; the reply joins it', async () => {
      await page.fill('#reply-body', 'Thanks, noted.');
      await page.click('#reply-form button[type=submit]');
      await page.waitForSelector('#messages section.message[data-source=outbound]');
      expect(await status(page)).toMatch(/^Reply sent/);
      expect(await page.textContent('#messages section.message[data-source=outbound] pre.text')).toContain('Thanks, noted.');
    });
  } else {
    it('says the API’s answer when the reply route is not there yet (this branch)', async () => {
      await page.fill('#reply-body', 'Thanks, noted.');
      await page.click('#reply-form button[type=submit]');
      await page.waitForSelector('#status.error');
      expect(await status(page)).toMatch(/\(not_found\)$/);
      expect(await page.inputValue('#reply-body')).toBe('Thanks, noted.');
      await page.fill('#reply-body', '');
    });
    it.todo('replies to the open thread; the reply joins it (needs POST /v1/mail/threads/{id}/reply, another slice of issue 17)');
  }

  if (hasForward) {
    it('forwards the open thread', async () => {
      await page.fill('#forward-to', 'colleague@example.com');
      await page.fill('#forward-body', 'FYI');
      await page.click('#forward-form button[type=submit]');
      await page.waitForSelector('#status:has-text("Forwarded to colleague@example.com")');
      expect(await page.inputValue('#forward-to')).toBe('');
    });
  } else {
    it.todo('forwards the open thread (needs POST /v1/mail/threads/{id}/forward, another slice of issue 17)');
  }

  if (hasCompose) {
    it('composes a new message', async () => {
      await page.click('#compose-open');
      await page.fill('#compose-to', 'someone@example.com');
      await page.fill('#compose-subject', 'Hello from the page');
      await page.fill('#compose-body', 'A first message.');
      await page.click('#compose-form button[type=submit]');
      await page.waitForSelector('#status:has-text("Message sent to someone@example.com")');
      expect(await page.isHidden('#compose')).toBe(true);
    });
  } else {
    it.todo('composes a new message (needs POST /v1/mail/compose, another slice of issue 17)');
  }

  if (hasSearch) {
    it('searches with an operator', async () => {
      await page.fill('#search', 'from:bob@other.test');
      await page.press('#search', 'Enter');
      await page.waitForSelector('#list-title:has-text("Search: from:bob@other.test")');
      await page.waitForSelector('#threads li[data-thread]');
      expect(await listed(page)).toEqual(['Lunch on Friday']);
    });
  } else {
    it('says the API’s answer when the search route is not there yet (this branch)', async () => {
      await page.fill('#search', 'from:bob@other.test');
      await page.press('#search', 'Enter');
      await page.waitForSelector('#status.error:has-text("not_found")');
      expect(await page.textContent('#list-title')).toBe('Inbox');
      await page.fill('#search', '');
    });
    it.todo('searches with an operator (needs GET /v1/mail/search, another slice of issue 17)');
  }

  it('moves through the list with j/k, opens with o, goes to the search box with /, archives with e', async () => {
    // The list left by the test before (a search) stays until the inbox's arrives: wait for the
    // inbox's own, which the page announces in the status line once it is drawn.
    await page.evaluate(() => void ((globalThis as InPage).document.querySelector('#status').textContent = ''));
    await page.click('#folders button[data-folder=inbox]');
    await page.waitForFunction(() => / in Inbox\.$/.test((globalThis as InPage).document.querySelector('#status').textContent));
    await page.waitForSelector('#threads li.selected');
    // Newest first: a reply (when the route is there) makes its thread the newest.
    const [top, next] = await listed(page);
    const titled = (subject: string) => page.waitForFunction((s) => (globalThis as InPage).document.querySelector('#thread-title').textContent === s, subject);
    await page.focus('#threads li.selected button');
    await page.keyboard.press('j');
    const second = await page.textContent('#threads li.selected .subject');
    await page.keyboard.press('k');
    const first = await page.textContent('#threads li.selected .subject');
    await page.keyboard.press('o');
    await titled(top!);
    await page.keyboard.press('j');
    await titled(next!);
    await page.keyboard.press('/');
    const focused = await page.evaluate(() => (globalThis as InPage).document.activeElement.id);
    await page.keyboard.press('Escape');
    await page.keyboard.press('k');
    await titled(top!);
    await page.keyboard.press('e');
    await page.waitForFunction((s) => !(globalThis as InPage).document.querySelector('#threads').textContent.includes(s), top!);

    expect(top && next && top !== next).toBe(true);
    expect([second, first, focused]).toEqual([next, top, 'search']);
    expect(await threadOf(top!)).toBeUndefined();
    expect((await threads('archive')).map((t) => t.subject).sort()).toEqual([top, 'Quarterly report'].sort());
  });

  it('at a phone’s 375px nothing overflows sideways, the list or a thread with its HTML frame', async () => {
    const phone = await newContext({ width: 375, height: 740 });
    const small = watch(await phone.newPage());
    await signIn(small);
    const overflow = () => (globalThis as InPage).document.documentElement.scrollWidth - (globalThis as InPage).document.documentElement.clientWidth;
    const listOverflow = await small.evaluate(overflow);
    await small.screenshot({ path: join(shotsDir, 'list-375.png'), fullPage: true });
    // Where the keys above left it: a reply (when the route is there) made it the newest, archived by e.
    const folder = (await threads('inbox')).some((t) => t.subject === 'Newsletter with pictures') ? 'inbox' : 'archive';
    await small.click(`#folders button[data-folder=${folder}]`);
    await small.click('#threads li[data-thread] button:has-text("Newsletter with pictures")');
    const frame = await small.waitForSelector('#messages iframe.html');
    await (await frame.contentFrame())?.waitForSelector('text=Our news');
    const threadOverflow = await small.evaluate(overflow);
    await small.screenshot({ path: join(shotsDir, 'thread-375.png'), fullPage: true });
    const columns = await small.evaluate(() => (globalThis as InPage).getComputedStyle((globalThis as InPage).document.querySelector('#app')).gridTemplateColumns.split(' ').length);
    await phone.close();

    expect([listOverflow, threadOverflow, columns]).toEqual([0, 0, 1]);
  });

  it('signs out: the key leaves the session storage and the sign-in form is back', async () => {
    await page.click('#signout');
    await page.waitForSelector('#signin:not([hidden])');
    expect(await page.evaluate(() => (globalThis as InPage).sessionStorage.length)).toBe(0);
    expect(await page.isHidden('#app')).toBe(true);
    await page.reload();
    expect(await page.isVisible('#signin')).toBe(true);
  });

  it('logged no console error (a CSP violation is one) and asked nothing outside its origin but the image it was told to show', () => {
    const origin = new URL(runtime.url).origin;
    // A 429 or 503 the page waited out (Retry-After) is logged by the browser as a failed load.
    // So is the 404 of a route another slice brings, asked for above while this branch lacks it.
    const absent = [...(hasReply ? [] : [/\/v1\/mail\/threads\/thr_\w+\/reply$/]), ...(hasSearch ? [] : [/\/v1\/mail\/search\?/])];
    // The page asks GET /v1/auth/session first (the console's session); signed out that is a 401
    // (404 while this branch lacks the auth routes).
    const probe = /status of (401|404) .*\/v1\/auth\/session$/;
    const expected = (e: string) => /^Failed to load resource: the server responded with a status of (429|503) /.test(e) || probe.test(e) || (/status of 404 /.test(e) && absent.some((path) => path.test(e)));
    expect(errors.filter((e) => !expected(e))).toEqual([]);
    // The image shown on request is the one outside request allowed; Playwright sees a sandboxed
    // frame's requests only sometimes, so it may or may not be listed here (the image server's own
    // count, below, is the check that it was asked for exactly once).
    expect(requested.filter((url) => !url.startsWith('data:') && new URL(url).origin !== origin && url !== imageUrl)).toEqual([]);
    expect(imageHits).toEqual(['/pixel.gif']);
    expect(requested.map((url) => new URL(url).pathname)).toEqual(expect.arrayContaining(['/mail', '/v1/mail/threads', '/v1/mail/labels', '/v1/mail/inboxes']));
  });
});
