// What a first start of the local runtime creates and later starts read back: its secrets
// (DATA_DIR/secrets.json) and the bootstrap account with its keys (DATA_DIR/bootstrap.json).
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { operatorSecrets, secretNames, type SecretName } from '../shared/platform';
import { createAccount } from '../shared/accounts/api-keys/new-account';
import { ensureAccountListed } from '../shared/accounts/staff';
import { randomBase62 } from '../shared/crypto/crypto';
import type { Container } from '../shared/runtime/container';

export interface Bootstrap {
  account_id: string;
  admin_key: string;
  test_admin_key: string;
  staff_token: string;
}

/** The secrets a first start generates; the operator's (the Stripe keys, the OAuth client secrets) come from the environment. */
const newSecret: Record<Exclude<SecretName, 'stripe-secret-key' | 'stripe-webhook-secret' | `oauth-${string}`>, () => string> = {
  'cursor-signing-key': () => randomBase62(48),
  'staff-token': () => `st_${randomBase62(40)}`,
  'data-encryption-key': () => randomBytes(32).toString('base64'),
  'unsubscribe-signing-key': () => randomBase62(48),
};

/** DATA_DIR/secrets.json, created on first start; secrets added by later versions are filled in. */
export function loadOrCreateSecrets(dataDir: string): Partial<Record<SecretName, string>> {
  const file = join(dataDir, 'secrets.json');
  const stored = (existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}) as Partial<Record<SecretName, string>>;
  const missing = secretNames.filter((name): name is keyof typeof newSecret => !operatorSecrets.includes(name) && !stored[name]);
  const secrets = { ...stored, ...Object.fromEntries(missing.map((name) => [name, newSecret[name]()])) } as Partial<Record<SecretName, string>>;
  if (missing.length > 0) writeFileSync(file, `${JSON.stringify(secrets, null, 2)}\n`, { mode: 0o600 });
  return secrets;
}

export async function ensureBootstrap(container: Container, dataDir: string, email: string): Promise<{ bootstrap: Bootstrap; created: boolean }> {
  const file = join(dataDir, 'bootstrap.json');
  if (existsSync(file)) {
    const bootstrap = JSON.parse(readFileSync(file, 'utf8')) as Bootstrap;
    // A store from before the staff account list: its bootstrap account joins it (one read when it already has).
    await ensureAccountListed(container.store, bootstrap.account_id);
    return { bootstrap, created: false };
  }
  const account = await createAccount(container, { name: 'Local account', email });
  const bootstrap: Bootstrap = { ...account, staff_token: container.secrets.get('staff-token') };
  writeFileSync(file, `${JSON.stringify(bootstrap, null, 2)}\n`, { mode: 0o600 });
  return { bootstrap, created: true };
}
