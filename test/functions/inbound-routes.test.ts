// Inbound settings end to end through the handler: enabling inbound on a domain (by id or name,
// domain_not_ready before verification), and inbound routes: the secret shown once and stored
// sealed, the URL guard, partial updates, deletion, scopes, the deployment gate, and other
// accounts' routes reported as not found.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { accountPartition, keys } from '../../shared/db/keys';
import type { DomainItem } from '../../shared/domains/model';
import { RouteRepository, type RouteItem } from '../../shared/inbound-mail/routes/repository';
import { MAX_ROUTES, routeSecretOf } from '../../shared/inbound-mail/routes/service';
import { domainItemFor, giveVerifiedDomain, putDomain } from '../support/domains';
import type { HttpEventInput } from '../support/events';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
beforeEach(() => {
  bed.c.http = new GuardedHttp({ allowPrivate: false });
  bed.c.config.inboundEnabled = true;
});

const PUBLIC_URL = 'https://93.184.216.34/inbound';
const SECRET = /^[0-9a-f]{64}$/;
const admin = () => bed.account.admin_key;
const req = (input: HttpEventInput) => bed.request(input);
const enable = (domain: string, body: unknown = { enabled: true }, key = admin()) => req({ method: 'POST', path: `/v1/domains/${domain}/inbound`, key, body });
const create = (body: unknown, key = bed.sendKey) => req({ method: 'POST', path: '/v1/inbound/routes', key, body });
const list = (key = bed.sendKey) => req({ method: 'GET', path: '/v1/inbound/routes', key });
const get = (id: string, key = bed.sendKey) => req({ method: 'GET', path: `/v1/inbound/routes/${id}`, key });
const update = (id: string, body: unknown, key = bed.sendKey) => req({ method: 'PUT', path: `/v1/inbound/routes/${id}`, key, body });
const remove = (id: string, key = bed.sendKey) => req({ method: 'DELETE', path: `/v1/inbound/routes/${id}`, key });

const webhookRoute = (extra: Record<string, unknown> = {}) => ({ domain: 'acme.test', match_prefix: 'support', destination_type: 'webhook', forward_url: PUBLIC_URL, ...extra });
const emailRoute = (extra: Record<string, unknown> = {}) => ({ domain: 'acme.test', match_prefix: '', destination_type: 'email', forward_address: 'team@example.com', ...extra });

async function enabledAcme(): Promise<void> {
  expect((await enable('acme.test')).status).toBe(200);
}

function expectError(res: { status: number; body: any }, status: number, code: string, field?: string): void {
  expect(res.status).toBe(status);
  expect(res.body.error).toMatchObject({ code, status });
  if (field) expect(res.body.error.message.startsWith(`${field}:`)).toBe(true);
}

