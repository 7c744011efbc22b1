// Secrets the service must use again (webhook and route signing secrets) are stored encrypted:
// AES-256-GCM under a key derived from the deployment's data encryption key, bound to the item
// they belong to.
//
// The secret `data-encryption-key` holds whatever string its source gives: Secrets Manager
// generates 64 letters and digits (lib/constructs/secrets.ts), the local runtime 32 random bytes
// in base64. So the AES key is derived from the string by HKDF (crypto.ts deriveKey), whatever its
// form: v2. The first format, v1, used the string's base64 decoding as the key and refused any
// other string, which in AWS failed every seal (issue 30); v1 values exist only where the key was
// base64 of 32 bytes (local data directories) and still open there.
import { derivedKey, gcmOpen, gcmSeal } from './crypto';

const VERSION = 'v2';
const LEGACY_VERSION = 'v1';
const KEY_LABEL = 'secret-box/aes-256-gcm/v2';
/** Shorter than any key a deployment makes (64 generated characters; 44 locally): a typo, not a key. */
const MIN_KEY_CHARS = 32;

/** The v2 key: HKDF-SHA256 of the secret string, computed once per secret. */
function keyOf(secret: string): Buffer {
  if (secret.length < MIN_KEY_CHARS) throw new Error(`data encryption key must be at least ${MIN_KEY_CHARS} characters`);
  return derivedKey(secret, KEY_LABEL);
}

/** The v1 key: the secret's base64 decoding, which had to be exactly 32 bytes. */
function legacyKeyOf(secret: string): Buffer {
  const key = Buffer.from(secret, 'base64');
  if (key.length !== 32) throw new Error('this secret was sealed under a base64 data encryption key of 32 bytes, and the key is not one');
  return key;
}

/** `context` (e.g. the owning item's id) must be given again to open the box. */
export function seal(secret: string, plaintext: string, context: string): string {
  const { iv, body, tag } = gcmSeal(keyOf(secret), plaintext, Buffer.from(context, 'utf8'));
  return [VERSION, iv.toString('base64url'), body.toString('base64url'), tag.toString('base64url')].join('.');
}

export function open(secret: string, sealed: string, context: string): string {
  const [version, iv, body, tag, extra] = sealed.split('.');
  if ((version !== VERSION && version !== LEGACY_VERSION) || !iv || !body || !tag || extra !== undefined) throw new Error('not a sealed secret');
  const key = version === VERSION ? keyOf(secret) : legacyKeyOf(secret);
  const box = { iv: Buffer.from(iv, 'base64url'), body: Buffer.from(body, 'base64url'), tag: Buffer.from(tag, 'base64url') };
  return gcmOpen(key, box, Buffer.from(context, 'utf8'));
}
