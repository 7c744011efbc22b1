// The signing secret of a webhook subscription or an inbound route: 32 random bytes as 64 hex (the
// HMAC key exactly as shown, UTF-8), shown once and otherwise kept sealed under the data encryption
// key, bound to the id of the item it signs for.
import { randomHex } from '../crypto/crypto';
import { open, seal } from '../crypto/secret-box';
import type { Secrets } from '../ports/secrets';

const SECRET_BYTES = 32;
const ENCRYPTION_KEY = 'data-encryption-key';

type WithSecrets = { secrets: Pick<Secrets, 'get'> };

/** A fresh secret and its sealed form, bound to `itemId`. */
export function newSigningSecret(c: WithSecrets, itemId: string): { secret: string; sealed: string } {
  const secret = randomHex(SECRET_BYTES);
  return { secret, sealed: seal(c.secrets.get(ENCRYPTION_KEY), secret, itemId) };
}

/** The plaintext secret of an item that keeps it sealed. */
export function openSigningSecret(c: WithSecrets, item: { id: string; secret_sealed: string }): string {
  return open(c.secrets.get(ENCRYPTION_KEY), item.secret_sealed, item.id);
}
