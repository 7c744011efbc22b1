// Staff routes (account creation and suspension, per-IP limited) and the verification readout.
import { beforeAll, describe, expect, it } from 'vitest';
import { createKey } from '../../shared/accounts/api-keys/service';
import { call } from '../support/api';
import { TEST_SECRETS, type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';

let c: TestContainer;
const staff = TEST_SECRETS['staff-token'];
let ip = 0;
const nextIp = () => `203.0.113.${++ip}`;

const env = useContainer();
beforeAll(() => void (c = env.c));

describe('POST /v1/admin/accounts', () => {
  it('creates an account whose admin keys work, answering the account and its keys (never the staff token)', async () => {
    const res = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: { name: 'Acme', email: 'Ops@Acme.test' }, sourceIp: nextIp() });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      account_id: expect.stringMatching(/^acct_/),
      admin_key: expect.stringMatching(/^sk_live_/),
      test_admin_key: expect.stringMatching(/^sk_test_/),
    });
    const keys = await call({ method: 'GET', path: '/v1/keys', key: res.body.admin_key });
    expect(keys.status).toBe(200);
    expect(keys.body.keys.map((k: { scope: string; test_mode: boolean }) => [k.scope, k.test_mode])).toEqual([
      ['admin', true],
      ['admin', false],
    ]);
  });

  it.each([
    ['no token', undefined],
    ['a wrong token', 'st_wrong'],
    ['an API key instead of the staff token', 'sk_live_' + 'A'.repeat(40)],
  ])('answers 401 for %s', async (_label, token) => {
    const res = await call({ method: 'POST', path: '/v1/admin/accounts', key: token, body: {}, sourceIp: nextIp() });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('answers 400 naming the field for a bad email', async () => {
    const res = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: { email: 'not-an-address' }, sourceIp: nextIp() });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toMatch(/^body\.email: /);
  });

  it('limits each client IP to 10 requests a second, wrong tokens included', async () => {
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await call({ method: 'POST', path: '/v1/admin/accounts/acct_x/suspend', key: 'st_guess', sourceIp: address })).status);
    }
    const elsewhere = await call({ method: 'POST', path: '/v1/admin/accounts/acct_x/suspend', key: 'st_guess', sourceIp: nextIp() });

    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(401));
    expect(statuses[10]).toBe(429);
    expect(elsewhere.status).toBe(401);
  });
});

describe('public routes', () => {
  it('limit each client IP to 10 requests a second too', async () => {
    const address = nextIp();
    const statuses: number[] = [];
    for (let i = 0; i < 11; i++) {
      statuses.push((await call({ method: 'GET', path: '/v1/test-recipients/verify', query: { token: 'nope' }, sourceIp: address })).status);
    }
    const elsewhere = await call({ method: 'GET', path: '/v1/bimi/acme.test/logo.svg', sourceIp: nextIp() });

    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(400));
    expect(statuses[10]).toBe(429);
    expect(elsewhere.status).toBe(404);
  });
});

describe('suspend and unsuspend', () => {
  it('switch an account off and on, and 404 for an unknown account', async () => {
    const created = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: {}, sourceIp: nextIp() });
    const id = created.body.account_id;

    const suspended = await call({ method: 'POST', path: `/v1/admin/accounts/${id}/suspend`, key: staff, sourceIp: nextIp() });
    const blocked = await call({ method: 'GET', path: '/v1/account/verification', key: created.body.admin_key });
    const lifted = await call({ method: 'POST', path: `/v1/admin/accounts/${id}/unsuspend`, key: staff, sourceIp: nextIp() });
    const open = await call({ method: 'GET', path: '/v1/account/verification', key: created.body.admin_key });
    const unknown = await call({ method: 'POST', path: '/v1/admin/accounts/acct_nobody/suspend', key: staff, sourceIp: nextIp() });

    expect(suspended.body).toEqual({ account_id: id, status: 'suspended' });
    expect(blocked.status).toBe(403);
    expect(blocked.body.error.code).toBe('account_suspended');
    expect(lifted.body).toEqual({ account_id: id, status: 'active' });
    expect(open.status).toBe(200);
    expect(unknown.status).toBe(404);
  });
});

describe('GET /v1/account/verification', () => {
  it('reports email in the sandbox and the other channels not configured', async () => {
    const created = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: {}, sourceIp: nextIp() });

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: created.body.test_admin_key });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      account_id: created.body.account_id,
      sandbox_mode: true,
      shared_email_sender: 'onboarding@sandbox.test',
      channels: [
        { channel: 'email', status: 'sandbox', verified: false },
        { channel: 'sms', status: 'not_configured', verified: false },
        { channel: 'push', status: 'not_configured', verified: false },
        { channel: 'voice', status: 'not_configured', verified: false },
        { channel: 'webhook', status: 'not_configured', verified: false },
      ],
    });
  });
});

describe('PUT /v1/account/channels/{channel}', () => {
  it('turns the webhook channel on and off, and refuses what it cannot do', async () => {
    const created = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: {}, sourceIp: nextIp() });
    const key = created.body.admin_key as string;
    const put = (channel: string, body: unknown, k = key) => call({ method: 'PUT', path: `/v1/account/channels/${channel}`, key: k, body });

    const on = await put('webhook', { enabled: true });
    const ready = await call({ method: 'GET', path: '/v1/account/verification', key });
    const off = await put('webhook', { enabled: false });
    const unknown = await put('fax', { enabled: true });
    const noProvider = await put('voice', { enabled: true });
    const badBody = await put('webhook', { enabled: 'yes' });
    const testKey = await put('webhook', { enabled: true }, created.body.test_admin_key);

    expect(on.body).toEqual({ channel: 'webhook', enabled: true });
    expect(ready.body.channels).toContainEqual({ channel: 'webhook', status: 'ready', verified: true });
    expect(off.body).toEqual({ channel: 'webhook', enabled: false });
    expect(unknown.status).toBe(404);
    expect(noProvider.body.error.code).toBe('channel_not_enabled');
    expect(badBody.status).toBe(400);
    expect(badBody.body.error.message).toMatch(/^body\.enabled: /);
    expect(testKey.status).toBe(403); // a test-mode key cannot change what live mail does
  });

  it('needs an admin key', async () => {
    const created = await call({ method: 'POST', path: '/v1/admin/accounts', key: staff, body: {}, sourceIp: nextIp() });
    const send = await createKey(c, created.body.account_id, { scope: 'send' }, { testMode: false });

    const res = await call({ method: 'PUT', path: '/v1/account/channels/webhook', key: send.key, body: { enabled: true } });

    expect(res.status).toBe(403);
  });
});
