// What a test-mode key may do, against the decision in docs/api-decisions.md ("Test-mode keys"):
// every key route of the manifest with a live and a test admin key, and the key-management
// routes, where a test key neither sees nor touches a live key.
import { describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';
import { createKey } from '../../shared/api-keys/service';
import { routeKey } from '../../shared/platform';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

/** The routes a test-mode key may not call: each changes what live mail does. */
const LIVE_ONLY = [
  'DELETE /v1/suppressions',
  'POST /v1/domains',
  'DELETE /v1/domains/{domain}',
  'POST /v1/domains/{domain}/verify',
  'PUT /v1/domains/{domain}/from-name',
  'PUT /v1/domains/{domain}/bimi',
  'POST /v1/domains/{domain}/bimi/logo',
  'POST /v1/test-recipients',
  'DELETE /v1/test-recipients/{id}',
  'PUT /v1/account/channels/{channel}',
  // A form makes the deployment mail strangers (confirmation links): set up with a live key only.
  'POST /v1/forms',
  'PUT /v1/forms/{id}',
  'DELETE /v1/forms/{id}',
  // Inbound: which domains receive mail, and where routes forward live mail (a URL or an address).
  'POST /v1/domains/{domain}/inbound',
  'POST /v1/inbound/routes',
  'PUT /v1/inbound/routes/{id}',
  'DELETE /v1/inbound/routes/{id}',
  // Spend caps: how much live mail may cost before it stops.
  'PUT /v1/spend-caps',
  'DELETE /v1/spend-caps',
  // Billing: buying a plan or opening the portal spends money.
  'POST /v1/billing/checkout',
  'POST /v1/billing/portal',
];

/** Path values that name nothing the account has, so no allowed call changes anything. */
const PATH_VALUES: Record<string, string> = { domain: 'absent.test', channel: 'webhook', id: 'x_00000000000000000000000000' };
const concrete = (path: string): string => path.replace(/\{(\w+)\}/g, (_m, name: string) => PATH_VALUES[name] ?? 'x');

const keyRoutes = httpRoutes().filter((r) => r.access.kind === 'key' || r.access.kind === 'any_key');

describe('every key route with a live and a test admin key', () => {
  it('declares the live-only routes the decision lists, and no others', () => {
    const declared = keyRoutes.filter((r) => 'modes' in r.access && r.access.modes === 'live_only').map(routeKey);

    expect(declared.sort()).toEqual([...LIVE_ONLY].sort());
  });

  for (const route of keyRoutes) {
    const key = routeKey(route);
    const liveOnly = 'modes' in route.access && route.access.modes === 'live_only';

    it(`${key}: a live key passes; a test key ${liveOnly ? 'gets 403 forbidden' : 'passes'}`, async () => {
      // Prepare: the one body-dependent rule (a test key mints only test keys) is kept out of the walk.
      const body = key === 'POST /v1/keys' ? { test_mode: true } : {};
      const input = { method: route.method, path: concrete(route.path), body };

      // Act
      const live = await bed.request({ ...input, key: bed.account.admin_key });
      const test = await bed.request({ ...input, key: bed.account.test_admin_key });

      // Assess
      expect(live.status, `live key on ${key}: ${JSON.stringify(live.body)}`).not.toBe(403);
      if (liveOnly) {
        expect(test.status).toBe(403);
        expect(test.body).toEqual({ error: { code: 'forbidden', message: expect.stringContaining('use a live key'), status: 403 } });
      } else {
        expect(test.status, `test key on ${key}: ${JSON.stringify(test.body)}`).not.toBe(403);
      }
    });
  }

  it('changes nothing when it refuses a test key', async () => {
    const register = await bed.request({ method: 'POST', path: '/v1/domains', key: bed.account.test_admin_key, body: { domain: 'new.test' } });
    const channel = await bed.request({ method: 'PUT', path: '/v1/account/channels/webhook', key: bed.account.test_admin_key, body: { enabled: true } });

    const domains = await bed.request({ method: 'GET', path: '/v1/domains', key: bed.account.admin_key });
    const verification = await bed.request({ method: 'GET', path: '/v1/account/verification', key: bed.account.admin_key });
    expect([register.status, channel.status]).toEqual([403, 403]);
    expect(JSON.stringify(domains.body)).not.toContain('new.test');
    expect(verification.body.channels).not.toContainEqual(expect.objectContaining({ channel: 'webhook', status: 'ready' }));
  });

  it('lets a test key manage webhooks and add suppressions', async () => {
    const test = bed.account.test_admin_key;

    const hook = await bed.request({ method: 'POST', path: '/v1/webhooks', key: test, body: { endpoint_url: 'https://93.184.216.34/hook' } });
    const suppress = await bed.request({ method: 'POST', path: '/v1/suppressions', key: test, body: { channel: 'email', recipient: 'gone@example.com' } });
    const removeHook = await bed.request({ method: 'DELETE', path: `/v1/webhooks/${hook.body.id}`, key: test });

    expect(hook.status).toBe(201);
    expect(suppress.status).toBeLessThan(300);
    expect(removeHook.status).toBeLessThan(300);
  });
});

describe('keys seen and managed by a test-mode key', () => {
  const liveAdminId = async (): Promise<string> => {
    const all = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key });
    return all.body.keys.find((k: { test_mode: boolean; scope: string }) => !k.test_mode && k.scope === 'admin').id;
  };

  it('lists only test keys to a test key, and every key to a live key', async () => {
    await createKey(bed.c, bed.account.account_id, { scope: 'read', test_mode: true, name: 'ci' }, { testMode: false });
    await createKey(bed.c, bed.account.account_id, { scope: 'send', name: 'prod' }, { testMode: false });

    const asTest = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.test_admin_key });
    const asLive = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key });

    expect(asTest.status).toBe(200);
    expect(asTest.body.keys.map((k: { name: string }) => k.name).sort()).toEqual(['admin test key', 'ci']);
    expect(JSON.stringify(asTest.body)).not.toContain('sk_live_');
    expect(asLive.body.keys.map((k: { name: string }) => k.name).sort()).toEqual(['admin live key', 'admin test key', 'ci', 'prod']);
  });

  it('pages through test keys only, and refuses a live listing’s cursor', async () => {
    for (let i = 0; i < 3; i++) await createKey(bed.c, bed.account.account_id, { name: `live ${i}` }, { testMode: false });
    for (let i = 0; i < 3; i++) await createKey(bed.c, bed.account.account_id, { name: `test ${i}`, test_mode: true }, { testMode: false });
    const liveCursor = (await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key, query: { limit: '1' } })).body.next_cursor;

    const names: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.test_admin_key, query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      names.push(...res.body.keys.map((k: { name: string }) => k.name));
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }
    const replay = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.test_admin_key, query: { cursor: liveCursor } });

    expect(names.sort()).toEqual(['admin test key', 'test 0', 'test 1', 'test 2']);
    expect(replay.status).toBe(400);
    expect(replay.body.error.code).toBe('invalid_request');
  });

  it('answers 404 for rotating or deleting a live key, exactly as for a key that does not exist; the live key still works', async () => {
    const id = await liveAdminId();
    const test = bed.account.test_admin_key;

    const rotate = await bed.request({ method: 'POST', path: `/v1/keys/${id}/rotate`, key: test });
    const remove = await bed.request({ method: 'DELETE', path: `/v1/keys/${id}`, key: test });
    const unknown = await bed.request({ method: 'POST', path: '/v1/keys/key_00000000000000000000000000/rotate', key: test });
    const stillWorks = await bed.request({ method: 'GET', path: '/v1/keys', key: bed.account.admin_key });

    for (const res of [rotate, remove]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    expect(JSON.stringify(rotate.body)).not.toContain('sk_live_');
    expect(stillWorks.status).toBe(200);
    const live = stillWorks.body.keys.find((k: { id: string }) => k.id === id);
    expect(live).toMatchObject({ is_revoked: false, key_prefix: bed.account.admin_key.slice(0, 12) });
  });

  it('lets a test key rotate and revoke test keys, and a live key manage both modes', async () => {
    const ci = await createKey(bed.c, bed.account.account_id, { scope: 'read', test_mode: true }, { testMode: false });
    const other = await createKey(bed.c, bed.account.account_id, { scope: 'read', test_mode: true }, { testMode: false });
    const prod = await createKey(bed.c, bed.account.account_id, { scope: 'read' }, { testMode: false });

    const rotated = await bed.request({ method: 'POST', path: `/v1/keys/${ci.id}/rotate`, key: bed.account.test_admin_key });
    const revoked = await bed.request({ method: 'DELETE', path: `/v1/keys/${ci.id}`, key: bed.account.test_admin_key });
    const liveOnTest = await bed.request({ method: 'DELETE', path: `/v1/keys/${other.id}`, key: bed.account.admin_key });
    const liveOnLive = await bed.request({ method: 'POST', path: `/v1/keys/${prod.id}/rotate`, key: bed.account.admin_key });

    expect(rotated.status).toBe(200);
    expect(rotated.body.key).toMatch(/^sk_test_/);
    expect(revoked.status).toBe(204);
    expect(liveOnTest.status).toBe(204);
    expect(liveOnLive.status).toBe(200);
    expect(liveOnLive.body.key).toMatch(/^sk_live_/);
  });

  it('still refuses a test key minting a live key (403), and mints test keys', async () => {
    const live = await bed.request({ method: 'POST', path: '/v1/keys', key: bed.account.test_admin_key, body: { scope: 'admin' } });
    const test = await bed.request({ method: 'POST', path: '/v1/keys', key: bed.account.test_admin_key, body: { scope: 'admin', test_mode: true } });

    expect(live.status).toBe(403);
    expect(live.body.error.code).toBe('forbidden');
    expect(test.status).toBe(201);
    expect(test.body.key).toMatch(/^sk_test_/);
  });
});

