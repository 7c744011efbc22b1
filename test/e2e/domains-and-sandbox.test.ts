// Domains, sender rules and the sandbox against the running service, with DNS answers from a
// DNS server this test starts (DNS_SERVERS points the service at it).
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DnsRecord } from '../../shared/domains/model';
import { startDnsServer, type RunningDns } from '../support/dns-server';
import { admitted, api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';

let dns: RunningDns;
let dataDir: string;
let runtime: RuntimeProcess;
let key: string;
const call = (method: string, path: string, body?: unknown) => api(runtime.url, method, path, key, body);
let n = 0;
const send = (to: string, from?: string) =>
  call('POST', '/v1/send', {
    channel: 'email',
    idempotency_key: `e2e-dom-${++n}`,
    destination: { email: to },
    payload: { subject: `hello ${n}`, body_text: 'hi' },
    ...(from ? { metadata: { from_email: from } } : {}),
  });

async function mailTo(address: string): Promise<Array<{ subject: string; body: { text: string } }>> {
  const store = (await (await fetch(`${runtime.sesUrl}/store`)).json()) as { emails: Array<{ subject: string; body: { text: string }; destination: { to: string[] } }> };
  return store.emails.filter((e) => e.destination.to.includes(address));
}

beforeAll(async () => {
  dns = await startDnsServer({});
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-domains-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, DNS_SERVERS: dns.server, ACCOUNT_EMAIL: 'owner@example.com' });
  key = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).admin_key;
});
afterAll(async () => {
  await runtime?.stop();
  await dns?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

describe('in the sandbox', () => {
  it('sends from the shared sender to the account address only', async () => {
    const own = await send('owner@example.com');
    const stranger = await send('stranger@example.com');
    const ownFrom = await send('owner@example.com', 'me@acme.test');
    const deleteSandbox = await call('DELETE', '/v1/domains/sandbox.postbox.dev');

    expect(own.status).toBe(201);
    expect(stranger.body.error).toMatchObject({ code: 'recipient_not_verified', status: 403 });
    expect(ownFrom.body.error).toMatchObject({ code: 'no_verified_domain', status: 422 });
    expect(deleteSandbox.body.error).toMatchObject({ code: 'cannot_delete_sandbox', status: 422 });
  });

  it('verifies a test recipient through the emailed one-time link, then limits it to 10 sends a day', async () => {
    const created = await call('POST', '/v1/test-recipients', { email: 'Tester@Example.com' });
    const link = await waitFor(
      async () => /(https?:\/\/\S+verify\?token=[0-9A-Za-z]+)/.exec((await mailTo('tester@example.com'))[0]?.body.text ?? '')?.[1],
      { what: 'the confirmation mail with its link to reach tester@example.com' },
    );
    const before = await send('tester@example.com');
    const clicked = await admitted(() => fetch(link), 'the first click on the link');
    const again = await admitted(() => fetch(link), 'the second click on the link');
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) statuses.push((await send('tester@example.com')).status);

    expect(created.status).toBe(201);
    expect(before.body.error.code).toBe('recipient_not_verified');
    expect(clicked.status).toBe(200);
    expect(again.status).toBe(400);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('invalid_token');
    expect(statuses).toEqual([...Array(10).fill(201), 429]);
  });

  it('refuses a fourth test recipient', async () => {
    await call('POST', '/v1/test-recipients', { email: 'two@example.com' });
    await call('POST', '/v1/test-recipients', { email: 'three@example.com' });

    const fourth = await call('POST', '/v1/test-recipients', { email: 'four@example.com' });

    expect(fourth.body.error).toMatchObject({ code: 'too_many_test_recipients', status: 422 });
  });
});

describe('with a domain', () => {
  it('registers, publishes, verifies and then sends from it to anyone', async () => {
    const created = await call('POST', '/v1/domains', { domain: 'acme.test' });
    const pendingSend = await send('owner@example.com', 'hi@acme.test');
    for (const r of created.body.dns_records as DnsRecord[]) {
      if (r.type === 'CNAME') dns.publish(r.name, { cname: r.value });
    }
    dns.publish('send.acme.test', { txt: ['v=spf1 include:amazonses.com ~all'] });
    dns.publish('_dmarc.acme.test', { txt: ['v=DMARC1; p=none; rua=mailto:dmarc-reports@acme.test'] });
    const zone = await admitted(() => fetch(`${runtime.url}/v1/domains/acme.test/dns-setup/zonefile`, { headers: { authorization: `Bearer ${key}` } }), 'the zone file');
    const verified = await call('POST', '/v1/domains/acme.test/verify');
    await call('PUT', '/v1/domains/acme.test/from-name', { from_name: 'Acme' });
    const noFrom = await send('anyone@example.com');
    const foreign = await send('anyone@example.com', 'hi@other.test');
    const ok = await send('anyone@example.com', 'hi@acme.test');
    const readiness = await call('GET', '/v1/account/verification');

    expect(created.status).toBe(201);
    expect(pendingSend.body.error.code).toBe('domain_not_verified');
    expect(zone.headers.get('content-type')).toMatch(/^text\/plain/);
    expect((await zone.text()).trim().split('\n').filter((l) => !l.startsWith(';'))).toHaveLength(6);
    expect(verified.body.fully_verified).toBe(true);
    expect(noFrom.body.error.code).toBe('from_required');
    expect(foreign.body.error.code).toBe('from_not_verified');
    expect(ok.status).toBe(201);
    expect(readiness.body).toMatchObject({ sandbox_mode: false });
    await waitFor(async () => (await mailTo('anyone@example.com')).length > 0, { what: 'the mail from hi@acme.test to reach anyone@example.com' });
    const raw = (await (await fetch(`${runtime.sesUrl}/store`)).json()) as { emails: Array<{ from: string; destination: { to: string[] } }> };
    expect(raw.emails.find((e) => e.destination.to.includes('anyone@example.com'))?.from).toBe('Acme <hi@acme.test>');
  });
});

describe('BIMI uploads and the domain limit', () => {
  const upload = async (svg: Buffer | string) => {
    const res = await admitted(() => {
      const form = new FormData();
      form.append('file', new Blob([svg], { type: 'image/svg+xml' }), 'logo.svg');
      return fetch(`${runtime.url}/v1/domains/acme.test/bimi/logo`, { method: 'POST', headers: { authorization: `Bearer ${key}` }, body: form });
    }, 'the BIMI logo upload');
    return { status: res.status, body: (await res.json()) as any };
  };

  it('takes a multipart SVG logo through the local HTTP server, serves it, and refuses bad ones', async () => {
    const logo = readFileSync(new URL('../fixtures/bimi/valid-logo.svg', import.meta.url));

    const ok = await upload(logo);
    const served = await admitted(() => fetch(`${runtime.url}/v1/bimi/acme.test/logo.svg`), 'the served logo');
    const scripted = await upload(logo.toString('utf8').replace('<title>', '<script>alert(1)</script><title>'));
    const huge = await upload(Buffer.concat([logo, Buffer.alloc(1024 * 1024 + 1 - logo.length, 0x20)]));

    expect(ok.status).toBe(200);
    expect(ok.body.logo_url).toBe(`${runtime.url}/v1/bimi/acme.test/logo.svg`);
    expect(ok.body.record).toEqual({ type: 'TXT', name: 'default._bimi.acme.test', value: `v=BIMI1; l=${ok.body.logo_url}; a=` });
    expect(served.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
    expect(Buffer.from(await served.arrayBuffer()).equals(logo)).toBe(true);
    expect(scripted.status).toBe(400);
    expect(scripted.body.error.message).toMatch(/script/);
    expect(huge.status).toBe(413);
    expect(huge.body.error.code).toBe('payload_too_large');
  });

  it('refuses a domain past the 100th with 403 domain_limit_reached', async () => {
    const listed = (await call('GET', '/v1/domains')).body.domains.filter((d: { sandbox: boolean }) => !d.sandbox).length;
    for (let i = listed; i < 100; i++) {
      const res = await call('POST', '/v1/domains', { domain: `extra${i}.acme.test` });
      expect(res.status).toBe(201);
    }

    const over = await call('POST', '/v1/domains', { domain: 'one-too-many.test' });

    expect(over.status).toBe(403);
    expect(over.body.error.code).toBe('domain_limit_reached');
  });
});
