// The hosted sign-up page served by the local runtime, opened in a real headless Chromium (Debian's
// /usr/bin/chromium, driven by playwright-core) with JavaScript turned off: its accessibility
// basics (lang, a label for every input, the honeypot out of the accessibility tree), a sign-up by
// a plain form post, and the double opt-in link from the mail the SES emulator kept, confirmed by
// its button. No console error (a CSP violation is one) and no request outside the origin.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { needsTool, whereOnPath } from '../support/system-tools';
import { waitFor } from '../support/wait';

const chromium = needsTool('chromium', 'apt-get update && apt-get install -y chromium');

let dataDir: string;
let runtime: RuntimeProcess;
let key: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-form-page-'));
  // The confirmation mail obeys the sandbox: the address that confirms is the account's own.
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, ACCOUNT_EMAIL: 'confirm-me@example.com' });
  key = (JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string }).admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

async function makeForm(extra: Record<string, unknown>): Promise<{ id: string; listId: string; pageUrl: string }> {
  const list = await api(runtime.url, 'POST', '/v1/lists', key, { name: `page ${Math.random()}`, type: 'static' });
  expect(list.status).toBe(201);
  const fields = [
    { key: 'email', label: 'Email address' },
    { key: 'first_name', label: 'First name', required: true },
    { key: 'data.company', label: 'Company' },
  ];
  const form = await api(runtime.url, 'POST', '/v1/forms', key, { name: 'Newsletter', list_id: list.body.id, fields, ...extra });
  expect(form.status).toBe(201);
  return { id: form.body.id as string, listId: list.body.id as string, pageUrl: form.body.page_url as string };
}

const memberEmails = async (listId: string): Promise<string[]> =>
  ((await api(runtime.url, 'GET', `/v1/lists/${listId}/members`, key)).body.contacts as Array<{ email: string }>).map((c) => c.email);

chromium.describe(chromium.name('the hosted sign-up page in a browser without JavaScript'), () => {
  let browser: Browser;
  let context: BrowserContext;
  const errors: string[] = [];
  const requested: string[] = [];

  beforeAll(async () => {
    const { chromium: driver } = await import('playwright-core');
    browser = await driver.launch({ executablePath: whereOnPath('chromium') });
    context = await browser.newContext({ javaScriptEnabled: false });
  });
  afterAll(async () => {
    await context?.close();
    await browser?.close();
  });

  async function open(url: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(String(error)));
    page.on('request', (request) => requested.push(request.url()));
    const loaded = await page.goto(url);
    expect(loaded?.status()).toBe(200);
    return page;
  }

  it('has a language, a label for every input a person uses, and a honeypot outside the accessibility tree', async () => {
    const { pageUrl } = await makeForm({ language: 'en-GB' });
    const page = await open(pageUrl);

    expect(await page.getAttribute('html', 'lang')).toBe('en-GB');
    expect(await page.title()).toBe('Newsletter');
    // The inputs a person (and a screen reader) meets, each found by its label's text.
    const textboxes = page.getByRole('textbox');
    expect(await textboxes.count()).toBe(3);
    expect(await page.getByRole('textbox', { name: 'Email address (required)' }).getAttribute('name')).toBe('email');
    expect(await page.getByRole('textbox', { name: 'First name (required)' }).getAttribute('required')).toBe('');
    expect(await page.getByRole('textbox', { name: 'Company' }).getAttribute('name')).toBe('data.company');
    // Every input, the honeypot too, has a label bound to it; the honeypot is neither seen nor reachable.
    const unlabelled = await page.$$eval('input:not([type=hidden])', (inputs) => inputs.filter((i) => (i as unknown as { labels: { length: number } }).labels.length === 0).length);
    expect(unlabelled).toBe(0);
    expect(await page.locator('input[name=website]').isVisible()).toBe(false);
    expect(await page.getByRole('textbox', { name: 'Leave this empty' }).count()).toBe(0);
    expect(await page.getByRole('button', { name: 'Subscribe' }).count()).toBe(1);
    await page.close();
  });

  it('signs up by a plain form post and shows the thank-you page', async () => {
    const { pageUrl, listId } = await makeForm({ success_message: 'Thanks, you are in.' });
    const page = await open(pageUrl);

    await page.getByLabel('Email address').fill('reader@example.com');
    await page.getByLabel('First name').fill('Reader');
    await page.getByLabel('Company').fill('Acme');
    const [answer] = await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Subscribe' }).click()]);

    expect(answer?.status()).toBe(202);
    expect(await page.textContent('main')).toContain('Thanks, you are in.');
    expect(await memberEmails(listId)).toEqual(['reader@example.com']);
    await page.close();
  });

  it('with double opt-in, joins the list only once the mailed link\'s button is pressed', async () => {
    const { pageUrl, listId } = await makeForm({ double_opt_in: true });
    const page = await open(pageUrl);

    await page.getByLabel('Email address').fill('confirm-me@example.com');
    await page.getByLabel('First name').fill('Conf');
    await Promise.all([page.waitForNavigation(), page.getByRole('button', { name: 'Subscribe' }).click()]);
    expect(await page.textContent('main')).toContain('check your inbox');
    expect(await memberEmails(listId)).toEqual([]);

    const link = await waitFor(
      async () => /(https?:\/\/[^"\s\\]+\/v1\/forms\/confirm\?token=[0-9A-Za-z]{40})/.exec(readFileSync(join(dataDir, 'ses-mail.jsonl'), 'utf8'))?.[1],
      { what: 'the confirmation mail in the SES emulator', timeoutMs: 10_000, intervalMs: 100 },
    );
    const landing = await open(link);
    expect(await memberEmails(listId)).toEqual([]); // opening the link confirms nothing
    const [confirmed] = await Promise.all([landing.waitForNavigation(), landing.getByRole('button', { name: 'Confirm subscription' }).click()]);

    expect(confirmed?.status()).toBe(200);
    expect(await landing.textContent('main')).toContain('Subscription confirmed');
    expect(await memberEmails(listId)).toEqual(['confirm-me@example.com']);
    await landing.close();
    await page.close();
  });

  it('logged no console error and requested nothing outside its origin', () => {
    const origin = new URL(runtime.url).origin;
    expect(errors).toEqual([]);
    expect(requested.filter((url) => new URL(url).origin !== origin)).toEqual([]);
  });
});

