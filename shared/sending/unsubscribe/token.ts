// The unsubscribe token of a marketing message: the message's ULID and a MAC over what the link
// may change (message, account, channel, recipient), keyed with the unsubscribe-signing-key
// secret. Nothing is stored for it: the MAC is recomputed from the stored message when the link
// is used, so a token names one message of one account and can touch nothing else.
//
// Lower-case base32 throughout (the ULID's Crockford alphabet, RFC 4648's for the MAC): the token
// also rides in a mailto local part, which mail systems may fold to one case, and 26 + 1 + 26
// characters keep `unsub+<token>` within the 64 characters a local part may have.
import type { Channel } from '../../accounts/schemas';
import { hmacSha256, safeEqualBytes } from '../../crypto/crypto';

export interface UnsubscribeRef {
  /** msg_ id */
  id: string;
  account_id: string;
  channel: Channel;
  /** Normalized recipient, as stored on the message. */
  recipient: string;
}

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
/** 128 bits: half of SHA-256's output, the shortest truncation RFC 2104 recommends. */
const MAC_BYTES = 16;
const TOKEN = /^([0-9a-hjkmnp-tv-z]{26})\.([a-z2-7]{26})$/;
/** Longer than any token we issue; checked before any regex or store read. */
export const MAX_TOKEN_LENGTH = 64;

function base32(bytes: Buffer): string {
  let out = '';
  let bits = 0;
  let value = 0;
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function macOf(secret: string, ref: UnsubscribeRef): Buffer {
  // One field a line, with a version label: no two refs share an input.
  const input = ['postbox-unsubscribe/v1', ref.id, ref.account_id, ref.channel, ref.recipient].join('\n');
  return hmacSha256(secret, input).subarray(0, MAC_BYTES);
}

export function unsubscribeToken(secret: string, ref: UnsubscribeRef): string {
  if (!ref.id.startsWith('msg_')) throw new Error(`not a message id: ${ref.id}`);
  return `${ref.id.slice(4)}.${base32(macOf(secret, ref))}`;
}

/** The message a well-formed token names (any case), or undefined for anything else. */
export function messageIdOf(token: string): string | undefined {
  if (token.length > MAX_TOKEN_LENGTH) return undefined;
  const match = TOKEN.exec(token.toLowerCase());
  return match ? `msg_${match[1]}` : undefined;
}

/** True when `token` is the one issued for this message; compared in constant time. */
export function tokenMatches(secret: string, token: string, ref: UnsubscribeRef): boolean {
  const match = token.length <= MAX_TOKEN_LENGTH ? TOKEN.exec(token.toLowerCase()) : null;
  if (!match || `msg_${match[1]}` !== ref.id) return false;
  const given = Buffer.from(match[2] as string, 'utf8');
  const expected = Buffer.from(base32(macOf(secret, ref)), 'utf8');
  return safeEqualBytes(given, expected);
}
