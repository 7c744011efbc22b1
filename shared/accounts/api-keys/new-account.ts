// An account as staff (or the local bootstrap) creates it: the account and its two admin keys, one
// live and one test. A sign-up account starts with none (shared/accounts/service.ts).
import { newAccount } from '../service';
import type { CreateAccountBody, CreatedAccount } from '../schemas';
import { createKey, type KeyDeps } from './service';

export type { CreatedAccount };

export async function createAccount(deps: KeyDeps, body: CreateAccountBody): Promise<CreatedAccount> {
  const id = await newAccount(deps, body);
  const live = await createKey(deps, id, { scope: 'admin', test_mode: false, name: 'admin live key' }, { testMode: false });
  const test = await createKey(deps, id, { scope: 'admin', test_mode: true, name: 'admin test key' }, { testMode: false });
  return { account_id: id, admin_key: live.key, test_admin_key: test.key };
}
