// What a test-mode key may do, against the decision in docs/api-decisions.md ("Test-mode keys"):
// every key route of the manifest with a live and a test admin key, and the key-management
// routes, where a test key neither sees nor touches a live key; live broadcasts, templates and
// snippets, which a test key may not change; and the session of a person whose address is not
// verified yet, which acts in test mode (issue 28).
import { describe, expect, it } from 'vitest';
import { httpRoutes } from '../../functions/manifest';
import { createKey } from '../../shared/accounts/api-keys/service';
import { routeKey } from '../../shared/platform';
import { linkTokenIn, sessionFrom, signUp, withSession } from '../support/sessions';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

/** The routes a test-mode key may not call: each changes what live mail does. */
const LIVE_ONLY = [
  'DELETE /v1/suppressions',
  'POST /v1/domains',
  'DELETE /v1/domains/{domain}',
  'POST /v1/domains/{domain}/verify',
  'PUT /v1/domains/{domain}/from-name',
  // Whether live marketing mail from the domain is tracked.
  'PATCH /v1/domains/{domain}',
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
  'POST /v1/inbound/routes/{id}/rotate-secret',
  // Spend caps: how much live mail may cost before it stops.
  'PUT /v1/spend-caps',
  'DELETE /v1/spend-caps',
  // Billing: buying a plan or opening the portal spends money.
  'POST /v1/billing/checkout',
  'POST /v1/billing/portal',
  // Issue 28: what live mail reads. Suppressions stop live mail to an address.
  'POST /v1/suppressions',
  'POST /v1/suppressions/import',
  // What live sends and broadcasts render: a template or snippet once written (creating a new one is free).
  'PUT /v1/templates/{id}',
  'DELETE /v1/templates/{id}',
  'PATCH /v1/templates/snippets/{id}',
  'DELETE /v1/templates/snippets/{id}',
  // Who live broadcasts reach: contacts, lists and their members.
  'POST /v1/contacts',
  'PATCH /v1/contacts/{id}',
  'DELETE /v1/contacts/{id}',
  'POST /v1/contacts/import',
  'POST /v1/lists',
  'PATCH /v1/lists/{id}',
  'DELETE /v1/lists/{id}',
  'POST /v1/lists/{id}/members',
  'DELETE /v1/lists/{id}/members/{contact_id}',
  // The Mail app is a person's real mailbox: its sending, and the inboxes compose sends from.
  'POST /v1/mail/inboxes',
  'DELETE /v1/mail/inboxes/{id}',
  'POST /v1/mail/compose',
  'POST /v1/mail/threads/{id}/reply',
  'POST /v1/mail/threads/{id}/forward',
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

  it('lets a test key manage webhooks and create templates and snippets, but not add a suppression (it would stop live mail)', async () => {
    const test = bed.account.test_admin_key;

    const hook = await bed.request({ method: 'POST', path: '/v1/webhooks', key: test, body: { endpoint_url: 'https://93.184.216.34/hook' } });
    const template = await bed.request({ method: 'POST', path: '/v1/templates', key: test, body: { name: 'ci', channel: 'email', subject: 'Hi', body_html: '<p>Hi</p>' } });
    const snippet = await bed.request({ method: 'POST', path: '/v1/templates/snippets', key: test, body: { name: 'ci_footer', body_html: '<p>Bye</p>' } });
    const suppress = await bed.request({ method: 'POST', path: '/v1/suppressions', key: test, body: { channel: 'email', recipient: 'gone@example.com' } });
    const removeHook = await bed.request({ method: 'DELETE', path: `/v1/webhooks/${hook.body.id}`, key: test });

    expect(hook.status).toBe(201);
    expect(template.status).toBe(201);
    expect(snippet.status).toBe(201);
    expect(suppress.status).toBe(403);
    expect(removeHook.status).toBeLessThan(300);
    const listed = await bed.request({ method: 'GET', path: '/v1/suppressions', key: bed.account.admin_key });
    expect(JSON.stringify(listed.body)).not.toContain('gone@example.com');
  });

  it('answers a test key 404 on a live integration\'s webhook subscription: it cannot pause, repoint, re-key or delete it', async () => {
    const test = bed.account.test_admin_key;
    const hook = await bed.request({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/live' } });
    expect(hook.status).toBe(201);
    const path = `/v1/webhooks/${hook.body.id}`;

    const attempts = [
      await bed.request({ method: 'PUT', path, key: test, body: { is_active: false, endpoint_url: 'https://93.184.216.35/evil' } }),
      await bed.request({ method: 'POST', path: `${path}/rotate-secret`, key: test }),
      await bed.request({ method: 'DELETE', path, key: test }),
    ];

    for (const res of attempts) expect(res.body).toEqual({ error: { code: 'not_found', message: expect.any(String), status: 404 } });
    const after = await bed.request({ method: 'GET', path, key: test });
    expect(after.body).toMatchObject({ endpoint_url: 'https://93.184.216.34/live', is_active: true });
    expect((await bed.request({ method: 'PUT', path, key: bed.account.admin_key, body: { is_active: false } })).status).toBe(200);
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

describe('live broadcasts and a test-mode key (issue 28)', () => {
  const liveDraft = async (): Promise<string> => {
    const res = await bed.request({
      method: 'POST',
      path: '/v1/broadcasts',
      key: bed.account.admin_key,
      body: { from_email: 'news@acme.test', name: 'April news', subject: 'News', body_text: 'News for you', recipients: [{ email: 'ada@example.com' }] },
    });
    expect(res.status).toBe(201);
    return res.body.id;
  };
  const fanoutJobs = () => bed.c.sent.filter((s) => s.queue === 'fanout').length;

  it('answers 404 to a test key editing, sending or cancelling a live draft, as for an unknown id; the draft is unchanged and nothing is queued', async () => {
    // Prepare
    const id = await liveDraft();
    const before = await bed.request({ method: 'GET', path: `/v1/broadcasts/${id}`, key: bed.account.admin_key });
    const jobs = fanoutJobs();
    const test = bed.account.test_admin_key;
    const recipients = Array.from({ length: 50 }, (_, i) => ({ email: `stranger-${i}@example.org` }));
    // Act
    const edit = await bed.request({ method: 'PATCH', path: `/v1/broadcasts/${id}`, key: test, body: { subject: 'Buy now', body_text: 'Spam', recipients } });
    const start = await bed.request({ method: 'POST', path: `/v1/broadcasts/${id}/send`, key: test });
    const stop = await bed.request({ method: 'POST', path: `/v1/broadcasts/${id}/cancel`, key: test });
    const unknown = await bed.request({ method: 'POST', path: '/v1/broadcasts/bcast_00000000000000000000000000/send', key: test });
    // Assess
    for (const res of [edit, start, stop]) {
      expect(res.status).toBe(404);
      expect(res.body).toEqual(unknown.body);
    }
    const after = await bed.request({ method: 'GET', path: `/v1/broadcasts/${id}`, key: bed.account.admin_key });
    expect(after.body).toEqual(before.body);
    expect(after.body.broadcast).toMatchObject({ status: 'draft', total_recipients: 1 });
    expect(fanoutJobs()).toBe(jobs);
  });

  it('lets a test key move its own test broadcasts, and a live key move live ones', async () => {
    const test = bed.account.test_admin_key;
    const body = { from_email: 'news@acme.test', subject: 'Test news', body_text: 'Hi', recipients: [{ email: 'ada@example.com' }] };
    const mine = await bed.request({ method: 'POST', path: '/v1/broadcasts', key: test, body });
    const other = await bed.request({ method: 'POST', path: '/v1/broadcasts', key: test, body });

    const edited = await bed.request({ method: 'PATCH', path: `/v1/broadcasts/${mine.body.id}`, key: test, body: { subject: 'Edited' } });
    const sent = await bed.request({ method: 'POST', path: `/v1/broadcasts/${mine.body.id}/send`, key: test });
    const cancelled = await bed.request({ method: 'POST', path: `/v1/broadcasts/${other.body.id}/cancel`, key: test });
    const liveCancel = await bed.request({ method: 'POST', path: `/v1/broadcasts/${await liveDraft()}/cancel`, key: bed.account.admin_key });

    expect([edited.status, sent.status, cancelled.status, liveCancel.status]).toEqual([200, 202, 200, 200]);
    expect(sent.body.status).toBe('sending');
    expect(cancelled.body.status).toBe('cancelled');
  });
});

describe('templates and snippets that live mail renders, and a test-mode key (issue 28)', () => {
  it('refuses a test key changing or deleting a live template or snippet (403); both stay as they were', async () => {
    // Prepare
    const live = bed.account.admin_key;
    const test = bed.account.test_admin_key;
    const snippet = await bed.request({ method: 'POST', path: '/v1/templates/snippets', key: live, body: { name: 'footer', body_html: '<p>Kind regards</p>' } });
    const template = await bed.request({ method: 'POST', path: '/v1/templates', key: live, body: { name: 'welcome', channel: 'email', subject: 'Welcome', body_html: '<p>Hello</p>{{> footer }}' } });
    expect([snippet.status, template.status]).toEqual([201, 201]);
    // Act
    const put = await bed.request({ method: 'PUT', path: `/v1/templates/${template.body.id}`, key: test, body: { subject: 'Your password expired', body_html: '<a href="https://evil.example">Log in</a>' } });
    const remove = await bed.request({ method: 'DELETE', path: `/v1/templates/${template.body.id}`, key: test });
    const rewrite = await bed.request({ method: 'PATCH', path: `/v1/templates/snippets/${snippet.body.id}`, key: test, body: { body_html: '<a href="https://evil.example">x</a>' } });
    // Assess
    for (const res of [put, remove, rewrite]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('use a live key') });
    }
    const kept = await bed.request({ method: 'GET', path: `/v1/templates/${template.body.id}`, key: live });
    const keptSnippet = await bed.request({ method: 'GET', path: `/v1/templates/snippets/${snippet.body.id}`, key: live });
    expect(kept.body).toEqual(template.body);
    expect(keptSnippet.body).toEqual(snippet.body);
  });
});

describe('the session of a person who has not verified their address (issue 28)', () => {
  let n = 0;
  const mail = (to: string, from?: string) => ({
    channel: 'email',
    idempotency_key: `unverified-${++n}`,
    destination: { email: to },
    payload: { subject: 'Hello', body_text: 'Hi' },
    ...(from ? { metadata: { from_email: from } } : {}),
  });

  it('acts in test mode: a send is a test send (nothing leaves), live-only routes are 403; verified, the same session is live', async () => {
    // Prepare
    const s = await signUp(bed.request);
    // Act
    const sent = await bed.request(withSession(s, { method: 'POST', path: '/v1/send', body: mail(s.email) }));
    const domain = await bed.request(withSession(s, { method: 'POST', path: '/v1/domains', body: { domain: 'newcomer.test' } }));
    const tester = await bed.request(withSession(s, { method: 'POST', path: '/v1/test-recipients', body: { email: 'friend@example.org' } }));
    // Assess
    expect(sent.status).toBe(201);
    const message = await bed.request(withSession(s, { method: 'GET', path: `/v1/messages/${sent.body.id}` }));
    expect(message.body.test_mode).toBe(true);
    for (const res of [domain, tester]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toMatchObject({ code: 'forbidden', message: expect.stringContaining('verify your email address first') });
    }

    // Act: verified by the mailed link, the same session acts live from its next request.
    const token = linkTokenIn(bed.c.mailed.find((m) => m.to === s.email)?.text, 'verify-email');
    expect((await bed.request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } })).status).toBe(200);
    const live = await bed.request(withSession(s, { method: 'POST', path: '/v1/send', body: mail(s.email) }));
    const liveDomain = await bed.request(withSession(s, { method: 'POST', path: '/v1/domains', body: { domain: 'newcomer.test' } }));
    // Assess
    expect(live.status).toBe(201);
    expect((await bed.request(withSession(s, { method: 'GET', path: `/v1/messages/${live.body.id}` }))).body.test_mode).toBe(false);
    expect(liveDomain.status).toBe(201);
  });
});

