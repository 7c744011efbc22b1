// API keys: created and rotated with a secret shown once, stored only as its SHA-256.
import type { AccountItem } from '../repository';
import { randomBase62, sha256Hex } from '../../crypto/crypto';
import type { Store } from '../../db/store';
import { ApiError, NotFoundError } from '../../errors';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import type { Scope } from '../../platform';
import { KEY_CACHE_TTL_MS, verifiedKeys, type KeyUse, type VerifiedKey } from './cache';
import { ApiKeyRepository, toApiKeyView, type ApiKeyItem, type NewApiKey } from './repository';
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

export const keyPattern = /^sk_(live|test)_[0-9A-Za-z]{40}$/;
/** Past any key we issue; a longer bearer token is hashed only this far (it cannot match anyway). */
const MAX_PRESENTED_LENGTH = 256;

function newSecret(testMode: boolean): { secret: string; hash: string; prefix: string } {
  const secret = `sk_${testMode ? 'test' : 'live'}_${randomBase62(SECRET_LENGTH)}`;
  return { secret, hash: sha256Hex(secret), prefix: secret.slice(0, PREFIX_LENGTH) };
}

function created(item: NewApiKey, secret: string): CreatedApiKeyView {
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

/**
 * The key making the request. A test-mode caller works only with test-mode keys: live keys are
 * not listed to it and are not found when it rotates or revokes (as another account's would not
 * be), so a leaked test key neither learns of nor takes over a live one.
 */
export interface Caller {
  testMode: boolean;
  /** The caller's account as authenticated; a sign-up account whose owner is unverified may not hold live keys. */
  account?: Pick<AccountItem, 'owner_verified'>;
}

export async function createKey(deps: KeyDeps, accountId: string, body: CreateKeyBody, caller: Caller): Promise<CreatedApiKeyView> {
  const testMode = body.test_mode ?? false;
  // Checked first: an unverified owner's session is in test mode too, and this says what to do about it.
  if (!testMode && caller.account?.owner_verified === false) throw new ApiError('forbidden', 'verify your email address first: until then the account may hold test-mode keys only');
  // A test-mode key may not mint live keys: test keys are handed around more freely.
  if (caller.testMode && !testMode) throw new ApiError('forbidden', 'a test-mode key can only create test-mode keys');
  const scope = body.scope ?? DEFAULT_SCOPE;
  const id = deps.ids.next('key');
  const { secret, hash, prefix } = newSecret(testMode);
  const apiKeys = new ApiKeyRepository(deps.store);
  const key: NewApiKey = {
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
  if (!(await apiKeys.createHash(hash, accountId, id))) throw secretClash();
  if (!(await apiKeys.create(key))) throw new ApiError('conflict', `API key ${id} exists already`);
  return created(key, secret);
}

// Two 40-character random secrets with one SHA-256: never expected, but never a silent overwrite.
const secretClash = (): ApiError => new ApiError('conflict', 'the new secret collided with a live one; try again');

export async function listKeys(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  page: PageInput,
  caller: Caller,
): Promise<Page<ApiKeyView>> {
  // The mode is part of the walk, so a live listing's cursor cannot be replayed by a test key.
  const request = pageRequest(deps, { accountId, collection: 'keys', filters: { mode: caller.testMode ? 'test' : undefined } }, page);
  const out = await new ApiKeyRepository(deps.store).list(accountId, request, { testOnly: caller.testMode });
  return mapPage(out, toApiKeyView);
}

/** An unrevoked key the caller may manage; NotFoundError otherwise, whatever the reason. */
async function manageableKey(apiKeys: ApiKeyRepository, accountId: string, keyId: string, caller: Caller): Promise<ApiKeyItem> {
  const item = await apiKeys.get(accountId, keyId);
  if (!item || item.is_revoked || (caller.testMode && !item.test_mode)) throw new NotFoundError('API key');
  return item;
}

export async function rotateKey(deps: KeyDeps, accountId: string, keyId: string, caller: Caller): Promise<CreatedApiKeyView> {
  const apiKeys = new ApiKeyRepository(deps.store);
  const current = await manageableKey(apiKeys, accountId, keyId, caller);
  const { secret, hash, prefix } = newSecret(current.test_mode);
  if (!(await apiKeys.createHash(hash, accountId, keyId))) throw secretClash();
  let updated: ApiKeyItem;
  try {
    updated = await apiKeys.replaceSecret(accountId, keyId, { oldHash: current.key_hash, hash, prefix, now: deps.clock.now().toISOString() });
  } catch (error) {
    await apiKeys.deleteHash(hash); // the new secret must not outlive a rotation that did not happen
    throw error;
  }
  // The old secret is refused from here on in this process; other processes re-read within the
  // cache's bound (docs/api-decisions.md).
  verifiedKeys.forgetKey(accountId, keyId);
  await apiKeys.deleteHash(current.key_hash);
  return created(updated, secret);
}

export async function revokeKey(deps: Pick<KeyDeps, 'store' | 'clock'>, accountId: string, keyId: string, caller: Caller): Promise<void> {
  const apiKeys = new ApiKeyRepository(deps.store);
  const revoked = await apiKeys.revoke(accountId, keyId, deps.clock.now().toISOString(), { testOnly: caller.testMode });
  verifiedKeys.forgetKey(accountId, keyId);
  await apiKeys.deleteHash(revoked.key_hash);
}

/**
 * Revokes every key of the account: the keys a squatter made before the address was claimed
 * (shared/auth/service.ts, claimAddress) must not outlive the claim.
 */
export async function revokeEveryKey(deps: Pick<KeyDeps, 'store' | 'clock'>, accountId: string): Promise<number> {
  const apiKeys = new ApiKeyRepository(deps.store);
  let revoked = 0;
  for (const key of await apiKeys.all(accountId)) {
    if (key.is_revoked) continue;
    try {
      await revokeKey(deps, accountId, key.id, { testMode: false });
      revoked += 1;
    } catch (error) {
      if (!(error instanceof NotFoundError)) throw error; // revoked meanwhile
    }
  }
  return revoked;
}

export interface KeyIdentity {
  accountId: string;
  keyId: string;
  scope: Scope;
  testMode: boolean;
}

/** A verified key: who is calling, their account, and the key's use as this process counts it. */
export interface VerifiedCaller {
  identity: KeyIdentity;
  account: AccountItem;
  use: KeyUse;
}

/** The key record is written at most this often per key and process (recordKeyUse). */
export const KEY_USE_WRITE_INTERVAL_MS = 60_000;

const callerOf = ({ key, account, use }: VerifiedKey): VerifiedCaller => ({
  identity: { accountId: key.account_id, keyId: key.id, scope: key.scope, testMode: key.test_mode },
  account,
  use,
});

/**
 * The key a presented secret belongs to and its account. Undefined for unknown, rotated-away or
 * revoked secrets. A key verified in this process less than KEY_CACHE_TTL_MS ago costs no store
 * call; an older one is confirmed by one read of its record and account (by their ids); any other
 * secret by two (the hash lookup, then the record and the account together).
 *
 * Any token is hashed and looked up before its format is judged: refusing a malformed one at once
 * would answer measurably faster than an unknown well-formed one, and so teach the key format.
 * Neither is ever kept, so both always cost the same lookup.
 */
export async function findKeyBySecret(deps: Pick<KeyDeps, 'store' | 'clock'>, secret: string): Promise<VerifiedCaller | undefined> {
  const hash = sha256Hex(secret.slice(0, MAX_PRESENTED_LENGTH));
  const now = deps.clock.now().getTime();
  const cached = verifiedKeys.get(hash);
  const age = cached ? now - cached.checkedAt : -1;
  if (cached && age >= 0 && age < KEY_CACHE_TTL_MS && keyPattern.test(secret)) return callerOf(cached);
  const mark = verifiedKeys.mark();
  const apiKeys = new ApiKeyRepository(deps.store);
  const found = cached ? await apiKeys.getWithAccount(cached.key.account_id, cached.key.id) : await apiKeys.findByHash(hash);
  if (!keyPattern.test(secret) || !found || found.key.is_revoked || found.key.key_hash !== hash) {
    if (cached) verifiedKeys.forget(hash);
    return undefined;
  }
  const recordedAt = found.key.last_used_at ? Date.parse(found.key.last_used_at) : Number.NEGATIVE_INFINITY;
  const use = cached?.use ?? { unwritten: 0, writtenAt: recordedAt };
  // Another process may have written the record since: its stamp counts as a write here too.
  use.writtenAt = Math.max(use.writtenAt, recordedAt);
  const entry: VerifiedKey = { hash, key: found.key, account: found.account, checkedAt: now, use };
  verifiedKeys.keep(entry, mark);
  return callerOf(entry);
}

/**
 * Counts a request against its key. The record (`request_count`, `last_used_at`) is written at
 * most once per KEY_USE_WRITE_INTERVAL_MS per key and process, adding every request counted here
 * since the last write; when that write is due it is returned, for the caller to await beside its
 * own work, and otherwise nothing touches the store. A failed write keeps its requests for the
 * next one.
 */
export function recordKeyUse(deps: Pick<KeyDeps, 'store' | 'clock'>, caller: VerifiedCaller): Promise<void> | undefined {
  const { use, identity } = caller;
  const now = deps.clock.now();
  use.unwritten++;
  if (now.getTime() - use.writtenAt < KEY_USE_WRITE_INTERVAL_MS) return undefined;
  const requests = use.unwritten;
  const before = use.writtenAt;
  use.unwritten = 0;
  use.writtenAt = now.getTime();
  return new ApiKeyRepository(deps.store).recordUse(identity.accountId, identity.keyId, now.toISOString(), requests).then(
    () => undefined, // a key record that is gone has nothing left to count
    (error: unknown) => {
      use.unwritten += requests;
      use.writtenAt = before;
      throw error;
    },
  );
}
