// Accounts in the store. Imports nothing from api-keys: key lookups read accounts through this
// module, and account creation (shared/accounts/service.ts) calls api-keys, never the reverse.
import { keyQueries, keys, type AccountListKey, type IndexKey, type ItemKey, type KeyQuery } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { mapPage, queryPage, type Page, type PageRequest } from '../pagination';
import type { AccountStatus, Channel } from './schemas';

/** Accounts written since the staff list exists carry its index entries; older ones do not (docs/api-decisions.md). */
export interface AccountItem extends ItemKey, Partial<AccountListKey>, Partial<IndexKey> {
  entity: 'account';
  id: string;
  name: string;
  /** The account's own address: in sandbox mode mail may go here. */
  email: string | null;
  status: AccountStatus;
  enabled_channels: Channel[];
  created_at: string;
  updated_at: string;
}

export type NewAccount = Omit<AccountItem, keyof ItemKey | keyof AccountListKey | keyof IndexKey | 'entity'>;

/** An account's entry under its address (keys.accountEmail). */
interface AccountEmailItem extends ItemKey {
  entity: 'account_email';
  account_id: string;
}

/** What a staff list walks: all accounts, those of one status, those with one address (normalized). */
export interface AccountFilter {
  status?: AccountStatus;
  email?: string;
}

const emailEntry = (email: string, createdAt: string, accountId: string): AccountEmailItem => ({
  ...keys.accountEmail(email, createdAt, accountId),
  entity: 'account_email',
  account_id: accountId,
});

/** A listing entry as the query gave it (its key attributes, the cursor's stuff) with its account. */
type Listed = Record<string, unknown> & { account: AccountItem };

export class AccountRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string): Promise<AccountItem | undefined> {
    return this.store.get<AccountItem>(keys.account(accountId));
  }

  /**
   * false when an account with this id exists already. The address entry goes first: one left by
   * a crash before the account (or by a lost race for the id) names no account with that address,
   * and the list passes it over.
   */
  async create(account: NewAccount): Promise<boolean> {
    if (account.email !== null) await this.store.put(emailEntry(account.email, account.created_at, account.id));
    const item: AccountItem = {
      ...keys.account(account.id),
      ...keys.accountListEntry(account.created_at, account.id),
      ...keys.accountStatusEntry(account.status, account.created_at, account.id),
      entity: 'account',
      ...account,
    };
    return wrote(this.store.create(item));
  }

  /** false when there is no such account. Moves the account's by-filter entry to the new status. */
  setStatus(accountId: string, status: AccountStatus, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET #status = :status, updated_at = :now, gsi2pk = :statusList',
        condition: 'attribute_exists(pk)',
        names: { '#status': 'status' },
        values: { ':status': status, ':now': now, ':statusList': keys.accountStatusPartition(status) },
      }),
    );
  }

  /**
   * Gives an account written before the staff list existed its entries; any other account is
   * left as it is. gsi2pk is kept if a status change set it meanwhile (setStatus always does).
   */
  async ensureListed(accountId: string): Promise<void> {
    const account = await this.get(accountId);
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
    const accountKey = (entry: Record<string, unknown>): ItemKey =>
      typeof entry.account_id === 'string' ? keys.account(entry.account_id) : { pk: String(entry.pk), sk: String(entry.sk) };
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

  /** false when there is no such account */
  setEnabledChannels(accountId: string, enabled: readonly Channel[], now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET enabled_channels = :channels, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':channels': [...enabled], ':now': now },
      }),
    );
  }
}
