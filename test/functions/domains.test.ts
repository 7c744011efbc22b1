// Sending domains through the handlers, with DNS answers from a real DNS server on loopback.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CreatedAccount } from '../../shared/accounts/service';
import { NodeDns } from '../../shared/adapters/node-dns';
import { createAccount } from '../../shared/accounts/service';
import { keys } from '../../shared/db/keys';
import { createKey } from '../../shared/api-keys/service';
import type { DnsRecord } from '../../shared/domains/model';
import { call } from '../support/api';
import type { TestContainer } from '../support/container';
import { startDnsServer, startSilentDnsServer, type RunningDns } from '../support/dns-server';
import { useTestbed } from '../support/testbed';

let c: TestContainer;
let account: CreatedAccount;
let dns: RunningDns;
const bed = useTestbed({ sandbox: true });
beforeAll(async () => {
  dns = await startDnsServer({});
});
afterAll(async () => dns.close());
beforeEach(() => {
  ({ c, account } = bed);
  c.dns = new NodeDns([dns.server], 1000);
});

let n = 0;
// The store and the DNS server live as long as this file, so a counter keeps every name fresh.
const uniqueDomain = () => `brand${++n}.test`;
const admin = () => account.admin_key;
const register = (domain: string, key = admin()) => call({ method: 'POST', path: '/v1/domains', key, body: { domain } });
const verify = (domain: string, key = admin()) => call({ method: 'POST', path: `/v1/domains/${domain}/verify`, key });

/** Publishes a domain's records as asked on the test DNS server. */
function publish(records: DnsRecord[], change: (r: DnsRecord) => string | undefined = (r) => r.value): void {
  const txt = new Map<string, string[]>();
  for (const r of records) {
    const value = change(r);
    if (value === undefined) continue;
    if (r.type === 'CNAME') dns.publish(r.name, { cname: value });
    if (r.type === 'TXT') txt.set(r.name, [...(txt.get(r.name) ?? []), value]);
  }
  for (const [name, values] of txt) dns.publish(name, { txt: values });
}

describe('POST /v1/domains', () => {
  it('registers a domain with its 6 DNS records, all statuses pending', async () => {
    const domain = uniqueDomain();

    const res = await register(`  ${domain.toUpperCase()}. `);

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ id: expect.stringMatching(/^dom_/), domain, dkim_status: 'pending', spf_status: 'pending', dmarc_status: 'pending', txt_status: 'pending', mail_from_domain: `send.${domain}`, sandbox: false });
    const records: DnsRecord[] = res.body.dns_records;
    expect(records).toHaveLength(6);
    expect(records.filter((r) => r.type === 'CNAME').map((r) => r.name)).toEqual([expect.stringMatching(new RegExp(`^\\w+\\._domainkey\\.${domain}$`)), expect.any(String), expect.any(String)]);
    expect(records.filter((r) => r.type === 'CNAME').every((r) => r.value.endsWith('.dkim.amazonses.com'))).toBe(true);
    expect(records).toContainEqual({ type: 'MX', name: `send.${domain}`, value: '10 feedback-smtp.us-east-1.amazonses.com' });
    expect(records).toContainEqual({ type: 'TXT', name: `send.${domain}`, value: 'v=spf1 include:amazonses.com ~all' });
    expect(records).toContainEqual({ type: 'TXT', name: `_dmarc.${domain}`, value: `v=DMARC1; p=none; rua=mailto:dmarc-reports@${domain}` });
  });

  it('answers 409 when the domain is already registered, here or by another account', async () => {
    const domain = uniqueDomain();
    const other = await createAccount(c, {});
    await register(domain);

    const again = await register(domain);
    const elsewhere = await register(domain, other.admin_key);
    const sandbox = await register('sandbox.test');

    for (const res of [again, elsewhere, sandbox]) {
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe('conflict');
    }
  });

  it.each(['not a domain', 'localhost', '-bad.test', 'a..b.test', '1.2.3.4'])('refuses %j with 400', async (domain) => {
    const res = await register(domain);

    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^domain: /);
  });

  it('answers 403 domain_limit_reached at 100 domains, releasing the name', async () => {
    await c.store.update(keys.account(account.account_id), { expression: 'SET domain_count = :n', values: { ':n': 100 } });
    const domain = uniqueDomain();

    const res = await register(domain);
    const other = await createAccount(c, {});
    const retry = await register(domain, other.admin_key);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('domain_limit_reached');
    expect(retry.status).toBe(201);
  });

  it('needs an admin key to register, and a read key may list', async () => {
    const send = await createKey(c, account.account_id, { scope: 'send' }, { testMode: false });
    const read = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });

    const refused = await register(uniqueDomain(), send.key);
    const listed = await call({ method: 'GET', path: '/v1/domains', key: read.key });

    expect(refused.status).toBe(403);
    expect(listed.status).toBe(200);
  });
});