describe('POST /v1/domains/{domain}/inbound', () => {
  it('enables a verified domain by name or id, answers the MX record, and stores inbound_enabled', async () => {
    const res = await enable('ACME.test.');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ enabled: true, mx_record: { type: 'MX', priority: '10', value: '127.0.0.1' } });
    const item = await bed.c.store.get<DomainItem>(keys.domain(bed.account.account_id, 'acme.test'));
    expect(item?.inbound_enabled).toBe(true);

    const byId = await enable(item!.id, { enabled: false });
    expect(byId.status).toBe(200);
    expect(byId.body.enabled).toBe(false);
    expect((await bed.c.store.get<DomainItem>(keys.domain(bed.account.account_id, 'acme.test')))?.inbound_enabled).toBe(false);
  });

  it("names SES's inbound endpoint of the region in AWS, and the listener's host locally", async () => {
    bed.c.config.inboundSmtpHost = '10.0.0.5';
    expect((await enable('acme.test')).body.mx_record.value).toBe('10.0.0.5');
    const { runtime } = bed.c.config;
    bed.c.config.runtime = 'aws';
    try {
      expect((await enable('acme.test')).body.mx_record.value).toBe('inbound-smtp.us-east-1.amazonaws.com');
    } finally {
      bed.c.config.runtime = runtime;
      bed.c.config.inboundSmtpHost = undefined;
    }
  });

  it('is 422 domain_not_ready for a domain not fully verified and for the sandbox domain; disabling is always accepted', async () => {
    await putDomain(bed.c, domainItemFor(bed.account.account_id, 'pending.test', { dkim_status: 'verified', spf_status: 'verified' }));
    expectError(await enable('pending.test'), 422, 'domain_not_ready');
    expectError(await enable('sandbox.test'), 422, 'domain_not_ready');
    expectError(await enable('dom_sandbox'), 422, 'domain_not_ready');
    expect((await enable('pending.test', { enabled: false })).status).toBe(200);
  });

  it('is 404 for another account\'s domain (by name and by id) and an unknown one', async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = await giveVerifiedDomain(bed.c, other.account_id, 'theirs.test');
    expectError(await enable('theirs.test'), 404, 'not_found');
    expectError(await enable(theirs.id), 404, 'not_found');
    expectError(await enable('nobody.test'), 404, 'not_found');
    expectError(await enable('dom_01ZZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expect((await bed.c.store.get<DomainItem>(keys.domain(other.account_id, 'theirs.test')))?.inbound_enabled).toBeUndefined();
  });

  it('refuses a malformed body, a send or read key, and a test key', async () => {
    expectError(await enable('acme.test', {}), 400, 'invalid_request', 'body.enabled');
    expectError(await enable('acme.test', { enabled: 'yes' }), 400, 'invalid_request', 'body.enabled');
    expectError(await enable('acme.test', { enabled: true, extra: 1 }), 400, 'invalid_request');
    expectError(await req({ method: 'POST', path: '/v1/domains/acme.test/inbound', key: admin() }), 400, 'invalid_request', 'body');
    expectError(await enable('acme.test', { enabled: true }, bed.sendKey), 403, 'forbidden');
    expectError(await enable('acme.test', { enabled: true }, bed.readKey), 403, 'forbidden');
    expectError(await enable('acme.test', { enabled: true }, bed.account.test_admin_key), 403, 'forbidden');
  });
});

