// Verified API keys kept in this process (one Lambda container, one local runtime) for a few
// seconds, so an authenticated request does not read its key and account from the store every
// time. Entries are found by the SHA-256 of the secret, never the secret. Only keys that were
// verified are kept: an unknown or malformed token leaves nothing behind, so guessing cannot fill
// memory, and the store work of a miss stays the same for both (shared/accounts/api-keys/service.ts).
//
// How stale an entry may be is the bound recorded in docs/api-decisions.md: a change made in
// another process (rotation, revocation, suspension, channels) is seen here within
// KEY_CACHE_TTL_MS; a change made through this process's services drops the entries it concerns
// at once.
import type { AccountItem } from '../repository';
import { onAccountChange } from '../changes';
import type { ApiKeyItem } from './repository';

/** How long a verified key is trusted without reading the store again. */
export const KEY_CACHE_TTL_MS = 10_000;
/** Entries kept at most; the least recently used goes first. */
export const KEY_CACHE_MAX_ENTRIES = 1000;

/**
 * A key's use as this process counts it, written to the key record at most once a minute. Shared
 * by every entry the key has had here, so a refresh of the entry keeps the count.
 */
export interface KeyUse {
  /** Requests counted here and not yet written to the record. */
  unwritten: number;
  /** Epoch ms of the record's last_used_at as last known here (written here or read). */
  writtenAt: number;
}

export interface VerifiedKey {
  hash: string;
  key: ApiKeyItem;
  account: AccountItem;
  /** Epoch ms when the store last confirmed the key and read the account. */
  checkedAt: number;
  use: KeyUse;
}

export class VerifiedKeyCache {
  private readonly entries = new Map<string, VerifiedKey>();
  /** Moves on with every invalidation; a lookup that began before one must not store what it read. */
  private generation = 0;

  constructor(private readonly maxEntries: number) {}

  /** The entry for a secret's hash, fresh or stale; it becomes the most recently used. */
  get(hash: string): VerifiedKey | undefined {
    const entry = this.entries.get(hash);
    if (entry) {
      this.entries.delete(hash);
      this.entries.set(hash, entry);
    }
    return entry;
  }

  /** To pass to `keep` once the store has answered. */
  mark(): number {
    return this.generation;
  }

  /** Keeps a freshly verified key, unless an invalidation happened since `mark`. */
  keep(entry: VerifiedKey, mark: number): void {
    if (mark !== this.generation) return;
    this.entries.delete(entry.hash);
    this.entries.set(entry.hash, entry);
    for (const oldest of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(oldest);
    }
  }

  forget(hash: string): void {
    this.generation++;
    this.entries.delete(hash);
  }

  /** After a rotation or revocation: every secret the key had here. */
  forgetKey(accountId: string, keyId: string): void {
    this.drop((e) => e.key.account_id === accountId && e.key.id === keyId);
  }

  /** After the account changed (suspension, channels): every key of it. */
  forgetAccount(accountId: string): void {
    this.drop((e) => e.account.id === accountId);
  }

  get size(): number {
    return this.entries.size;
  }

  clear(): void {
    this.drop(() => true);
  }

  private drop(matches: (entry: VerifiedKey) => boolean): void {
    this.generation++;
    for (const [hash, entry] of this.entries) if (matches(entry)) this.entries.delete(hash);
  }
}

/** This process's cache. */
export const verifiedKeys = new VerifiedKeyCache(KEY_CACHE_MAX_ENTRIES);

// An account changed through this process's services: its keys' entries carry the old account.
onAccountChange((accountId) => verifiedKeys.forgetAccount(accountId));
