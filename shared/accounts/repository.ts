// Accounts in the store. Imports nothing from api-keys: key lookups read accounts through this
// module, and account creation (shared/accounts/service.ts) calls api-keys, never the reverse.
import { keys, type ItemKey } from '../db/keys';
import { type AccountListKey, type IndexKey } from '../db/schema';
import { wrote, type Store } from '../db/store';
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
  /**
   * false only for an account made by sign-up whose owner has not verified their address yet: it
   * stays in sandbox mode and holds no live keys. Absent (staff and bootstrap accounts) counts as verified.
   */
  owner_verified?: boolean;
  /** The sending reputation's judgement (shared/billing/reputation): absent is ok; `paused` refuses live sends. */
  reputation_state?: 'ok' | 'warned' | 'paused';
  /** The first UTC hour (YYYY-MM-DDTHH) the reputation window counts: set when staff lift a pause. */
  reputation_since?: string;
  created_at: string;
  updated_at: string;
}

export type NewAccount = Omit<AccountItem, keyof ItemKey | keyof AccountListKey | keyof IndexKey | 'entity'>;

/** An account's entry under its address (keys.accountEmail); the staff list (list-repository.ts) reads them. */
export interface AccountEmailItem extends ItemKey {
  entity: 'account_email';
  account_id: string;
}

export const emailEntry = (email: string, createdAt: string, accountId: string): AccountEmailItem => ({
  ...keys.accountEmail(email, createdAt, accountId),
  entity: 'account_email',
  account_id: accountId,
});

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

  /** false when there is no such account */
  markOwnerVerified(accountId: string, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET owner_verified = :yes, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':yes': true, ':now': now },
      }),
    );
  }

  async remove(accountId: string): Promise<void> {
    await this.store.delete(keys.account(accountId));
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

  /**
   * Moves the reputation judgement up (ok → warned → paused), never down: true only for the write
   * that moved it, so one alert per step however many events race.
   */
  escalateReputation(accountId: string, to: 'warned' | 'paused', now: string): Promise<boolean> {
    const below = to === 'paused' ? ['ok', 'warned'] : ['ok'];
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET reputation_state = :to, updated_at = :now',
        condition: `attribute_exists(pk) AND (attribute_not_exists(reputation_state) OR reputation_state IN (${below.map((_, i) => `:b${i}`).join(', ')}))`,
        values: { ':to': to, ':now': now, ...Object.fromEntries(below.map((b, i) => [`:b${i}`, b])) },
      }),
    );
  }

  /** Staff lift: back to ok, the window restarting at `since`. false when there is no such account. */
  liftReputation(accountId: string, since: string, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.account(accountId), {
        expression: 'SET reputation_state = :ok, reputation_since = :since, updated_at = :now',
        condition: 'attribute_exists(pk)',
        values: { ':ok': 'ok', ':since': since, ':now': now },
      }),
    );
  }
}
