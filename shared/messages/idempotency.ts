// One item per (account, idempotency key) claimed with a conditional write before anything is
// stored or sent, so N identical concurrent requests create one message. The claim records the
// outcome up front; a claim left pending by a crashed request can be taken over once its lease ends.
import { sha256Hex } from '../crypto';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError } from '../errors';

export const LEASE_MS = 30_000;

export interface Outcome {
  status: number;
  body: unknown;
}

export interface IdempotencyItem {
  pk: string;
  sk: string;
  entity: 'idempotency';
  account_id: string;
  idempotency_key: string;
  body_digest: string;
  message_id: string;
  outcome: Outcome;
  state: 'pending' | 'done';
  lease_until: number;
  created_at: string;
}

/** Digest of a request body that ignores key order, so re-serialized retries still match. */
export function bodyDigest(value: unknown): string {
  const canonical = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(canonical);
    if (v && typeof v === 'object') {
      return Object.fromEntries(
        Object.keys(v as object)
          .sort()
          .map((k) => [k, canonical((v as Record<string, unknown>)[k])]),
      );
    }
    return v;
  };
  return sha256Hex(JSON.stringify(canonical(value)));
}

export const idempotencyKey = (accountId: string, key: string) => keys.idempotency(accountId, sha256Hex(key));

export type Claim = { kind: 'new'; item: IdempotencyItem } | { kind: 'existing'; item: IdempotencyItem };

export async function claim(store: Store, item: IdempotencyItem, nowMs: number): Promise<Claim> {
  try {
    await store.create(item);
    return { kind: 'new', item };
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
  }
  const existing = await store.get<IdempotencyItem>({ pk: item.pk, sk: item.sk });
  if (!existing) return claim(store, item, nowMs); // removed in between: try again
  if (existing.body_digest !== item.body_digest || existing.state === 'done' || existing.lease_until > nowMs) {
    return { kind: 'existing', item: existing };
  }
  // A pending claim whose request died: finish its work under its own message id.
  try {
    const taken = await store.update<IdempotencyItem>(
      { pk: item.pk, sk: item.sk },
      { expression: 'SET lease_until = :lease', condition: '#state = :pending AND lease_until = :old', names: { '#state': 'state' }, values: { ':lease': nowMs + LEASE_MS, ':pending': 'pending', ':old': existing.lease_until } },
    );
    return { kind: 'new', item: taken };
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    return { kind: 'existing', item: existing };
  }
}

export async function findByKey(store: Store, accountId: string, key: string): Promise<IdempotencyItem | undefined> {
  return store.get<IdempotencyItem>(idempotencyKey(accountId, key));
}