describe('GET, DELETE', () => {
  it('lists the sandbox domain first, then the account’s domains newest first', async () => {
    const first = uniqueDomain();
    const second = uniqueDomain();
    await register(first);
    c.clock.advance(10);
    await register(second);

    const res = await call({ method: 'GET', path: '/v1/domains', key: admin() });

    expect(res.body.domains.map((d: { domain: string }) => d.domain)).toEqual(['sandbox.test', second, first]);
    expect(res.body.domains[0]).toMatchObject({ sandbox: true, dkim_status: 'verified' });
  });

  it('gets one domain by name and 404s for another account’s', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const other = await createAccount(c, {});

    const mine = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: admin() });
    const theirs = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: other.admin_key });

    expect(mine.body.domain).toBe(domain);
    expect(theirs.status).toBe(404);
  });

  it('deletes a domain with its provider identity (204) and frees the name', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const removed = vi.spyOn(c.identities, 'remove');

    const res = await call({ method: 'DELETE', path: `/v1/domains/${domain}`, key: admin() });
    const gone = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: admin() });
    const again = await register(domain);

    expect(res.status).toBe(204);
    expect(removed).toHaveBeenCalledWith(domain);
    expect(gone.status).toBe(404);
    expect(again.status).toBe(201);
  });

  it('refuses to delete the sandbox domain (422) and another account’s domain (404)', async () => {
    const domain = uniqueDomain();
    const other = await createAccount(c, {});
    await register(domain, other.admin_key);

    const sandbox = await call({ method: 'DELETE', path: '/v1/domains/sandbox.test', key: admin() });
    const theirs = await call({ method: 'DELETE', path: `/v1/domains/${domain}`, key: admin() });

    expect(sandbox.status).toBe(422);
    expect(sandbox.body.error.code).toBe('cannot_delete_sandbox');
    expect(theirs.status).toBe(404);
  });
});

describe('POST /v1/domains/{domain}/verify', () => {
  it('moves every status to verified when the records are published', async () => {
    const domain = uniqueDomain();
    const created = await register(domain);
    publish(created.body.dns_records);

    const res = await verify(domain);
    const after = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: admin() });

    expect(res.status).toBe(200);
    expect(res.body.fully_verified).toBe(true);
    expect(res.body.results).toHaveLength(5);
    expect(res.body.results.map((r: { field: string }) => r.field)).toEqual(['dkim_status', 'dkim_status', 'dkim_status', 'spf_status', 'dmarc_status']);
    expect(res.body.results.every((r: { status: string }) => r.status === 'verified')).toBe(true);
    expect(after.body).toMatchObject({ dkim_status: 'verified', spf_status: 'verified', dmarc_status: 'verified', txt_status: 'verified' });
  });

  it('explains what is wrong with each record', async () => {
    const domain = uniqueDomain();
    const created = await register(domain);
    const records: DnsRecord[] = created.body.dns_records;
    const firstCname = records.find((r) => r.type === 'CNAME')?.name;
    publish(records, (r) => {
      if (r.name === firstCname) return 'elsewhere.example.net';
      if (r.value.startsWith('v=spf1')) return 'v=spf1 include:_spf.google.com ~all';
      if (r.value.startsWith('v=DMARC1')) return undefined;
      return r.value;
    });

    const res = await verify(domain);

    expect(res.body.fully_verified).toBe(false);
    const dkim = res.body.results.filter((r: { field: string }) => r.field === 'dkim_status');
    expect(dkim[0]).toMatchObject({ status: 'failed', detail: expect.stringContaining('CNAME points to elsewhere.example.net') });
    expect(dkim.slice(1).every((r: { status: string }) => r.status === 'verified')).toBe(true);
    expect(res.body.results.find((r: { field: string }) => r.field === 'spf_status')).toMatchObject({ status: 'failed', detail: 'found v=spf1 include:_spf.google.com ~all without include:amazonses.com' });
    expect(res.body.results.find((r: { field: string }) => r.field === 'dmarc_status')).toMatchObject({ status: 'failed', detail: expect.stringContaining('no DMARC record') });
    const after = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: admin() });
    expect(after.body).toMatchObject({ dkim_status: 'failed', spf_status: 'failed', dmarc_status: 'failed', txt_status: 'failed' });
  });

  it('keeps records pending when DNS does not answer', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const silent = await startSilentDnsServer();
    c.dns = new NodeDns([silent.server], 200);

    const res = await verify(domain);
    await silent.close();

    expect(silent.received()).toBeGreaterThan(0);
    expect(res.status).toBe(200);
    expect(res.body.results.every((r: { status: string; detail: string }) => r.status === 'pending' && /did not answer/.test(r.detail))).toBe(true);
  });
});

