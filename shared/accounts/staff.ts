// The staff's view of accounts: the list (newest first, by status or address) and one account.
import type { Store } from '../db/store';
import { NotFoundError } from '../errors';
import { mapPage, pageRequest, type Page, type PageInput } from '../pagination';
import { AccountListRepository } from './list-repository';
import { AccountRepository, type AccountItem } from './repository';
import type { AdminAccountQuery, AdminAccountView } from './schemas';

const toAdminView = (a: AccountItem): AdminAccountView => ({
  account_id: a.id,
  name: a.name,
  email: a.email,
  status: a.status,
  created_at: a.created_at,
});

/** The staff's walks are nobody's account: their cursors are bound to this name instead. */
const STAFF_SCOPE = 'staff';

/**
 * The staff's account list, newest first: all accounts, those of one status, or those with one
 * address (trimmed and lower-cased, as accounts store it). Accounts made before the list existed
 * are not in it (docs/api-decisions.md, "Staff: account listing").
 */
export async function listAccounts(
  deps: { store: Store; cursorSecret: string },
  query: Pick<AdminAccountQuery, 'status' | 'email'>,
  page: PageInput,
): Promise<Page<AdminAccountView>> {
  const filter = { status: query.status, email: query.email?.toLowerCase() };
  const request = pageRequest(deps, { accountId: STAFF_SCOPE, collection: 'admin-accounts', filters: { ...filter } }, page);
  return mapPage(await new AccountListRepository(deps.store).list(filter, request), toAdminView);
}

/** One account as staff see it; 404 not_found when there is none. */
export async function readAccount(store: Store, accountId: string): Promise<AdminAccountView> {
  const account = await new AccountRepository(store).get(accountId);
  if (!account) throw new NotFoundError('account');
  return toAdminView(account);
}

/**
 * Lists an account made before the staff list existed (a no-op for one made since). Nothing
 * scans for such accounts: the local runtime calls this for its bootstrap account at start.
 */
export async function ensureAccountListed(store: Store, accountId: string): Promise<void> {
  await new AccountListRepository(store).ensureListed(accountId);
}
