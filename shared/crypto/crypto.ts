// The project's one home of each cryptographic piece: random tokens, hashes, HMAC, constant-time
// comparison, key derivation and AES-256-GCM sealing. Secret-box, cursors, unsubscribe tokens,
// download links and passwords build on these instead of calling node:crypto themselves.
import { createCipheriv, createDecipheriv, createHash, createHmac, hkdfSync, randomBytes, timingSafeEqual } from 'node:crypto';

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

/** `bytes` random bytes from the system CSPRNG as hex: secrets and nonces (entity ids come from the Ids port). */
export const randomHex = (bytes: number): string => randomBytes(bytes).toString('hex');

export const hmacSha256 = (key: string | Buffer, value: string): Buffer => createHmac('sha256', key).update(value, 'utf8').digest();

/** Constant-time comparison of two byte strings; false when their lengths differ. */
export const safeEqualBytes = (a: Buffer, b: Buffer): boolean => a.length === b.length && timingSafeEqual(a, b);

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

const derivedKeys = new Map<string, Buffer>();

/** deriveKey, computed once per secret and label in a process. */
export function derivedKey(secret: string, label: string): Buffer {
  const id = `${label}\n${secret}`;
  let key = derivedKeys.get(id);
  if (!key) {
    key = deriveKey(secret, label);
    derivedKeys.set(id, key);
  }
  return key;
}

/** An AES-256-GCM box: a 12-byte random IV, the ciphertext and the 16-byte tag. */
export interface GcmBox {
  iv: Buffer;
  body: Buffer;
  tag: Buffer;
}

export const GCM_IV_BYTES = 12;
export const GCM_TAG_BYTES = 16;

/** Seals `plaintext` under a 32-byte key, bound to `aad` (given again to open it). */
export function gcmSeal(key: Buffer, plaintext: string, aad: Buffer): GcmBox {
  const iv = randomBytes(GCM_IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return { iv, body, tag: cipher.getAuthTag() };
}

/** Opens a box; throws when any byte of it, the key or `aad` differs from the sealing. */
export function gcmOpen(key: Buffer, box: GcmBox, aad: Buffer): string {
  const decipher = createDecipheriv('aes-256-gcm', key, box.iv);
  decipher.setAAD(aad);
  decipher.setAuthTag(box.tag);
  return Buffer.concat([decipher.update(box.body), decipher.final()]).toString('utf8');
}