describe('inbound routes', () => {
  it('creates a webhook route with its secret shown once (no-store), stored sealed, and reads it back without it', async () => {
    await enabledAcme();
    const res = await create(webhookRoute({ match_prefix: 'Support' }));
    expect(res.status).toBe(201);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatchObject({ domain: 'acme.test', match_prefix: 'support', destination_type: 'webhook', forward_url: PUBLIC_URL, forward_address: null, active: true });
    expect(res.body.id).toMatch(/^inr_/);
    expect(res.body.signing_secret).toMatch(SECRET);
    const stored = await bed.c.store.get<RouteItem>(keys.inboundRoute(bed.account.account_id, res.body.id));
    expect(JSON.stringify(stored)).not.toContain(res.body.signing_secret);
    expect(routeSecretOf(bed.c, stored!)).toBe(res.body.signing_secret);

    const { signing_secret: _, ...view } = res.body;
    const got = await get(res.body.id, bed.readKey);
    expect(got.status).toBe(200);
    expect(got.body).toEqual(view);
    expect((await list(bed.readKey)).body).toEqual({ routes: [view] });
  });

  it('creates an email route, normalizing the address', async () => {
    await enabledAcme();
    const res = await create(emailRoute({ forward_address: ' Team@Example.COM ' }));
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ match_prefix: '', destination_type: 'email', forward_url: null, forward_address: 'team@example.com' });
  });

  it('refuses a domain without inbound (422), another account\'s or an unknown one (404)', async () => {
    expectError(await create(webhookRoute()), 422, 'domain_not_ready');
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await giveVerifiedDomain(bed.c, other.account_id, 'theirs.test', { inbound_enabled: true });
    expectError(await create(webhookRoute({ domain: 'theirs.test' })), 404, 'not_found');
    expectError(await create(webhookRoute({ domain: 'nobody.test' })), 404, 'not_found');
    expectError(await create(webhookRoute({ domain: 'not a domain' })), 404, 'not_found');
  });

  it('refuses bad destinations, naming the field', async () => {
    await enabledAcme();
    expectError(await create(webhookRoute({ forward_url: undefined })), 400, 'invalid_request', 'body.forward_url');
    expectError(await create(webhookRoute({ forward_url: 'http://93.184.216.34/x' })), 400, 'invalid_request', 'body.forward_url');
    expectError(await create(webhookRoute({ forward_url: 'https://127.0.0.1/x' })), 400, 'invalid_request', 'body.forward_url');
    expectError(await create(webhookRoute({ forward_url: 'https://169.254.169.254/latest' })), 400, 'invalid_request', 'body.forward_url');
    expectError(await create(webhookRoute({ forward_address: 'a@example.com' })), 400, 'invalid_request', 'body.forward_address');
    expectError(await create(emailRoute({ forward_address: undefined })), 400, 'invalid_request', 'body.forward_address');
    expectError(await create(emailRoute({ forward_address: 'not-an-address' })), 400, 'invalid_request', 'body.forward_address');
    expectError(await create(emailRoute({ forward_address: 'loop@acme.test' })), 400, 'invalid_request', 'body.forward_address');
    expectError(await create(emailRoute({ forward_url: PUBLIC_URL })), 400, 'invalid_request', 'body.forward_url');
    expectError(await create(webhookRoute({ destination_type: 'sms' })), 400, 'invalid_request', 'body.destination_type');
    expectError(await create(webhookRoute({ match_prefix: 'has space' })), 400, 'invalid_request', 'body.match_prefix');
    expectError(await create(webhookRoute({ match_prefix: 'a'.repeat(65) })), 400, 'invalid_request', 'body.match_prefix');
    expectError(await create(webhookRoute({ match_prefix: undefined })), 400, 'invalid_request', 'body.match_prefix');
    expectError(await create(webhookRoute({ surprise: true })), 400, 'invalid_request');
    expect((await list()).body.routes).toEqual([]);
  });

  it('refuses a second route with the same prefix on a domain (409), and more than the limit', async () => {
    await enabledAcme();
    expect((await create(webhookRoute())).status).toBe(201);
    expectError(await create(emailRoute({ match_prefix: 'SUPPORT' })), 409, 'conflict');
    const repo = new RouteRepository(bed.c.store);
    const { pk: _pk, sk: _sk, entity: _entity, ...base } = (await repo.all(bed.account.account_id))[0]!;
    for (let i = 1; i < MAX_ROUTES; i++) expect(await repo.create({ ...base, id: bed.c.ids.next('inr'), match_prefix: `p${i}` })).toBe(true);
    expectError(await create(webhookRoute({ match_prefix: 'one-more' })), 400, 'invalid_request');
  });

  it('PUT changes only the fields sent; a type change needs the new field and drops the other', async () => {
    await enabledAcme();
    const { body: made } = await create(webhookRoute());
    const same = await update(made.id, {});
    expect(same.status).toBe(200);
    expect(same.body).toMatchObject({ match_prefix: 'support', forward_url: PUBLIC_URL, active: true });

    const paused = await update(made.id, { active: false });
    expect(paused.body).toMatchObject({ match_prefix: 'support', forward_url: PUBLIC_URL, active: false });
    const renamed = await update(made.id, { match_prefix: 'Help' });
    expect(renamed.body).toMatchObject({ match_prefix: 'help', forward_url: PUBLIC_URL, active: false });

    expectError(await update(made.id, { destination_type: 'email' }), 400, 'invalid_request', 'body.forward_address');
    expectError(await update(made.id, { forward_address: 'a@example.com' }), 400, 'invalid_request', 'body.forward_address');
    expectError(await update(made.id, { forward_url: 'https://10.0.0.1/x' }), 400, 'invalid_request', 'body.forward_url');
    const toEmail = await update(made.id, { destination_type: 'email', forward_address: 'team@example.com' });
    expect(toEmail.body).toMatchObject({ destination_type: 'email', forward_url: null, forward_address: 'team@example.com', match_prefix: 'help', active: false });
    const back = await update(made.id, { destination_type: 'webhook', forward_url: PUBLIC_URL });
    expect(back.body).toMatchObject({ destination_type: 'webhook', forward_url: PUBLIC_URL, forward_address: null });

    const { body: other } = await create(emailRoute({ match_prefix: 'sales' }));
    expectError(await update(other.id, { match_prefix: 'help' }), 409, 'conflict');
    expectError(await update(made.id, { is_active: true }), 400, 'invalid_request');
    expectError(await update(made.id, { domain: 'acme.test' }), 400, 'invalid_request');
    const stored = await bed.c.store.get<RouteItem>(keys.inboundRoute(bed.account.account_id, made.id));
    expect(routeSecretOf(bed.c, stored!)).toBe(made.signing_secret);
  });

  it('DELETE removes the route for good (204), then 404', async () => {
    await enabledAcme();
    const { body: made } = await create(webhookRoute());
    const res = await remove(made.id);
    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expectError(await get(made.id), 404, 'not_found');
    expectError(await remove(made.id), 404, 'not_found');
    expectError(await update(made.id, { active: true }), 404, 'not_found');
  });

  it("reports another account's route, an unknown id and a malformed one as not found, and changes nothing", async () => {
    await enabledAcme();
    const { body: made } = await create(webhookRoute());
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    const theirs = other.admin_key;
    expectError(await get(made.id, theirs), 404, 'not_found');
    expectError(await update(made.id, { active: false }, theirs), 404, 'not_found');
    expectError(await remove(made.id, theirs), 404, 'not_found');
    expect((await list(theirs)).body).toEqual({ routes: [] });
    expectError(await get('inr_01ZZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectError(await get('whk_01ZZZZZZZZZZZZZZZZZZZZZZZZ'), 404, 'not_found');
    expectError(await get('x'.repeat(300)), 404, 'not_found');
    expect((await get(made.id)).body.active).toBe(true);
    const partition = JSON.stringify((await bed.c.store.query({ keyCondition: 'pk = :pk', values: { ':pk': accountPartition(other.account_id) } })).items);
    expect(partition).not.toContain('INBROUTE#');
  });

  it('reads with any scope; writes need send or admin, and a live key', async () => {
    await enabledAcme();
    expect((await create(webhookRoute(), admin())).status).toBe(201);
    expectError(await create(webhookRoute({ match_prefix: 'x' }), bed.readKey), 403, 'forbidden');
    expectError(await create(webhookRoute({ match_prefix: 'x' }), bed.account.test_admin_key), 403, 'forbidden');
    const { body } = await list(bed.account.test_admin_key);
    expect(body.routes).toHaveLength(1);
    expectError(await update(body.routes[0].id, { active: false }, bed.readKey), 403, 'forbidden');
    expectError(await remove(body.routes[0].id, bed.readKey), 403, 'forbidden');
  });

  it('answers 404 on every route where inbound email is off, after the credentials check', async () => {
    await enabledAcme();
    const { body: made } = await create(webhookRoute());
    bed.c.config.inboundEnabled = false;
    expectError(await enable('acme.test'), 404, 'not_found');
    expectError(await create(webhookRoute({ match_prefix: 'x' })), 404, 'not_found');
    expectError(await list(), 404, 'not_found');
    expectError(await get(made.id), 404, 'not_found');
    expectError(await update(made.id, { active: false }), 404, 'not_found');
    expectError(await remove(made.id), 404, 'not_found');
    expectError(await req({ method: 'GET', path: '/v1/inbound/routes' }), 401, 'unauthorized');
    bed.c.config.inboundEnabled = undefined;
    expectError(await list(), 404, 'not_found');
  });
});
