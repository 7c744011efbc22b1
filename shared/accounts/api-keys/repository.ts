// API keys in the store: the key record under its account, and one lookup item per live secret,
// found by the secret's SHA-256.
import type { AccountItem } from '../repository';
import { allItems } from '../../db/all-items';
import { keys, type ItemKey, keyQueries } from '../../db/keys';
import { orConflict, wrote, type Store } from '../../db/store';
import { ApiError, NotFoundError } from '../../errors';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import type { Scope } from '../../platform';
import type { ApiKeyView } from './schemas';

export interface ApiKeyItem extends ItemKey {
  entity: 'api_key';
  id: string;
  account_id: string;
  key_hash: string;
  key_prefix: string;
  scope: Scope;
  name: string;
  test_mode: boolean;
  is_revoked: boolean;
  revoked_at?: string;
  rotated_at?: string;
  last_used_at?: string;
  request_count: number;
  created_at: string;
}

export type NewApiKey = Omit<ApiKeyItem, keyof ItemKey | 'entity'>;

export interface ApiKeyHashItem extends ItemKey {
  entity: 'api_key_hash';
  account_id: string;
  key_id: string;
}

/** List form: never the secret's hash. */
export function toApiKeyView(item: ApiKeyItem): ApiKeyView {
  return {
    id: item.id,
    key_prefix: item.key_prefix,
    scope: item.scope,
    name: item.name,
    is_revoked: item.is_revoked,
    test_mode: item.test_mode,
    last_used_at: item.last_used_at ?? null,
    request_count: item.request_count,
    created_at: item.created_at,
  };
}

export class ApiKeyRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, keyId: string): Promise<ApiKeyItem | undefined> {
    return this.store.get<ApiKeyItem>(keys.apiKey(accountId, keyId));
  }

  /** false when a key with this id exists already */
  create(key: NewApiKey): Promise<boolean> {
    const item: ApiKeyItem = { ...keys.apiKey(key.account_id, key.id), entity: 'api_key', ...key };
    return wrote(this.store.create(item));
  }

  /** An account's keys, newest first; only its test-mode keys with `testOnly`. */
  list(accountId: string, page: PageRequest, options: { testOnly?: boolean } = {}): Promise<Page<ApiKeyItem>> {
    const query = keyQueries.accountItems(accountId, keys.apiKeyPrefix);
    if (!options.testOnly) return queryPage<ApiKeyItem>(this.store, query, page);
    return queryPage<ApiKeyItem>(this.store, { ...query, filter: 'test_mode = :test', values: { ...query.values, ':test': true } }, page);
  }

  /** Every key of the account, revoked ones included (an account holds a few dozen at most). */
  all(accountId: string): Promise<ApiKeyItem[]> {
    return allItems<ApiKeyItem>(this.store, keyQueries.accountItems(accountId, keys.apiKeyPrefix));
  }

  /** false when this hash already leads to a key */
  createHash(hash: string, accountId: string, keyId: string): Promise<boolean> {
    const item: ApiKeyHashItem = { ...keys.apiKeyHash(hash), entity: 'api_key_hash', account_id: accountId, key_id: keyId };
    return wrote(this.store.create(item));
  }

  deleteHash(hash: string): Promise<void> {
    return this.store.delete(keys.apiKeyHash(hash));
  }

  /**
   * The key a secret's hash leads to and its account, read together. Undefined when either is
   * missing; whether the key still accepts this hash is the caller's check.
   */
  async findByHash(hash: string): Promise<{ key: ApiKeyItem; account: AccountItem } | undefined> {
    const ref = await this.store.get<ApiKeyHashItem>(keys.apiKeyHash(hash));
    if (!ref) return undefined;
    return this.getWithAccount(ref.account_id, ref.key_id);
  }

  /** A key record and its account in one round trip; undefined when either is missing. */
  async getWithAccount(accountId: string, keyId: string): Promise<{ key: ApiKeyItem; account: AccountItem } | undefined> {
    const found = await this.store.batchGet<ApiKeyItem | AccountItem>([keys.apiKey(accountId, keyId), keys.account(accountId)]);
    const key = found.find((i): i is ApiKeyItem => i.entity === 'api_key');
    const account = found.find((i): i is AccountItem => i.entity === 'account');
    return key && account ? { key, account } : undefined;
  }

  /**
   * Swaps the secret of a live key whose hash is still `oldHash`; the record's hash is what
   * authentication trusts, so this one write retires the old secret. ApiError conflict when the
   * key was rotated or revoked meanwhile.
   */
  replaceSecret(accountId: string, keyId: string, change: { oldHash: string; hash: string; prefix: string; now: string }): Promise<ApiKeyItem> {
    return orConflict(
      this.store.update<ApiKeyItem>(keys.apiKey(accountId, keyId), {
        expression: 'SET key_hash = :new, key_prefix = :prefix, rotated_at = :now',
        condition: 'key_hash = :old AND is_revoked = :false',
        values: { ':new': change.hash, ':prefix': change.prefix, ':now': change.now, ':old': change.oldHash, ':false': false },
      }),
      () => new ApiError('conflict', 'the key changed while rotating; try again'),
    );
  }

  /**
   * The revoked key; NotFoundError when there is no such key, it was revoked already, or it is a
   * live key and `testOnly` is set.
   */
  revoke(accountId: string, keyId: string, now: string, options: { testOnly?: boolean } = {}): Promise<ApiKeyItem> {
    return orConflict(
      this.store.update<ApiKeyItem>(keys.apiKey(accountId, keyId), {
        expression: 'SET is_revoked = :true, revoked_at = :now',
        condition: `attribute_exists(pk) AND is_revoked = :false${options.testOnly ? ' AND test_mode = :true' : ''}`,
        values: { ':true': true, ':false': false, ':now': now },
      }),
      () => new NotFoundError('API key'),
    );
  }

  /** Adds `requests` to the key's count and stamps its last use; false when the key record is gone. */
  recordUse(accountId: string, keyId: string, now: string, requests: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.apiKey(accountId, keyId), {
        expression: 'SET last_used_at = :now ADD request_count :requests',
        condition: 'attribute_exists(pk)',
        values: { ':now': now, ':requests': requests },
      }),
    );
  }
}
