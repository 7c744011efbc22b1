// Webhooks from the running service to a real receiver, checked with the verifier the README
// gives users (the README's own code block, run as written).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let receiver: Receiver;
let key: string;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-webhooks-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, WEBHOOK_ALLOW_PRIVATE: 'true' });
  key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).test_admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The README's verification snippet, saved as a module and imported. */
async function readmeVerifier(): Promise<(raw: string, headers: Record<string, unknown>, secret: string) => boolean> {
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const block = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(readme)?.[1];
  if (!block) throw new Error('README has no verification snippet');
  const file = join(dataDir, 'verify.mjs');
  writeFileSync(file, block);
  return ((await import(pathToFileURL(file).href)) as { verify: (raw: string, headers: Record<string, unknown>, secret: string) => boolean }).verify;
}

it('delivers signed events for a send to the subscribed endpoint', async () => {
  const sub = await api(runtime.url, 'POST', '/v1/webhooks', key, { endpoint_url: `${receiver.url}/hooks` });
  const sent = await api(runtime.url, 'POST', '/v1/send', key, {
    channel: 'email',
    idempotency_key: 'e2e-webhook-1',
    destination: { email: 'delivered@example.com' },
    payload: { subject: 'hook me', body_text: 'hi' },
  });

  await receiver.waitFor(2, 20_000);
  const verify = await readmeVerifier();

  expect(sub.status).toBe(201);
  expect(sent.status).toBe(201);
  const events = receiver.requests.map((r) => JSON.parse(r.body.toString('utf8')));
  expect(events.map((e) => e.event_type).sort()).toEqual(['delivered', 'sent']);
  expect(events.every((e) => e.message_id === sent.body.id)).toBe(true);
  for (const request of receiver.requests) {
    expect(verify(request.body.toString('utf8'), request.headers, sub.body.signing_secret)).toBe(true);
    expect(verify(request.body.toString('utf8'), request.headers, 'f'.repeat(64))).toBe(false);
  }
  // The receiver answers before the worker records the attempt, so the log settles a moment later.
  let statuses: string[] = [];
  await waitFor(
    async () => {
      const log = await api(runtime.url, 'GET', `/v1/webhooks/${sub.body.id}/deliveries`, key);
      statuses = log.body.deliveries.map((d: { status: string }) => d.status);
      return statuses.length === 2 && statuses.every((s) => s !== 'pending');
    },
    { what: () => `both deliveries to settle (last seen: ${JSON.stringify(statuses)})` },
  );
  expect(statuses).toEqual(['succeeded', 'succeeded']);
});
