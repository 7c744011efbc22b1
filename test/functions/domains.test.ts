// Sending domains through the handlers, with DNS answers from a real DNS server on loopback.
import { randomBytes } from 'node:crypto';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { NodeDns } from '../../shared/adapters/node-dns';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { createKey } from '../../shared/accounts/api-keys/service';
import type { DnsRecord } from '../../shared/domains/model';
import { PENDING_CLAIM_DAYS } from '../../shared/domains/claims';
import type { SendingIdentities } from '../../shared/ports/identities';
import { call } from '../support/api';
import { startDnsServer, startSilentDnsServer, type RunningDns } from '../support/dns-server';
import { useTestbed } from '../support/testbed';

let dns: RunningDns;
const bed = useTestbed({ sandbox: true });
beforeAll(async () => {
  dns = await startDnsServer({});
});
afterAll(async () => dns.close());
beforeEach(() => {
  bed.c.dns = new NodeDns([dns.server], 1000);
});

let n = 0;
// The store and the DNS server live as long as this file, so a counter keeps every name fresh.
const uniqueDomain = () => `brand${++n}.test`;
const admin = () => bed.account.admin_key;
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

  it('answers 409 when the domain is registered on this account already, is verified by another account, or is the sandbox', async () => {
    const domain = uniqueDomain();
    const verifiedElsewhere = uniqueDomain();
    const other = await createAccount(bed.c, {});
    await register(domain);
    publish((await register(verifiedElsewhere, other.admin_key)).body.dns_records);
    expect((await verify(verifiedElsewhere, other.admin_key)).body.fully_verified).toBe(true);

    const again = await register(domain);
    const elsewhere = await register(verifiedElsewhere);
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
    await bed.c.store.update(keys.account(bed.account.account_id), { expression: 'SET domain_count = :n', values: { ':n': 100 } });
    const domain = uniqueDomain();

    const res = await register(domain);
    const other = await createAccount(bed.c, {});
    const retry = await register(domain, other.admin_key);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('domain_limit_reached');
    expect(retry.status).toBe(201);
  });

  it('needs an admin key to register, and a read key may list', async () => {
    const send = await createKey(bed.c, bed.account.account_id, { scope: 'send' }, { testMode: false });
    const read = await createKey(bed.c, bed.account.account_id, { scope: 'read' }, { testMode: false });

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
    bed.c.clock.advance(10);
    await register(second);

    const res = await call({ method: 'GET', path: '/v1/domains', key: admin() });

    expect(res.body.domains.map((d: { domain: string }) => d.domain)).toEqual(['sandbox.test', second, first]);
    expect(res.body.domains[0]).toMatchObject({ sandbox: true, dkim_status: 'verified' });
  });

  it('gets one domain by name and 404s for another account’s', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const other = await createAccount(bed.c, {});

    const mine = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: admin() });
    const theirs = await call({ method: 'GET', path: `/v1/domains/${domain}`, key: other.admin_key });

    expect(mine.body.domain).toBe(domain);
    expect(theirs.status).toBe(404);
  });

  it('deletes a domain with its provider identity (204) and frees the name', async () => {
    const domain = uniqueDomain();
    await register(domain);
    const removed = vi.spyOn(bed.c.identities, 'remove');

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
    const other = await createAccount(bed.c, {});
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
    bed.c.dns = new NodeDns([silent.server], 200);

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
    expect((await bed.c.store.get<{ from: string }>(keys.message(named.body.id)))?.from).toBe(`Acme Support <hi@${domain}>`);
    expect((await bed.c.store.get<{ from: string }>(keys.message(overridden.body.id)))?.from).toBe(`Billing <billing@${domain}>`);
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
    const other = await createAccount(bed.c, {});
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
    const read = await createKey(bed.c, bed.account.account_id, { scope: 'read' }, { testMode: false });

    const guide = await call({ method: 'GET', path: `/v1/domains/${domain}/dns-setup`, key: read.key });
    const verifyAttempt = await call({ method: 'POST', path: `/v1/domains/${domain}/verify`, key: read.key });

    expect(guide.status).toBe(200);
    expect(guide.body).toMatchObject({ domain, records: expect.any(Array) });
    expect(verifyAttempt.status).toBe(403);
  });
});

/**
 * SES's behaviour the claim rules depend on: one identity per name, so every account that
 * registers a name while the identity lives gets its DKIM tokens; removing it drops them.
 */
function sesLikeIdentities(): SendingIdentities & { removed: string[] } {
  const tokens = new Map<string, string[]>();
  const removed: string[] = [];
  return {
    removed,
    create: async (domain) => {
      if (!tokens.has(domain)) tokens.set(domain, Array.from({ length: 3 }, () => randomBytes(16).toString('hex')));
      return { dkimTokens: tokens.get(domain) as string[] };
    },
    remove: async (domain) => {
      removed.push(domain);
      tokens.delete(domain);
    },
  };
}

const OWNERSHIP = /^postbox-verification=[0-9a-f]{32}$/;
const ownershipOf = (records: DnsRecord[]): DnsRecord | undefined => records.find((r) => r.type === 'TXT' && OWNERSHIP.test(r.value));
const get = (domain: string, key: string) => call({ method: 'GET', path: `/v1/domains/${domain}`, key });
const DAY = 86_400_000;

