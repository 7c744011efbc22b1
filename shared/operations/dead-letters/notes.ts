// Why a message is in a DLQ. SQS keeps no reason with a message, and a message attribute cannot be
// added once it was sent; so consume() writes a small note on a message's last failed receive,
// keyed by its queue and the SHA-256 of its exact body, and the staff listing reads the note of
// each DLQ message by the same hash. Two messages with the same body share a note (the latest
// failure wins): the same bytes fail the same way. A note lives as long as the DLQ keeps a message
// (14 days, DynamoDB's TTL); a redrive leaves it, so a message that fails again updates it.
import { sha256Hex } from '../../crypto/crypto';
import { keys } from '../../db/keys';
import type { Store } from '../../db/store';

/** The DLQs' retention (lib/constructs/queues.ts, local/provision.ts). */
const NOTE_TTL_S = 14 * 24 * 3600;
const MAX_REASON = 1000;

export interface DeadLetterNote {
  queue: string;
  body_hash: string;
  reason: string;
  /** The message's first receive, i.e. its first failure (it failed every receive after). */
  first_failed_at: string;
  last_failed_at: string;
  receive_count: number;
}

export async function writeDeadLetterNote(
  store: Store,
  note: { queue: string; body: string; reason: string; firstFailedAt: string; lastFailedAt: string; receiveCount: number },
): Promise<void> {
  const hash = sha256Hex(note.body);
  await store.put({
    ...keys.deadLetterNote(note.queue, hash),
    entity: 'dead_letter_note',
    queue: note.queue,
    body_hash: hash,
    reason: note.reason.slice(0, MAX_REASON),
    first_failed_at: note.firstFailedAt,
    last_failed_at: note.lastFailedAt,
    receive_count: note.receiveCount,
    expires_at: Math.floor(Date.parse(note.lastFailedAt) / 1000) + NOTE_TTL_S,
  });
}

export function readDeadLetterNote(store: Store, queue: string, body: string): Promise<DeadLetterNote | undefined> {
  return store.get<DeadLetterNote>(keys.deadLetterNote(queue, sha256Hex(body)));
}
