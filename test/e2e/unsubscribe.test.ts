// One-click unsubscribe through the whole local runtime (`npm start` in its own process): a
// marketing send reaches the SES emulator with its List-Unsubscribe headers (a transactional one
// without), and the https link in them, opened as a mail client and a browser would, unsubscribes.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { mailWithSubject, type CaughtMail } from '../support/caught-mail';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let live: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-unsub-'));
  // ada@example.com is the account's own address: the one recipient live mail may reach in sandbox mode.
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, QUEUE_RETRY_DELAY_SECONDS: '1', ACCOUNT_EMAIL: 'ada@example.com' });
  live = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});



const send = (subject: string, messageType: 'marketing' | 'transactional') =>
  api(runtime.url, 'POST', '/v1/send', live, {
    channel: 'email',
    idempotency_key: `e2e-${subject}`,
    message_type: messageType,
    destination: { email: 'ada@example.com' },
    payload: { subject, body_html: '<p>Hi</p>', body_text: 'Hi' },
  });

const header = (mail: CaughtMail, name: string) => mail.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;

describe('the unsubscribe link of a marketing message', () => {
  it('arrives in the List-Unsubscribe headers of the mailed message, and unsubscribes in one click', async () => {
    // Prepare: a marketing and a transactional message, mailed.
    const marketing = await send('monthly news', 'marketing');
    const receipt = await send('your receipt', 'transactional');
    expect([marketing.status, receipt.status]).toEqual([201, 201]);
    const newsMail = await mailWithSubject(runtime.sesUrl, 'monthly news');
    const receiptMail = await mailWithSubject(runtime.sesUrl, 'your receipt');
    const link = /<(http:\/\/[^>]+\/v1\/unsubscribe\/[^>]+)>/.exec(header(newsMail, 'List-Unsubscribe') ?? '')?.[1];

    // Act: a browser opens the link; a mail client posts RFC 8058's body to it.
    const page = await fetch(link!, { headers: { accept: 'text/html' } });
    const pageText = await page.text();
    const before = await api(runtime.url, 'GET', '/v1/suppressions', live);
    const posted = await fetch(link!, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'List-Unsubscribe=One-Click' });
    const answer = await posted.json();
    const after = await api(runtime.url, 'GET', '/v1/suppressions', live);
    const message = await api(runtime.url, 'GET', `/v1/messages/${marketing.body.id}`, live);

    // Assess
    expect(link!.startsWith(`${runtime.url}/v1/unsubscribe/`)).toBe(true);
    expect(header(newsMail, 'List-Unsubscribe')).toMatch(/^<http:\/\/[^>]+>, <mailto:unsub\+[0-9a-z.]+@[^>]+>$/);
    expect(header(newsMail, 'List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    expect(header(receiptMail, 'List-Unsubscribe')).toBeUndefined();
    expect(header(receiptMail, 'List-Unsubscribe-Post')).toBeUndefined();
    expect(page.status).toBe(200);
    expect(pageText).toContain('<form method="post">');
    expect(before.body.suppressions).toEqual([]);
    expect(posted.status).toBe(200);
    expect(answer).toEqual({ channel: 'email', recipient: 'ada@example.com', unsubscribed: true });
    expect(after.body.suppressions).toEqual([expect.objectContaining({ channel: 'email', recipient: 'ada@example.com', state: 'unsubscribed' })]);
    expect(message.body.events.map((e: { type: string }) => e.type)).toContain('unsubscribed');
  });
});
