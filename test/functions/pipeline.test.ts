// The request pipeline as every route sees it: credentials, suspension, scope, limiter, body
// parsing and the error envelope. Handlers are called with API Gateway v2 events.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { setAccountStatus } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { KEY_CACHE_TTL_MS, verifiedKeys } from '../../shared/accounts/api-keys/cache';
import { createKey, KEY_USE_WRITE_INTERVAL_MS, revokeKey } from '../../shared/accounts/api-keys/service';
import { keys } from '../../shared/db/keys';
import { call } from '../support/api';
import { type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';

let c: TestContainer;

interface StoreCommand {
  name: string;
  /** The item's keys for single-item commands. */
  key?: { pk: string; sk: string };
}

/** Records what reaches DynamoDB while `act` runs: the round trips, the part of the work that takes measurable time. */
async function storeCommandsOf<T>(act: () => Promise<T>): Promise<{ result: T; commands: StoreCommand[] }> {
  const original = c.store.doc.send.bind(c.store.doc);
  const commands: StoreCommand[] = [];
  const spy = vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: { Key?: StoreCommand['key'] } }) => {
    commands.push({ name: command.constructor.name, key: command.input.Key });
    return original(command as never);
  }) as never);
  try {
    return { result: await act(), commands };
  } finally {
    spy.mockRestore();
  }
}

const names = (commands: StoreCommand[]): string[] => commands.map((command) => command.name);
const writesTo = (commands: StoreCommand[], key: { pk: string; sk: string }): number =>
  commands.filter((command) => command.name === 'UpdateCommand' && command.key?.pk === key.pk && command.key.sk === key.sk).length;

const env = useContainer();
beforeAll(() => void (c = env.c));

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

  it('does the same store work and gives the same answer for a malformed token as for an unknown key, and keeps neither', async () => {
    // Prepare
    const tokens = { malformed: 'hello', unknown: `sk_live_${'A'.repeat(40)}`, oversized: `sk_live_${'A'.repeat(5000)}` };
    const kept = verifiedKeys.size;

    // Act: each token twice, so a second try shows what the first left behind.
    const seen: Record<string, { commands: string[]; status: number; body: unknown }> = {};
    for (const [label, token] of Object.entries(tokens)) {
      for (const attempt of [1, 2]) {
        const { result: res, commands } = await storeCommandsOf(() => call({ method: 'GET', path: '/v1/keys', headers: { authorization: `Bearer ${token}` } }));
        seen[`${label} ${attempt}`] = { commands: names(commands), status: res.status, body: res.body };
      }
    }

    // Assess
    expect(seen['unknown 1']?.commands).toEqual(['GetCommand']);
    for (const outcome of Object.values(seen)) expect(outcome).toEqual(seen['unknown 1']);
    expect(seen['unknown 1']?.body).toEqual({ error: { code: 'unauthorized', message: 'unknown or revoked API key', status: 401 } });
    expect(verifiedKeys.size).toBe(kept);
  });

  it('refuses a revoked key with 401', async () => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
    await revokeKey(c, account.account_id, key.id, { testMode: false });

    const res = await call({ method: 'GET', path: '/v1/account/verification', key: key.key });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });
});

describe('store round trips', () => {
  it('a warm authenticated GET /v1/keys makes two store calls: the limiter’s write and the route’s query', async () => {
    // Prepare: the first request verifies the key (and writes its first use).
    const account = await newAccount();
    const cold = await storeCommandsOf(() => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));
    c.clock.advance(100);

    // Act
    const warm = await storeCommandsOf(() => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    // Assess
    expect(cold.result.status).toBe(200);
    expect(names(cold.commands)).toEqual(['GetCommand', 'BatchGetCommand', 'UpdateCommand', 'UpdateCommand', 'QueryCommand']);
    expect(warm.result.status).toBe(200);
    expect(warm.commands).toEqual([
      { name: 'UpdateCommand', key: keys.rateLog(keys.accountRateSubject(account.account_id)) },
      { name: 'QueryCommand', key: undefined },
    ]);
  });

  it(`confirms a key verified more than ${KEY_CACHE_TTL_MS / 1000} s ago with one read of its record and account`, async () => {
    const account = await newAccount();
    await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });
    c.clock.advance(KEY_CACHE_TTL_MS);

    const { result: res, commands } = await storeCommandsOf(() => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    expect(res.status).toBe(200);
    expect(names(commands)).toEqual(['BatchGetCommand', 'UpdateCommand', 'QueryCommand']);
  });
});

