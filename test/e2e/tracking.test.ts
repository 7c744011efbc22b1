// Open and click tracking through the whole local runtime (`npm start` in its own process), as
// on a laptop: a tracked send reaches the SES emulator with its links rewritten and the pixel
// added; fetching the pixel and following a link, as a mail client would, moves the message to
// opened then clicked on GET /v1/messages/{id}, and both events reach a subscribed endpoint.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { mailWithSubject } from '../support/caught-mail';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let receiver: Receiver;
let live: string;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-tracking-'));
  // ada@example.com is the account's own address: the one recipient live mail may reach in sandbox mode.
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, QUEUE_RETRY_DELAY_SECONDS: '1', ACCOUNT_EMAIL: 'ada@example.com', WEBHOOK_ALLOW_PRIVATE: 'true' });
  live = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});



const statusBecomes = (id: string, status: string) =>
  waitFor(
    async () => {
      const message = await api(runtime.url, 'GET', `/v1/messages/${id}`, live);
      return message.body.status === status ? message.body : undefined;
    },
    { what: () => `message ${id} ${status}`, timeoutMs: 20_000, intervalMs: 200 },
  );

it('tracks an opened and clicked message on a laptop: timeline, status and webhooks', async () => {
  // Prepare: a subscription to opens and clicks, and a tracked message, mailed and delivered.
  const sub = await api(runtime.url, 'POST', '/v1/webhooks', live, { endpoint_url: `${receiver.url}/hooks`, event_types: ['opened', 'clicked'] });
  const sent = await api(runtime.url, 'POST', '/v1/send', live, {
    channel: 'email',
    idempotency_key: 'e2e-tracked',
    destination: { email: 'ada@example.com' },
    payload: { subject: 'tracked news', body_html: '<p>See <a href="https://example.com/landing?x=1&amp;y=2">the offer</a></p>', body_text: 'See https://example.com/landing' },
    tracking: { opens: true, clicks: true },
  });
  const mail = await mailWithSubject(runtime.sesUrl, 'tracked news');
  const delivered = await statusBecomes(sent.body.id, 'delivered');
  // The emulator reports the delivery as made a second after the handoff (SES's processing time):
  // an open is read after it once that time has passed, as a real one always is.
  const deliveredAt = Date.parse(delivered.events.find((e: { type: string }) => e.type === 'delivered').occurred_at);
  await waitFor(async () => Date.now() > deliveredAt || undefined, { what: () => 'the delivery time to pass', timeoutMs: 5_000, intervalMs: 50 });
  const link = /href="([^"]+)"/.exec(mail.body?.html ?? '')?.[1]?.replace(/&amp;/g, '&');
  const pixel = /<img src="([^"]+)"/.exec(mail.body?.html ?? '')?.[1];

  // Act: the mail client loads the pixel, then the reader follows the link.
  const image = await fetch(pixel!, { headers: { 'user-agent': 'E2E-Mail/1.0' } });
  const imageBytes = Buffer.from(await image.arrayBuffer());
  const opened = await statusBecomes(sent.body.id, 'opened');
  const click = await fetch(link!, { redirect: 'manual', headers: { 'user-agent': 'E2E-Browser/1.0' } });
  const clicked = await statusBecomes(sent.body.id, 'clicked');
  await receiver.waitFor(2, 20_000);

  // Assess
  expect([sub.status, sent.status]).toEqual([201, 201]);
  expect(pixel!.startsWith(`${runtime.url}/v1/t/o/`)).toBe(true);
  expect(link!.startsWith(`${runtime.url}/v1/t/c/`)).toBe(true);
  expect(mail.body?.text).toBe('See https://example.com/landing');
  expect(image.status).toBe(200);
  expect(image.headers.get('content-type')).toBe('image/gif');
  expect(image.headers.get('cache-control')).toBe('no-store, max-age=0');
  expect(imageBytes.subarray(0, 6).toString('latin1')).toBe('GIF89a');
  expect(opened.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'delivered', 'opened']);
  expect(click.status).toBe(302);
  expect(click.headers.get('location')).toBe('https://example.com/landing?x=1&y=2');
  expect(clicked.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'delivered', 'opened', 'clicked']);
  expect(clicked.events[3].payload).toMatchObject({ notificationType: 'Click', click: { link: 'https://example.com/landing?x=1&y=2', userAgent: 'E2E-Browser/1.0' } });
  const hooks = receiver.requests.map((r) => JSON.parse(r.body.toString('utf8')));
  expect(hooks.map((h) => h.event_type).sort()).toEqual(['clicked', 'opened']);
  expect(hooks.every((h) => h.message_id === sent.body.id)).toBe(true);
});
