// API keys end to end through the handler: secrets shown once, stored hashed, rotation and
// revocation effective at once, other accounts' keys invisible.
import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { ApiKeyRepository } from '../../shared/accounts/api-keys/repository';
import { accountPartition } from '../../shared/db/keys';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

const admin = () => bed.account.admin_key;
const post = (body: unknown, key = admin()) => call({ method: 'POST', path: '/v1/keys', key, body });

describe('POST /v1/keys', () => {
  it('creates a live send key by default and returns the secret once', async () => {
    const res = await post(undefined);

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^key_[0-9a-z]{26}$/),
      key: expect.stringMatching(/^sk_live_[0-9A-Za-z]{40}$/),
      key_prefix: res.body.key.slice(0, 12),
      scope: 'send',
      name: 'send live key',
      test_mode: false,
      created_at: bed.c.clock.now().toISOString(),
    });
  });

  it('creates test-mode keys with the sk_test_ prefix', async () => {
    const res = await post({ scope: 'read', test_mode: true, name: 'ci' });

    expect(res.status).toBe(201);
    expect(res.body.key).toMatch(/^sk_test_/);
    expect(res.body).toMatchObject({ scope: 'read', test_mode: true, name: 'ci' });
  });

  it('stores only the SHA-256 of the secret', async () => {
    const res = await post({ scope: 'admin' });

    const { items } = await bed.c.store.query({ keyCondition: 'pk = :pk', values: { ':pk': accountPartition(bed.account.account_id) } });
    const stored = JSON.stringify(items);
    expect(stored).not.toContain(res.body.key);
    expect(stored).toContain(createHash('sha256').update(res.body.key).digest('hex'));
  });

  it('refuses a live key to a test-mode caller', async () => {
    const res = await post({ test_mode: false }, bed.account.test_admin_key);

    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('forbidden');
  });

  it.each([
    [{ scope: 'root' }, 'body.scope'],
    [{ test_mode: 'yes' }, 'body.test_mode'],
    [{ name: '' }, 'body.name'],
    [{ colour: 'red' }, 'body'],
    [[1, 2], 'body'],
  ])('answers 400 invalid_request for %j naming %s', async (body, field) => {
    const res = await post(body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith(`${field}`)).toBe(true);
  });
});

describe('GET /v1/keys', () => {
  it('lists keys newest first with key_prefix and never the secret', async () => {
    bed.c.clock.advance(1);
    const created = await post({ scope: 'read' });

    const res = await call({ method: 'GET', path: '/v1/keys', key: admin() });

    expect(res.status).toBe(200);
    expect(res.body.next_cursor).toBeNull();
    expect(res.body.keys).toHaveLength(3);
    expect(res.body.keys[0]).toEqual({
      id: created.body.id,
      key_prefix: created.body.key_prefix,
      scope: 'read',
      name: 'read live key',
      is_revoked: false,
      test_mode: false,
      last_used_at: null,
      request_count: 0,
      created_at: created.body.created_at,
    });
    expect(JSON.stringify(res.body)).not.toContain(created.body.key);
    expect(res.body.keys.map((k: { name: string }) => k.name).slice(1)).toEqual(['admin test key', 'admin live key']);
  });

  it('walks every key exactly once with limit and cursor, ending with next_cursor null', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) ids.push((await post({ name: `k${i}` })).body.id);
    bed.c.clock.advance(2000);

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await call({ method: 'GET', path: '/v1/keys', key: admin(), query: { limit: '2', ...(cursor ? { cursor } : {}) } });
      expect(res.status).toBe(200);
      expect(res.body.keys.length).toBeLessThanOrEqual(2);
      seen.push(...res.body.keys.map((k: { id: string }) => k.id));
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }

    expect(seen).toHaveLength(7);
    expect(new Set(seen).size).toBe(7);
    expect(seen.slice(0, 5)).toEqual([...ids].reverse());
  });

  it('refuses a tampered cursor and another account’s cursor with 400', async () => {
    for (let i = 0; i < 3; i++) await post({});
    const first = await call({ method: 'GET', path: '/v1/keys', key: admin(), query: { limit: '1' } });
    const cursor: string = first.body.next_cursor;
    const other = await createAccount(bed.c, {});
    const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;

    const bad = await call({ method: 'GET', path: '/v1/keys', key: admin(), query: { cursor: tampered } });
    const foreign = await call({ method: 'GET', path: '/v1/keys', key: other.admin_key, query: { cursor } });

    expect(cursor).toEqual(expect.any(String));
    for (const res of [bad, foreign]) {
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('invalid_request');
    }
  });
});

