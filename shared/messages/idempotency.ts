// One record per (account, idempotency key) claimed with a conditional write before anything is
// stored or sent, so N identical concurrent requests create one message. The claim records the
// send's decision up front; a claim left pending by a crashed request can be taken over once its
// lease ends (IdempotencyRepository.claim).
import type { Channel } from '../accounts/service';
import { sha256Hex } from '../crypto';
import type { ItemKey } from '../db/keys';
import type { SendResponse } from './schemas';

export const LEASE_MS = 30_000;

/**
 * What a send decided, kept on its idempotency record so that a retry is answered exactly as the
 * first request was. Refusals decided before the claim are never stored: a retry decides them again.
 */
export type SendDecision =
  | { kind: 'accepted'; message: SendResponse }
  /** Stored and on the timeline as suppressed, never enqueued. */
  | { kind: 'suppressed'; message: { id: string; channel: Channel; recipient: string } };

export interface IdempotencyItem extends ItemKey {
  entity: 'idempotency';
  account_id: string;
  idempotency_key: string;
  body_digest: string;
  message_id: string;
  decision: SendDecision;
  state: 'pending' | 'done';
  lease_until: number;
  created_at: string;
}

export type NewIdempotencyRecord = Omit<IdempotencyItem, keyof ItemKey | 'entity'>;

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