describe('changes to keys and accounts', () => {
  const verification = (key: string) => call({ method: 'GET', path: '/v1/account/verification', key });

  describe('made through this process hold at once', () => {
    it('revocation', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
      const before = await verification(key.key);

      await revokeKey(c, account.account_id, key.id, { testMode: false });

      expect(before.status).toBe(200);
      expect((await verification(key.key)).status).toBe(401);
    });

    it('rotation: the old secret is refused, the new one works', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
      const before = await verification(key.key);

      const rotated = await call({ method: 'POST', path: `/v1/keys/${key.id}/rotate`, key: account.admin_key });

      expect(before.status).toBe(200);
      expect((await verification(key.key)).status).toBe(401);
      expect((await verification(rotated.body.key)).status).toBe(200);
    });

    it('suspension and its lifting', async () => {
      const account = await newAccount();
      const before = await verification(account.admin_key);

      await setAccountStatus(c, account.account_id, 'suspended');
      const suspended = await verification(account.admin_key);
      await setAccountStatus(c, account.account_id, 'active');
      const lifted = await verification(account.admin_key);

      expect(before.status).toBe(200);
      expect(suspended.body.error.code).toBe('account_suspended');
      expect(lifted.status).toBe(200);
    });
  });

  // Another process changes the store and cannot reach this process's cache: here the store is
  // changed directly, and the clock moves past the cache's bound.
  describe(`made by another process hold within ${KEY_CACHE_TTL_MS / 1000} s`, () => {
    it('revocation', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
      await verification(key.key);
      await c.store.update(keys.apiKey(account.account_id, key.id), { expression: 'SET is_revoked = :true', values: { ':true': true } });

      c.clock.advance(KEY_CACHE_TTL_MS - 1);
      const withinBound = await verification(key.key);
      c.clock.advance(1);
      const pastBound = await verification(key.key);

      expect(withinBound.status).toBe(200);
      expect(pastBound.status).toBe(401);
    });

    it('rotation', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
      await verification(key.key);
      await c.store.update(keys.apiKey(account.account_id, key.id), { expression: 'SET key_hash = :other', values: { ':other': '0'.repeat(64) } });

      c.clock.advance(KEY_CACHE_TTL_MS);

      expect((await verification(key.key)).status).toBe(401);
    });

    it('deletion of the key record', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
      await verification(key.key);
      await c.store.delete(keys.apiKey(account.account_id, key.id));

      c.clock.advance(KEY_CACHE_TTL_MS);

      expect((await verification(key.key)).status).toBe(401);
    });

    it('a change of scope', async () => {
      const account = await newAccount();
      const key = await createKey(c, account.account_id, { scope: 'admin' }, { testMode: false });
      const before = await call({ method: 'GET', path: '/v1/keys', key: key.key });
      await c.store.update(keys.apiKey(account.account_id, key.id), { expression: 'SET #scope = :read', names: { '#scope': 'scope' }, values: { ':read': 'read' } });

      c.clock.advance(KEY_CACHE_TTL_MS);
      const after = await call({ method: 'GET', path: '/v1/keys', key: key.key });

      expect(before.status).toBe(200);
      expect(after.status).toBe(403);
    });

    it('suspension', async () => {
      const account = await newAccount();
      await verification(account.admin_key);
      await c.store.update(keys.account(account.account_id), { expression: 'SET #status = :suspended', names: { '#status': 'status' }, values: { ':suspended': 'suspended' } });

      c.clock.advance(KEY_CACHE_TTL_MS);
      const res = await verification(account.admin_key);

      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('account_suspended');
    });
  });
});

describe('key use', () => {
  const verification = (key: string) => call({ method: 'GET', path: '/v1/account/verification', key });

  it('is written to the key record at most once a minute, with every request counted since', async () => {
    // Prepare
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
    const listed = async () => (await call({ method: 'GET', path: '/v1/keys', key: account.admin_key })).body.keys.find((k: { id: string }) => k.id === key.id);

    // Act: a first use, three more within the minute, then one a minute after the first.
    const { result, commands } = await storeCommandsOf(async () => {
      await verification(key.key);
      const firstAt = c.clock.now().toISOString();
      for (let i = 0; i < 3; i++) {
        c.clock.advance(1000);
        await verification(key.key);
      }
      const withinMinute = await listed();
      c.clock.advance(KEY_USE_WRITE_INTERVAL_MS - 3000);
      await verification(key.key);
      return { firstAt, withinMinute, lastAt: c.clock.now().toISOString(), afterMinute: await listed() };
    });

    // Assess
    expect(result.withinMinute).toMatchObject({ request_count: 1, last_used_at: result.firstAt });
    expect(result.afterMinute).toMatchObject({ request_count: 5, last_used_at: result.lastAt });
    expect(writesTo(commands, keys.apiKey(account.account_id, key.id))).toBe(2);
  });

  it('is not written while another process wrote it less than a minute ago', async () => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
    const elsewhere = new Date(c.clock.now().getTime() - 30_000).toISOString();
    await c.store.update(keys.apiKey(account.account_id, key.id), { expression: 'SET last_used_at = :at', values: { ':at': elsewhere } });

    const early = await storeCommandsOf(() => verification(key.key));
    c.clock.advance(30_000);
    const due = await storeCommandsOf(() => verification(key.key));

    expect(writesTo(early.commands, keys.apiKey(account.account_id, key.id))).toBe(0);
    expect(writesTo(due.commands, keys.apiKey(account.account_id, key.id))).toBe(1);
    expect((await c.store.get<{ request_count: number }>(keys.apiKey(account.account_id, key.id)))?.request_count).toBe(2);
  });

  it('fails no request when its write fails, and the next write adds the requests it missed', async () => {
    const account = await newAccount();
    const key = await createKey(c, account.account_id, { scope: 'read' }, { testMode: false });
    const record = keys.apiKey(account.account_id, key.id);
    const original = c.store.doc.send.bind(c.store.doc);
    const spy = vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { constructor: { name: string }; input: { Key?: { sk: string } } }) => {
      if (command.constructor.name === 'UpdateCommand' && command.input.Key?.sk === record.sk) return Promise.reject(new Error('store unavailable'));
      return original(command as never);
    }) as never);
    c.logs.length = 0;

    const failed = await verification(key.key);
    spy.mockRestore();
    c.clock.advance(1000);
    await verification(key.key);

    expect(failed.status).toBe(200);
    expect(c.logs.filter((l) => l.level === 'warn' && String(l.msg).includes('key use'))).toHaveLength(1);
    expect((await c.store.get<{ request_count: number }>(record))?.request_count).toBe(2);
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