describe('the audience of live broadcasts and a test-mode key (issue 28)', () => {
  it('refuses a test key adding a contact to a live list, or a new contact (403); the list keeps its members', async () => {
    // Prepare
    const live = bed.account.admin_key;
    const list = await bed.request({ method: 'POST', path: '/v1/lists', key: live, body: { name: 'Customers', type: 'static' } });
    const before = await bed.request({ method: 'GET', path: `/v1/lists/${list.body.id}/members`, key: live });
    // Act
    const member = await bed.request({ method: 'POST', path: `/v1/lists/${list.body.id}/members`, key: bed.account.test_admin_key, body: { email: 'attacker@example.org' } });
    const contact = await bed.request({ method: 'POST', path: '/v1/contacts', key: bed.account.test_admin_key, body: { email: 'attacker@example.org', list_ids: [list.body.id] } });
    // Assess
    expect([member.status, contact.status]).toEqual([403, 403]);
    const after = await bed.request({ method: 'GET', path: `/v1/lists/${list.body.id}/members`, key: live });
    expect(after.body).toEqual(before.body);
    const found = await bed.request({ method: 'GET', path: '/v1/contacts', key: live, query: { email: 'attacker@example.org' } });
    expect(found.body.contacts).toEqual([]);
  });
});

describe('a staff user whose own account is suspended (issue 28)', () => {
  it('is refused on the staff routes with 403 account_suspended; the staff token still works', async () => {
    // Prepare: a verified person made staff, signed in again, then their own account suspended.
    const staffToken = 'st_test_staff_token_value';
    const s = await signUp(bed.request);
    const token = linkTokenIn(bed.c.mailed.find((m) => m.to === s.email)?.text, 'verify-email');
    await bed.request({ method: 'POST', path: '/v1/auth/verify-email', body: { token } });
    expect((await bed.request({ method: 'POST', path: '/v1/admin/users/role', key: staffToken, body: { email: s.email, role: 'staff' } })).status).toBe(200);
    const staff = await sessionFrom(bed.request, await bed.request({ method: 'POST', path: '/v1/auth/login', body: { email: s.email, password: s.password } }), s);
    expect((await bed.request(withSession(staff, { method: 'GET', path: '/v1/admin/accounts' }))).status).toBe(200);
    expect((await bed.request({ method: 'POST', path: `/v1/admin/accounts/${s.accountId}/suspend`, key: staffToken })).status).toBe(200);
    // Act
    const listed = await bed.request(withSession(staff, { method: 'GET', path: '/v1/admin/accounts' }));
    const unsuspend = await bed.request(withSession(staff, { method: 'POST', path: `/v1/admin/accounts/${s.accountId}/unsuspend` }));
    // Assess
    for (const res of [listed, unsuspend]) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('account_suspended');
    }
    expect((await bed.request({ method: 'GET', path: `/v1/admin/accounts/${s.accountId}`, key: staffToken })).body.status).toBe('suspended');
  });
});
