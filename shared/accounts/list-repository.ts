// The staff's account list (GET /v1/admin/accounts). Apart from AccountRepository, which every
// key check reads accounts through: only the admin function and the local runtime carry this.
import { keyQueries, keys, type ItemKey, type KeyQuery } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { mapPage, queryPage, type Page, type PageRequest } from '../pagination';
import { AccountRepository, emailEntry, type AccountItem } from './repository';
import type { AccountStatus } from './schemas';

/** What a staff list walks: all accounts, those of one status, those with one address (normalized). */
export interface AccountFilter {
  status?: AccountStatus;
  email?: string;
}

/** A listing entry as the query gave it (its key attributes, the cursor's stuff) with its account. */
type Listed = Record<string, unknown> & { account: AccountItem };

/** The account an entry points at: an index entry is the account item's own key, an address entry names it. */
const accountKey = (entry: Record<string, unknown>): ItemKey =>
  typeof entry.account_id === 'string' ? keys.account(entry.account_id) : { pk: String(entry.pk), sk: String(entry.sk) };

export class AccountListRepository {
  constructor(private readonly store: Store) {}

  /**
   * A page of accounts, newest first. The entries carry no more than their keys, so each page
   * reads its accounts (one BatchGet): what is shown, status included, is the account item's as
   * of now, and an entry whose account is gone, or no longer has the status or address, is
   * passed over.
   */
  async list(filter: AccountFilter, page: PageRequest): Promise<Page<AccountItem>> {
    const query: KeyQuery =
      filter.email !== undefined
        ? keyQueries.partition(keys.accountEmailPartition(filter.email))
        : filter.status !== undefined
          ? keyQueries.byFilter(keys.accountStatusPartition(filter.status))
          : keyQueries.allAccounts();
    const wanted = (a: AccountItem): boolean =>
      (filter.email === undefined || a.email === filter.email) && (filter.status === undefined || a.status === filter.status);
    const out = await queryPage<Record<string, unknown>, Listed>(this.store, query, page, async (entries) => {
      const found = await this.store.batchGet<AccountItem>(entries.map(accountKey));
      const byPk = new Map(found.map((a) => [a.pk, a]));
      return entries.flatMap((entry) => {
        const account = byPk.get(accountKey(entry).pk);
        return account && wanted(account) ? [{ ...entry, account }] : [];
      });
    });
    return mapPage(out, (listed) => listed.account);
  }

  /**
   * Gives an account written before the staff list existed its entries; any other account is
   * left as it is. gsi2pk is kept if a status change set it meanwhile (setStatus always does).
   */
  async ensureListed(accountId: string): Promise<void> {
    const account = await new AccountRepository(this.store).get(accountId);
    if (!account || account.gsi1pk !== undefined) return;
    if (account.email !== null) await this.store.put(emailEntry(account.email, account.created_at, account.id));
    const listed = keys.accountListEntry(account.created_at, account.id);
    const byStatus = keys.accountStatusEntry(account.status, account.created_at, account.id);
    await wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET gsi1pk = :listPk, gsi1sk = :listSk, gsi2pk = if_not_exists(gsi2pk, :statusPk), gsi2sk = :statusSk',
        condition: 'attribute_exists(pk) AND attribute_not_exists(gsi1pk)',
        values: { ':listPk': listed.gsi1pk, ':listSk': listed.gsi1sk, ':statusPk': byStatus.gsi2pk, ':statusSk': byStatus.gsi2sk },
      }),
    );
  }
}