describe('a name another account registered and has not verified', () => {
  let identities: ReturnType<typeof sesLikeIdentities>;
  let original: SendingIdentities;
  beforeEach(() => {
    original = bed.c.identities;
    identities = sesLikeIdentities();
    bed.c.identities = identities;
  });
  afterEach(() => {
    bed.c.identities = original;
  });

  it('does not block the owner: they register it with an ownership record and take it by verifying; the squatter cannot verify with their records', async () => {
    const domain = uniqueDomain();
    const squatter = await createAccount(bed.c, {});
    const squatted = await register(domain, squatter.admin_key);
    expect(squatted.status).toBe(201);
    expect(ownershipOf(squatted.body.dns_records)).toBeUndefined();

    const mine = await register(domain);
    expect(mine.status).toBe(201);
    const records: DnsRecord[] = mine.body.dns_records;
    expect(records).toHaveLength(7);
    expect(ownershipOf(records)).toEqual({ type: 'TXT', name: `_postbox-verification.${domain}`, value: expect.stringMatching(OWNERSHIP) });
    publish(records); // the owner controls the zone: the shared DKIM, SPF and DMARC records and its own TXT

    const theirTry = await verify(domain, squatter.admin_key);
    expect(theirTry.status).toBe(200);
    expect(theirTry.body.fully_verified).toBe(false);
    expect(theirTry.body.results.find((r: { field: string }) => r.field === 'txt_status')).toMatchObject({ status: 'failed', detail: expect.stringContaining('another account registered this domain too') });
    const theirs = await get(domain, squatter.admin_key);
    expect(ownershipOf(theirs.body.dns_records)?.value).not.toBe(ownershipOf(records)?.value);
    expect(theirs.body.txt_status).toBe('failed');

    const myTry = await verify(domain);
    expect(myTry.body.fully_verified).toBe(true);
    expect(myTry.body.results.filter((r: { status: string }) => r.status === 'verified')).toHaveLength(6);
    expect(await bed.c.store.get(keys.domainClaim(domain))).toMatchObject({ account_id: bed.account.account_id, state: 'verified' });

    expectConflict(await verify(domain, squatter.admin_key));
    expectConflict(await register(domain, (await createAccount(bed.c, {})).admin_key));
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: squatter.admin_key })).body.sandbox_mode).toBe(true);
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: admin() })).body.sandbox_mode).toBe(false);
  });

  it(`expires after ${PENDING_CLAIM_DAYS} days: the next registration takes the name with the 6 records and a new identity`, async () => {
    const domain = uniqueDomain();
    const squatter = await createAccount(bed.c, {});
    const squatted = await register(domain, squatter.admin_key);
    bed.c.clock.advance(PENDING_CLAIM_DAYS * DAY + 1000);

    const mine = await register(domain);

    expect(mine.status).toBe(201);
    expect(mine.body.dns_records).toHaveLength(6);
    expect(identities.removed).toEqual([domain]); // the squatter's DKIM tokens are worthless now
    expect(mine.body.dns_records.filter((r: DnsRecord) => r.type === 'CNAME')).not.toEqual(squatted.body.dns_records.filter((r: DnsRecord) => r.type === 'CNAME'));
    expect(await bed.c.store.get(keys.domainClaim(domain))).toMatchObject({ account_id: bed.account.account_id, state: 'pending', contested: false });
    publish(mine.body.dns_records);
    expect((await verify(domain)).body.fully_verified).toBe(true);
    expectConflict(await verify(domain, squatter.admin_key));
  });

  it('holds the name within its days: a registration then contends (7 records) rather than taking it over', async () => {
    const domain = uniqueDomain();
    const squatter = await createAccount(bed.c, {});
    await register(domain, squatter.admin_key);
    bed.c.clock.advance(PENDING_CLAIM_DAYS * DAY - 60_000);

    const mine = await register(domain);

    expect(mine.body.dns_records).toHaveLength(7);
    expect(identities.removed).toEqual([]);
    expect(await bed.c.store.get(keys.domainClaim(domain))).toMatchObject({ account_id: squatter.account_id, state: 'pending', contested: true });
  });

  it('reads a claim written before claims had states from its holder: pending and old gives way, verified holds', async () => {
    const stale = uniqueDomain();
    const kept = uniqueDomain();
    const before = await createAccount(bed.c, {});
    await register(stale, before.admin_key);
    publish((await register(kept, before.admin_key)).body.dns_records);
    expect((await verify(kept, before.admin_key)).body.fully_verified).toBe(true);
    // Written raw on purpose: the legacy claim shape (no state) no repository writes any more.
    for (const name of [stale, kept]) await bed.c.store.put({ ...keys.domainClaim(name), entity: 'domain_claim', account_id: before.account_id });
    bed.c.clock.advance(PENDING_CLAIM_DAYS * DAY + 1000);

    expect((await register(stale)).body.dns_records).toHaveLength(6);
    expectConflict(await register(kept));
  });

  it('lets a contender delete its registration without removing the holder\'s identity or claim', async () => {
    const domain = uniqueDomain();
    const holder = await createAccount(bed.c, {});
    await register(domain, holder.admin_key);
    await register(domain);

    const res = await call({ method: 'DELETE', path: `/v1/domains/${domain}`, key: admin() });

    expect(res.status).toBe(204);
    expect(identities.removed).toEqual([]);
    expect(await bed.c.store.get(keys.domainClaim(domain))).toMatchObject({ account_id: holder.account_id });
    expect((await get(domain, holder.admin_key)).status).toBe(200);
  });
});

function expectConflict(res: { status: number; body: any }): void {
  expect(res.status).toBe(409);
  expect(res.body.error.code).toBe('conflict');
}
