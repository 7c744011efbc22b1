// Recipient checks in the running service against a real DNS server on loopback, chosen with
// DNS_SERVERS as a deployment would.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDnsServer, type RunningDns } from '../support/dns-server';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';

let dns: RunningDns;
let dataDir: string;
let runtime: RuntimeProcess;
let key: string;

beforeAll(async () => {
  dns = await startDnsServer({ 'mail.test': { mx: [{ exchange: 'mx.mail.test', priority: 10 }] }, 'web.test': { a: ['192.0.2.10'] }, 'gone.test': 'nxdomain' });
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-dns-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: dns.server });
  // A test-mode key: sandbox recipient rules do not apply, so the DNS check is what decides.
  key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).test_admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('validates addresses and gates validate_recipient sends through the configured resolver', async () => {
  const mx = await api(runtime.url, 'POST', '/v1/validate', key, { email: 'Ada@Mail.test' });
  const aOnly = await api(runtime.url, 'POST', '/v1/validate', key, { email: 'ada@web.test' });
  const gone = await api(runtime.url, 'POST', '/v1/validate', key, { email: 'ada@gone.test' });
  const refused = await api(runtime.url, 'POST', '/v1/send', key, {
    channel: 'email',
    idempotency_key: 'dns-1',
    validate_recipient: true,
    destination: { email: 'ada@gone.test' },
    payload: { subject: 's', body_text: 't' },
  });
  const accepted = await api(runtime.url, 'POST', '/v1/send', key, {
    channel: 'email',
    idempotency_key: 'dns-2',
    validate_recipient: true,
    destination: { email: 'ada@mail.test' },
    payload: { subject: 's', body_text: 't' },
  });

  expect(mx.body).toEqual({ email: 'ada@mail.test', valid: true, reason: '' });
  expect(aOnly.body).toEqual({ email: 'ada@web.test', valid: true, reason: '' });
  expect(gone.body).toEqual({ email: 'ada@gone.test', valid: false, reason: 'no_mail_records' });
  expect(refused.status).toBe(422);
  expect(refused.body.error.code).toBe('recipient_undeliverable');
  expect(accepted.status).toBe(201);
  expect(dns.queries.map((q) => q.name)).toContain('gone.test');
});
