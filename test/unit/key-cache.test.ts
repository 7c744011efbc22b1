// The in-process cache of verified keys: bounded, least recently used first out, and never
// keeping what a lookup read if the key or its account changed while the lookup ran.
import { describe, expect, it } from 'vitest';
import type { AccountItem } from '../../shared/accounts/repository';
import { VerifiedKeyCache, type VerifiedKey } from '../../shared/accounts/api-keys/cache';
import type { ApiKeyItem } from '../../shared/accounts/api-keys/repository';

const entry = (hash: string, accountId = 'acct_1', keyId = `key_${hash}`): VerifiedKey => ({
  hash,
  key: { id: keyId, account_id: accountId } as ApiKeyItem,
  account: { id: accountId } as AccountItem,
  checkedAt: 0,
  use: { unwritten: 0, writtenAt: 0 },
});

describe('VerifiedKeyCache', () => {
  it('keeps at most its bound, dropping the least recently used', () => {
    const cache = new VerifiedKeyCache(3);
    for (const hash of ['a', 'b', 'c']) cache.keep(entry(hash), cache.mark());

    cache.get('a'); // used again: b is now the least recently used
    cache.keep(entry('d'), cache.mark());

    expect(cache.size).toBe(3);
    expect(cache.get('b')).toBeUndefined();
    expect(['a', 'c', 'd'].map((hash) => cache.get(hash)?.hash)).toEqual(['a', 'c', 'd']);
  });

  it('does not keep what a lookup read when an invalidation happened meanwhile', () => {
    const cache = new VerifiedKeyCache(10);
    const mark = cache.mark();

    cache.forgetKey('acct_1', 'key_a'); // a rotation lands while the lookup of key_a reads the store
    cache.keep(entry('a'), mark);

    expect(cache.get('a')).toBeUndefined();
  });

  it('forgets every secret of a key, and every key of an account', () => {
    const cache = new VerifiedKeyCache(10);
    cache.keep(entry('old', 'acct_1', 'key_1'), cache.mark());
    cache.keep(entry('new', 'acct_1', 'key_1'), cache.mark());
    cache.keep(entry('other', 'acct_1', 'key_2'), cache.mark());
    cache.keep(entry('elsewhere', 'acct_2', 'key_3'), cache.mark());

    cache.forgetKey('acct_1', 'key_1');
    const afterKey = cache.size;
    cache.forgetAccount('acct_1');

    expect(afterKey).toBe(2);
    expect(cache.size).toBe(1);
    expect(cache.get('elsewhere')).toBeDefined();
  });
});
