import { createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Uniform base62 string from the system CSPRNG (rejection sampling keeps it unbiased). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export const sha256Hex = (value: string): string => createHash('sha256').update(value, 'utf8').digest('hex');

export const hmacSha256 = (key: string, value: string): Buffer => createHmac('sha256', key).update(value, 'utf8').digest();

/** Constant-time comparison of two strings of any length. */
export function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return timingSafeEqual(left, right) && a.length === b.length;
}

/**
 * A 32-byte key for one purpose (`label`), derived by HKDF-SHA256 from a secret string of any
 * form: Secrets Manager's generated secrets are printable characters, not key bytes. The label
 * keeps keys for different purposes apart even when they come from the same secret.
 */
export function deriveKey(secret: string, label: string): Buffer {
  return Buffer.from(hkdfSync('sha256', Buffer.from(secret, 'utf8'), 'postbox', label, 32));
}
