// Idempotency of sends: a message's id follows from its account and idempotency key
// (./message-id.ts), so the message item is the send's idempotency record. It carries the digest
// of the request that created it, and what that request decided, so a retry is answered exactly
// as the first request was and the same key with another body is refused.
import type { Channel } from '../../accounts/service';
import { sha256Hex } from '../../crypto/crypto';
import type { MessageItem } from './model';
import type { SendResponse } from './schemas';

/**
 * How long after a suppressed send's message is stored its request may still be writing its
 * timeline event: after that, the acceptance sweep writes it (./recovery.ts).
 */
export const LEASE_MS = 30_000;


/**
 * What a send decided, replayed to a retry. Refusals decided before the message is stored are
 * never kept: a retry decides them again.
 */
export type SendDecision =
  | { kind: 'accepted'; message: SendResponse }
  /** Stored and on the timeline as suppressed, never enqueued. */
  | { kind: 'suppressed'; message: { id: string; channel: Channel; recipient: string } };

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

/** What a message item keeps of bodyDigest: 128 bits, enough to tell one client's bodies apart. */
export const storedDigest = (digest: string): string => digest.slice(0, 32);

/** What the request that stored this message answered, replayed from the message. */
export function decisionOf(m: Pick<MessageItem, 'id' | 'channel' | 'recipient' | 'idempotency_key' | 'scheduled_at' | 'created_at' | 'accepted_as'>): SendDecision {
  if (m.accepted_as === 'suppressed') return { kind: 'suppressed', message: { id: m.id, channel: m.channel, recipient: m.recipient } };
  return { kind: 'accepted', message: { id: m.id, status: m.scheduled_at ? 'scheduled' : 'queued', channel: m.channel, idempotency_key: m.idempotency_key, created_at: m.created_at } };
}
