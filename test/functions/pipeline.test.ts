// The request pipeline as every route sees it: credentials, suspension, scope, limiter, body
// parsing and the error envelope. Handlers are called with API Gateway v2 events.
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { createAccount, setAccountStatus } from '../../shared/accounts/service';
import { createKey, revokeKey } from '../../shared/api-keys/service';
import { installContainer } from '../../shared/runtime/container';
import { call } from '../support/api';
import { createTestContainer, type TestContainer } from '../support/container';

let c: TestContainer;

beforeAll(async () => {
  c = await createTestContainer();
  installContainer(c);
});
afterAll(async () => c.testStore.close());
// Each test moves two seconds on, so the account limiter starts every test with a full budget.
beforeEach(() => c.clock.advance(2000));

const newAccount = () => createAccount(c, { name: 'pipeline' });

describe('authentication', () => {
  it.each([
    ['no header', undefined],
    ['a non-Bearer scheme', 'Basic dXNlcjpwYXNz'],
    ['Bearer with nothing after it', 'Bearer '],
    ['a value that is not a key', 'Bearer hello'],
    ['a well-formed key nobody issued', `Bearer sk_live_${'A'.repeat(40)}`],
  ])('answers 401 unauthorized for %s', async (_label, authorization) => {
    // Act
    const res = await call({ method: 'GET', path: '/v1/keys', headers: authorization ? { authorization } : {} });

    // Assess
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'unauthorized', message: expect.any(String), status: 401 } });
    expect(res.headers['x-ratelimit-limit']).toBeUndefined();
  });

  it('does the same store work and gives the same answer for a malformed token as for an unknown key', async () => {
    // Prepare: count what reaches DynamoDB, the part of the work that takes measurable time.
    const original = c.store.doc.send.bind(c.store.doc);
    const commands: string[] = [];
    const spy = vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string } }) => {
      commands.push(command.constructor.name);
      return original(command as never);
    }) as never);
    const tokens = { malformed: 'hello', unknown: `sk_live_${'A'.repeat(40)}`, oversized: `sk_live_${'A'.repeat(5000)}` };

    // Act
    const seen: Record<string, { commands: string[]; status: number; body: unknown }> = {};
    try {
      for (const [label, token] of Object.entries(tokens)) {
        commands.length = 0;
        const res = await call({ method: 'GET', path: '/v1/keys', headers: { authorization: `Bearer ${token}` } });
        seen[label] = { commands: [...commands], status: res.status, body: res.body };
      }
    } finally {
      spy.mockRestore();
    }

    // Assess
    expect(seen.unknown?.commands).toEqual(['GetCommand']);
    expect(seen.malformed).toEqual(seen.unknown);
    expect(seen.oversized).toEqual(seen.unknown);
    expect(seen.unknown?.body).toEqual({ error: { code: 'unauthorized', message: 'unknown or revoked API key', status: 401 } });
  });

  it('refuses a revoked key with 401', async () => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
    await revokeKey(c, account.account_id, key.id, { testMode: false });

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: key.key });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });

  it('records last_used_at and request_count on each authenticated request', async () => {
    const account = await newAccount();
    await call({ method: 'GET', path: '/v1/account/verification', key: account.admin_key });
    c.clock.advance(5);
    await call({ method: 'GET', path: '/v1/account/verification', key: account.admin_key });

    const res = await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });

    const live = res.body.keys.find((k: { test_mode: boolean }) => !k.test_mode);
    expect(live.request_count).toBe(3);
    expect(live.last_used_at).toBe(c.clock.now().toISOString());
  });
});

describe('scopes', () => {
  it.each([
    ['send', 403],
    ['read', 403],
    ['admin', 200],
  ] as const)('a %s key on GET /v1/keys gets %i', async (scope, status) => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope }, { testMode: false });

    const res = await call({ method: 'GET', path: '/v1/keys', key: key.key });

    expect(res.status).toBe(status);
    if (status === 403) expect(res.body).toEqual({ error: { code: 'forbidden', message: expect.stringContaining(scope), status: 403 } });
  });

  it.each(['send', 'read', 'admin'] as const)('GET /v1/account/verification accepts a %s key', async (scope) => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope }, { testMode: false });

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: key.key });

    expect(res.status).toBe(200);
    expect(res.body.account_id).toBe(account.account_id);
  });
});

