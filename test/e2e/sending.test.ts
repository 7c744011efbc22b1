// Sending through the whole local pipeline: API → send queue → worker → SES emulator → simulated
// SES Delivery notification → events queue → ingest → timeline; plus scheduling and cancel.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let live: string;
let test: string;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-send-'));
  // ada@example.com is the account's own address: the one recipient live mail may reach in sandbox mode.
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, SCHEDULER_TICK_MS: '200', QUEUE_RETRY_DELAY_SECONDS: '1', ACCOUNT_EMAIL: 'ada@example.com' });
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
  live = bootstrap.admin_key;
  test = bootstrap.test_admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  rmSync(dataDir, { recursive: true, force: true });
});

/** The message once its status is `want`; fails naming the status it was left in. */
function messageReaching(id: string, want: string): Promise<any> {
  let last: string | undefined;
  return waitFor(
    async () => {
      const message = (await api(runtime.url, 'GET', `/v1/messages/${id}`, live)).body;
      last = message.status;
      return message.status === want && message;
    },
    { what: () => `message ${id} to be ${want} (last status: ${last})`, timeoutMs: 20_000, intervalMs: 200 },
  );
}

const email = (over: Record<string, unknown>) => ({
  channel: 'email',
  destination: { email: 'ada@example.com' },
  payload: { subject: 'Hello from e2e', body_html: '<p>Hi</p>', body_text: 'Hi' },
  ...over,
});

describe('a live send', () => {
  it('reaches the SES emulator and the timeline fills in: sent, then delivered from the SES notification', async () => {
    const res = await api(runtime.url, 'POST', '/v1/send', live, email({ idempotency_key: 'e2e-live' }));

    const message = await messageReaching(res.body.id, 'delivered');
    const mailbox = (await (await fetch(`${runtime.sesUrl}/store`)).json()) as any;

    expect(res.status).toBe(201);
    expect(message.status).toBe('delivered');
    expect(message.events.map((e: { type: string; source: string }) => [e.type, e.source])).toEqual([
      ['sent', 'worker'],
      ['delivered', 'sns'],
    ]);
    expect(message.events[1].payload).toMatchObject({ eventType: 'Delivery', mail: { messageId: message.provider_message_id } });
    expect(mailbox.emails).toEqual([expect.objectContaining({ messageId: message.provider_message_id, from: 'onboarding@sandbox.postbox.dev', subject: 'Hello from e2e' })]);
  });
});

describe('a test-mode send', () => {
  it('bounces bounced@ without reaching the emulator, and suppresses nothing live mail reads', async () => {
    const res = await api(runtime.url, 'POST', '/v1/send', test, email({ idempotency_key: 'e2e-bounce', destination: { email: 'bounced@example.com' } }));

    const message = await messageReaching(res.body.id, 'bounced');
    const again = await api(runtime.url, 'POST', '/v1/send', test, email({ idempotency_key: 'e2e-bounce-2', destination: { email: 'bounced@example.com' } }));
    const mailbox = (await (await fetch(`${runtime.sesUrl}/store`)).json()) as any;

    expect(message.events.map((e: { type: string }) => e.type)).toEqual(['sent', 'bounced']);
    expect(again.status).toBe(201);
    const suppressed = (await api(runtime.url, 'GET', '/v1/suppressions', live)).body.suppressions.map((s: { recipient: string }) => s.recipient);
    expect(suppressed).not.toContain('bounced@example.com');
    expect(mailbox.emails.map((m: { destination: { to: string[] } }) => m.destination.to[0])).not.toContain('bounced@example.com');
  });
});

describe('scheduled sends', () => {
  it('send when due, and a cancelled one never sends', async () => {
    // Due soon enough to watch it send, late enough that the cancel lands first even if the rate
    // limiter holds the three requests for up to a second.
    const at = new Date(Date.now() + 3000).toISOString();
    const kept = await api(runtime.url, 'POST', '/v1/send', live, email({ idempotency_key: 'e2e-sched-kept', scheduled_at: at, payload: { subject: 'kept', body_text: 'k' } }));
    const dropped = await api(runtime.url, 'POST', '/v1/send', live, email({ idempotency_key: 'e2e-sched-dropped', scheduled_at: at, payload: { subject: 'dropped', body_text: 'd' } }));

    const cancel = await api(runtime.url, 'POST', `/v1/messages/${dropped.body.id}/cancel`, live);
    const delivered = await messageReaching(kept.body.id, 'delivered');
    const after = (await api(runtime.url, 'GET', `/v1/messages/${dropped.body.id}`, live)).body;
    const subjects = ((await (await fetch(`${runtime.sesUrl}/store`)).json()) as any).emails.map((m: { subject: string }) => m.subject);

    expect(kept.body.status).toBe('scheduled');
    expect(cancel.body).toEqual({ id: dropped.body.id, status: 'canceled' });
    expect(delivered.status).toBe('delivered');
    expect(after.status).toBe('canceled');
    expect(after.events).toEqual([]);
    expect(subjects).toContain('kept');
    expect(subjects).not.toContain('dropped');
  });
});