describe('sender rules', () => {
  const send = (from: string | undefined, to = 'owner@example.com', key = admin()) =>
    call({
      method: 'POST',
      path: '/v1/send',
      key,
      body: { channel: 'email', idempotency_key: `sr-${++n}`, destination: { email: to }, payload: { subject: 's', body_text: 't' }, ...(from === undefined ? {} : { metadata: { from_email: from } }) },
    });

  it('in the sandbox: shared sender only, to the account address only', async () => {
    const domain = uniqueDomain();
    await register(domain);

    const shared = await send(undefined);
    const unverified = await send(`hi@${domain}`);
    const foreign = await send('hi@elsewhere.test');
    const stranger = await send(undefined, 'stranger@example.com');

    expect(shared.status).toBe(201);
    expect(unverified.body.error.code).toBe('domain_not_verified');
    expect(foreign.body.error.code).toBe('no_verified_domain');
    expect(stranger.status).toBe(403);
    expect(stranger.body.error.code).toBe('recipient_not_verified');
  });

  it('with a verified domain: from_email required and on a verified domain; the default name applies', async () => {
    const domain = uniqueDomain();
    const pendingDomain = uniqueDomain();
    publish((await register(domain)).body.dns_records);
    await register(pendingDomain);
    await verify(domain);
    await call({ method: 'PUT', path: `/v1/domains/${domain}/from-name`, key: admin(), body: { from_name: 'Acme Support' } });

    const missing = await send(undefined, 'anyone@example.com');
    const foreign = await send('hi@elsewhere.test', 'anyone@example.com');
    const pending = await send(`hi@${pendingDomain}`, 'anyone@example.com');
    const named = await send(`hi@${domain}`, 'anyone@example.com');
    const overridden = await send(`Billing <billing@${domain}>`, 'anyone@example.com');
    const verification = await call({ method: 'GET', path: '/v1/account/verification', key: admin() });

    expect(missing.body.error.code).toBe('from_required');
    expect(foreign.body.error.code).toBe('from_not_verified');
    expect(pending.body.error.code).toBe('domain_not_verified');
    expect(named.status).toBe(201);
    expect((await c.store.get<{ from: string }>(keys.message(named.body.id)))?.from).toBe(`Acme Support <hi@${domain}>`);
    expect((await c.store.get<{ from: string }>(keys.message(overridden.body.id)))?.from).toBe(`Billing <billing@${domain}>`);
    expect(verification.body).toMatchObject({ sandbox_mode: false, channels: expect.arrayContaining([{ channel: 'email', status: 'verified', verified: true }]) });
  });

  it('reports a registered but unverified domain as pending readiness', async () => {
    await register(uniqueDomain());

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: admin() });

    expect(res.body).toMatchObject({ sandbox_mode: true, channels: expect.arrayContaining([{ channel: 'email', status: 'pending', verified: false }]) });
  });
});

describe('PUT /v1/domains/{domain}/from-name', () => {
  it('sets and clears the default name, and refuses header injection', async () => {
    const domain = uniqueDomain();
    await register(domain);

    const set = await call({ method: 'PUT', path: `/v1/domains/${domain}/from-name`, key: admin(), body: { from_name: ' Acme ' } });
    const cleared = await call({ method: 'PUT', path: `/v1/domains/${domain}/from-name`, key: admin(), body: { from_name: '' } });
    const injected = await call({ method: 'PUT', path: `/v1/domains/${domain}/from-name`, key: admin(), body: { from_name: 'Acme\r\nBcc: x@y.z' } });

    expect(set.body).toEqual({ domain, from_name: 'Acme' });
    expect(cleared.body).toEqual({ domain, from_name: null });
    expect(injected.status).toBe(400);
  });
});

describe('routes on a domain the account does not hold', () => {
  it.each([
    ['GET', 'dns-setup'],
    ['GET', 'dns-setup/zonefile'],
    ['POST', 'verify'],
    ['PUT', 'from-name'],
  ])('%s …/%s answers 404 for another account’s domain and for an unknown one', async (method, tail) => {
    const domain = uniqueDomain();
    const other = await createAccount(c, {});
    await register(domain, other.admin_key);
    const body = method === 'PUT' ? { from_name: 'X' } : undefined;

    const theirs = await call({ method, path: `/v1/domains/${domain}/${tail}`, key: admin(), body });
    const unknown = await call({ method, path: `/v1/domains/nowhere-${n}.test/${tail}`, key: admin(), body });

    for (const res of [theirs, unknown]) {
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('serves the guide and the zone file to a read key', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const read = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });

    const guide = await call({ method: 'GET', path: `/v1/domains/${domain}/dns-setup`, key: read.key });
    const verifyAttempt = await call({ method: 'POST', path: `/v1/domains/${domain}/verify`, key: read.key });

    expect(guide.status).toBe(200);
    expect(guide.body).toMatchObject({ domain, records: expect.any(Array) });
    expect(verifyAttempt.status).toBe(403);
  });
});