describe('POST /v1/keys/{id}/rotate', () => {
  it('returns a new secret and the old one stops working at once', async () => {
    const created = await post({ scope: 'read' });

    const rotated = await call({ method: 'POST', path: `/v1/keys/${created.body.id}/rotate`, key: admin() });
    const withOld = await call({ method: 'GET', path: '/v1/account/verification', key: created.body.key });
    const withNew = await call({ method: 'GET', path: '/v1/account/verification', key: rotated.body.key });

    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: created.body.id, scope: 'read', key: expect.stringMatching(/^sk_live_/) });
    expect(rotated.body.key).not.toBe(created.body.key);
    expect(rotated.body.key_prefix).toBe(rotated.body.key.slice(0, 12));
    expect(withOld.status).toBe(401);
    expect(withNew.status).toBe(200);
  });

  it('answers 404 for an unknown id, another account’s key and a revoked key', async () => {
    const other = await createAccount(bed.c, {});
    const theirs = await post({}, other.admin_key);
    const revoked = await post({});
    await call({ method: 'DELETE', path: `/v1/keys/${revoked.body.id}`, key: admin() });

    for (const id of ['key_00000000000000000000000000', theirs.body.id, revoked.body.id]) {
      const res = await call({ method: 'POST', path: `/v1/keys/${id}/rotate`, key: admin() });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: theirs.body.key })).status).toBe(200);
  });

  it('answers 409 conflict when another rotation lands first, and only the winner’s secret works', async () => {
    const created = await post({});
    const realGet = ApiKeyRepository.prototype.get;
    let winner: Awaited<ReturnType<typeof call>> | undefined;
    const spy = vi.spyOn(ApiKeyRepository.prototype, 'get').mockImplementationOnce(async function (this: ApiKeyRepository, accountId, keyId) {
      const seen = await realGet.call(this, accountId, keyId);
      spy.mockRestore();
      // The other rotation runs between this one's read and its write.
      winner = await call({ method: 'POST', path: `/v1/keys/${created.body.id}/rotate`, key: admin() });
      return seen;
    });

    const loser = await call({ method: 'POST', path: `/v1/keys/${created.body.id}/rotate`, key: admin() });

    expect(loser.status).toBe(409);
    expect(loser.body.error.code).toBe('conflict');
    expect(winner?.status).toBe(200);
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: winner?.body.key })).status).toBe(200);
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: created.body.key })).status).toBe(401);
  });
});

describe('DELETE /v1/keys/{id}', () => {
  it('revokes for good: 204, later use 401, listed as revoked, a second delete 404', async () => {
    const created = await post({});

    const res = await call({ method: 'DELETE', path: `/v1/keys/${created.body.id}`, key: admin() });
    const use = await call({ method: 'GET', path: '/v1/account/verification', key: created.body.key });
    const again = await call({ method: 'DELETE', path: `/v1/keys/${created.body.id}`, key: admin() });
    const list = await call({ method: 'GET', path: '/v1/keys', key: admin() });

    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(use.status).toBe(401);
    expect(again.status).toBe(404);
    expect(list.body.keys.find((k: { id: string }) => k.id === created.body.id).is_revoked).toBe(true);
  });

  it('answers 404 for another account’s key and leaves it working', async () => {
    const other = await createAccount(bed.c, {});
    const theirs = await post({}, other.admin_key);

    const res = await call({ method: 'DELETE', path: `/v1/keys/${theirs.body.id}`, key: admin() });

    expect(res.status).toBe(404);
    expect((await call({ method: 'GET', path: '/v1/account/verification', key: theirs.body.key })).status).toBe(200);
  });
});