describe('scheduled messages and a test-mode key', () => {
  const inAnHour = (): string => new Date(bed.c.clock.now().getTime() + 3600_000).toISOString();
  const schedule = (key: string, n: string) =>
    bed.request({
      method: 'POST',
      path: '/v1/send',
      key,
      body: {
        channel: 'email',
        idempotency_key: `later-${n}`,
        destination: { email: 'ada@example.com' },
        payload: { subject: 'Later', body_text: 'Later' },
        metadata: { from_email: 'hello@acme.test' },
        scheduled_at: inAnHour(),
      },
    });

  it('answers 404 to a test key cancelling a live message, which stays scheduled; cancels its own test messages', async () => {
    // Prepare
    const live = await schedule(bed.account.admin_key, 'live');
    const test = await schedule(bed.account.test_admin_key, 'test');
    expect([live.status, test.status]).toEqual([201, 201]);
    // Act
    const refused = await bed.request({ method: 'POST', path: `/v1/messages/${live.body.id}/cancel`, key: bed.account.test_admin_key });
    const own = await bed.request({ method: 'POST', path: `/v1/messages/${test.body.id}/cancel`, key: bed.account.test_admin_key });
    // Assess
    expect(refused.status).toBe(404);
    expect(refused.body.error.code).toBe('not_found');
    expect(own.body).toEqual({ id: test.body.id, status: 'canceled' });
    const stillLive = await bed.request({ method: 'GET', path: `/v1/messages/${live.body.id}`, key: bed.account.admin_key });
    expect(stillLive.body.status).toBe('scheduled');
    const byLiveKey = await bed.request({ method: 'POST', path: `/v1/messages/${live.body.id}/cancel`, key: bed.account.admin_key });
    expect(byLiveKey.body).toEqual({ id: live.body.id, status: 'canceled' });
  });
});
