// API keys: created and rotated with a secret shown once, stored only as its SHA-256.
import { randomBase62, sha256Hex } from '../crypto';
import { accountPartition, keys } from '../db/keys';
import type { Store } from '../db/store';
import { ApiError, ConditionFailedError, NotFoundError } from '../errors';
import type { Ids } from '../ids';
import { listAccountItems, type Page } from '../pagination';
import type { Clock } from '../ports/clock';
import type { AccountItem } from '../accounts/service';
import type { Scope } from '../platform';
import type { ApiKeyView, CreateKeyBody, CreatedApiKeyView } from './schemas';

/** Recorded in docs/api-decisions.md: least privilege when the caller does not say. */
export const DEFAULT_SCOPE: Scope = 'send';
const SECRET_LENGTH = 40;
const PREFIX_LENGTH = 12;

export interface KeyDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

export interface ApiKeyItem {
  pk: string;
  sk: string;
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

export interface ApiKeyHashItem {
  pk: string;
  sk: string;
  entity: 'api_key_hash';
  account_id: string;
  key_id: string;
}

export const keyPattern = /^sk_(live|test)_[0-9A-Za-z]{40}$/;

function newSecret(testMode: boolean): { secret: string; hash: string; prefix: string } {
  const secret = `sk_${testMode ? 'test' : 'live'}_${randomBase62(SECRET_LENGTH)}`;
  return { secret, hash: sha256Hex(secret), prefix: secret.slice(0, PREFIX_LENGTH) };
}

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

function created(item: ApiKeyItem, secret: string): CreatedApiKeyView {
  return {
    id: item.id,
    key: secret,
    key_prefix: item.key_prefix,
    scope: item.scope,
    name: item.name,
    test_mode: item.test_mode,
    created_at: item.created_at,
  };
}

async function putHash(store: Store, hash: string, accountId: string, keyId: string): Promise<void> {
  const item: ApiKeyHashItem = { ...keys.apiKeyHash(hash), entity: 'api_key_hash', account_id: accountId, key_id: keyId };
  await store.create(item);
}

export interface Caller {
  testMode: boolean;
}

export async function createKey(deps: KeyDeps, accountId: string, body: CreateKeyBody, caller: Caller): Promise<CreatedApiKeyView> {
  const testMode = body.test_mode ?? false;
  // A test-mode key may not mint live keys: test keys are handed around more freely.
  if (caller.testMode && !testMode) throw new ApiError('forbidden', 'a test-mode key can only create test-mode keys');
  const scope = body.scope ?? DEFAULT_SCOPE;
  const id = deps.ids.next('key');
  const { secret, hash, prefix } = newSecret(testMode);
  const item: ApiKeyItem = {
    ...keys.apiKey(accountId, id),
    entity: 'api_key',
    id,
    account_id: accountId,
    key_hash: hash,
    key_prefix: prefix,
    scope,
    name: body.name ?? `${scope} ${testMode ? 'test' : 'live'} key`,
    test_mode: testMode,
    is_revoked: false,
    request_count: 0,
    created_at: deps.clock.now().toISOString(),
  };
  // Hash item first: a key record is never reachable without its lookup. An orphaned hash item
  // (record write failed) authenticates nothing, because authentication checks the record's hash.
  await putHash(deps.store, hash, accountId, id);
  await deps.store.create(item);
  return created(item, secret);
}

export async function listKeys(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: { limit: number; cursor?: string },
): Promise<Page<ApiKeyView>> {
  return listAccountItems(deps, accountId, { prefix: keys.apiKeyPrefix, collection: 'keys' }, page, toApiKeyView);
}

async function liveKey(store: Store, accountId: string, keyId: string): Promise<ApiKeyItem> {
  const item = await store.get<ApiKeyItem>(keys.apiKey(accountId, keyId));
  if (!item || item.is_revoked) throw new NotFoundError('API key');
  return item;
}

export async function rotateKey(deps: KeyDeps, accountId: string, keyId: string): Promise<CreatedApiKeyView> {
  const current = await liveKey(deps.store, accountId, keyId);
  const { secret, hash, prefix } = newSecret(current.test_mode);
  await putHash(deps.store, hash, accountId, keyId);
  let updated: ApiKeyItem;
  try {
    // The record's hash is what authentication trusts, so this one write retires the old secret.
    updated = await deps.store.update<ApiKeyItem>(keys.apiKey(accountId, keyId), {
      expression: 'SET key_hash = :new, key_prefix = :prefix, rotated_at = :now',
      condition: 'key_hash = :old AND is_revoked = :false',
      values: { ':new': hash, ':prefix': prefix, ':now': deps.clock.now().toISOString(), ':old': current.key_hash, ':false': false },
    });
  } catch (error) {
    await deps.store.delete(keys.apiKeyHash(hash));
    if (error instanceof ConditionFailedError) throw new ApiError('conflict', 'the key changed while rotating; try again', { cause: error });
    throw error;
  }
  await deps.store.delete(keys.apiKeyHash(current.key_hash));
  return created(updated, secret);
}

export async function revokeKey(deps: KeyDeps, accountId: string, keyId: string): Promise<void> {
  let revoked: ApiKeyItem;
  try {
    revoked = await deps.store.update<ApiKeyItem>(keys.apiKey(accountId, keyId), {
      expression: 'SET is_revoked = :true, revoked_at = :now',
      condition: 'attribute_exists(pk) AND is_revoked = :false',
      values: { ':true': true, ':false': false, ':now': deps.clock.now().toISOString() },
    });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new NotFoundError('API key');
    throw error;
  }
  await deps.store.delete(keys.apiKeyHash(revoked.key_hash));
}

export interface KeyIdentity {
  accountId: string;
  keyId: string;
  scope: Scope;
  testMode: boolean;
}

/**
 * The key a presented secret belongs to and its account, in two round trips (the hash lookup, then
 * the key record and the account together). Undefined for unknown, rotated-away or revoked secrets.
 */
export async function findKeyBySecret(
  deps: Pick<KeyDeps, 'store'>,
  secret: string,
): Promise<{ identity: KeyIdentity; account: AccountItem } | undefined> {
  if (!keyPattern.test(secret)) return undefined;
  const hash = sha256Hex(secret);
  const ref = await deps.store.get<ApiKeyHashItem>(keys.apiKeyHash(hash));
  if (!ref) return undefined;
  const found = await deps.store.batchGet<ApiKeyItem | AccountItem>([keys.apiKey(ref.account_id, ref.key_id), keys.account(ref.account_id)]);
  const item = found.find((i): i is ApiKeyItem => i.entity === 'api_key');
  const account = found.find((i): i is AccountItem => i.entity === 'account');
  if (!item || !account || item.is_revoked || item.key_hash !== hash) return undefined;
  return { identity: { accountId: item.account_id, keyId: item.id, scope: item.scope, testMode: item.test_mode }, account };
}

export async function recordKeyUse(deps: Pick<KeyDeps, 'store' | 'clock'>, identity: KeyIdentity): Promise<void> {
  await deps.store.update(keys.apiKey(identity.accountId, identity.keyId), {
    expression: 'SET last_used_at = :now ADD request_count :one',
    condition: 'attribute_exists(pk)',
    values: { ':now': deps.clock.now().toISOString(), ':one': 1 },
  });
}