describe('suspended accounts', () => {
  it('get 403 account_suspended on every route until the suspension is lifted', async () => {
    const account = await newAccount();
    await setAccountStatus(c, account.account_id, 'suspended');

    const list = await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });
    const verification = await call({ method: 'GET', path: '/v1/account/verification', key: account.test_admin_key });
    const create = await call({ method: 'POST', path: '/v1/keys', key: account.admin_key, body: {} });

    for (const res of [list, verification, create]) {
      expect(res.status).toBe(403);
      expect(res.body.error).toEqual({ code: 'account_suspended', message: expect.any(String), status: 403 });
    }
    await setAccountStatus(c, account.account_id, 'active');
    expect((await call({ method: 'GET', path: '/v1/keys', key: account.admin_key })).status).toBe(200);
  });
});

describe('bodies and routes', () => {
  it('answers malformed JSON with 400 invalid_request', async () => {
    const account = await newAccount();

    const res = await call({ method: 'POST', path: '/v1/keys', key: account.admin_key, rawBody: '{"scope": "send",' });

    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', message: 'body: malformed JSON', status: 400 });
  });

  it('names the offending field when the schema fails', async () => {
    const account = await newAccount();

    const res = await call({ method: 'POST', path: '/v1/keys', key: account.admin_key, body: { scope: 'owner' } });

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toMatch(/^body\.scope: /);
  });

  it('answers an unknown route with 404 in the envelope', async () => {
    const res = await call({ method: 'GET', path: '/v1/nothing-here' });

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'not_found', message: 'no route for GET /v1/nothing-here', status: 404 } });
  });

  it('answers a wrong method with 405 and an Allow header', async () => {
    const res = await call({ method: 'PATCH', path: '/v1/keys/key_123' });

    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('DELETE');
    expect(res.body.error).toEqual({ code: 'method_not_allowed', message: expect.stringContaining('PATCH'), status: 405 });
  });
});

describe('unexpected errors', () => {
  it('answer 500 internal_error with a generic message and log the error once with the request id', async () => {
    const account = await newAccount();
    const original = c.store.doc.send.bind(c.store.doc);
    const spy = vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string } }) => {
      if (command.constructor.name === 'QueryCommand') return Promise.reject(new Error('disk on fire: secret detail'));
      return original(command as never);
    }) as never);
    c.logs.length = 0;

    const res = await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });
    spy.mockRestore();

    expect(res.status).toBe(500);
    expect(res.body.error.code).toBe('internal_error');
    expect(res.body.error.message).not.toContain('disk on fire');
    expect(JSON.stringify(res.body)).not.toContain('at ');
    const requestId = res.headers['x-request-id'];
    expect(requestId).toBeTruthy();
    const errors = c.logs.filter((l) => l.level === 'error');
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ requestId, error: { message: 'disk on fire: secret detail' } });
  });
});

describe('account rate limit', () => {
  it('passes 10 requests in a second with headers, then answers 429 with Retry-After', async () => {
    const account = await newAccount();
    const results = [];
    for (let i = 0; i < 11; i++) {
      results.push(await call({ method: 'GET', path: '/v1/account/verification', key: i % 2 ? account.admin_key : account.test_admin_key }));
      c.clock.advance(10);
    }

    const passed = results.slice(0, 10);
    expect(passed.map((r) => r.status)).toEqual(Array(10).fill(200));
    expect(passed.map((r) => Number(r.headers['x-ratelimit-remaining']))).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0]);
    expect(passed[0]?.headers['x-ratelimit-limit']).toBe('10');
    const limited = results[10];
    expect(limited?.status).toBe(429);
    expect(limited?.body.error).toEqual({ code: 'rate_limit_exceeded', message: expect.any(String), status: 429 });
    expect(Number(limited?.headers['retry-after'])).toBeGreaterThanOrEqual(1);
  });

  it('processes nothing on a 429 and returns capacity as entries age past one second', async () => {
    const account = await newAccount();
    for (let i = 0; i < 10; i++) await call({ method: 'GET', path: '/v1/account/verification', key: account.admin_key });

    const refused = await call({ method: 'POST', path: '/v1/keys', key: account.admin_key, body: { scope: 'read' } });
    c.clock.advance(1000);
    const list = await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });

    expect(refused.status).toBe(429);
    expect(list.status).toBe(200);
    expect(list.body.keys.map((k: { scope: string }) => k.scope)).not.toContain('read');
  });

  it('counts each account separately', async () => {
    const first = await newAccount();
    const second = await newAccount();
    for (let i = 0; i < 10; i++) await call({ method: 'GET', path: '/v1/account/verification', key: first.admin_key });

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: second.admin_key });

    expect(res.status).toBe(200);
    expect(res.headers['x-ratelimit-remaining']).toBe('9');
  });
});
