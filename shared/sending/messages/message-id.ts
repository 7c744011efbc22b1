// A message's id follows from its account and idempotency key, so the message item is its own
// idempotency record: accepting a send is one conditional put of the message under that id
// (attribute_not_exists), and a retry, a concurrent duplicate or a batch repeat finds the item
// the first one wrote. The id keeps the shape of every other id (`msg_` and 26 characters of the
// ULID alphabet, isId) but not a ULID's time order: the message list sorts by created_at through
// its index entry instead (keys.messageListEntry).
import { createHash } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

/** 128 bits of SHA-256 over the account and key, written as 26 characters (3 + 25 × 5 bits). */
export function messageIdFor(accountId: string, idempotencyKey: string): string {
  const digest = createHash('sha256').update(`postbox-message\n${accountId}\n${idempotencyKey}`, 'utf8').digest();
  let bits = 0n;
  for (const byte of digest.subarray(0, 16)) bits = (bits << 8n) | BigInt(byte);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = ALPHABET[Number(bits & 31n)] + out;
    bits >>= 5n;
  }
  return `msg_${out}`;
}
