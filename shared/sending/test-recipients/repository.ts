// Test recipients in the store: the entry of an address and the per-day count of test sends to it.
// The one-time link that verifies an entry is a shared/accounts/one-time-tokens token.
import {  keys, type ItemKey, keyQueries, type KeyQuery } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import type { TestRecipientStatus } from './schemas';
import { allItems } from '../../db/all-items';

export interface TestRecipientItem extends ItemKey {
  entity: 'test_recipient';
  id: string;
  account_id: string;
  /** Normalized: trimmed and lower-cased. */
  email: string;
  status: TestRecipientStatus;
  created_at: string;
  verified_at: string | null;
}

export type NewTestRecipient = Omit<TestRecipientItem, keyof ItemKey | 'entity'>;

export interface TestSendCounterItem extends ItemKey {
  entity: 'test_send_counter';
  sends: number;
  expires_at: number;
}

const entriesOf = (accountId: string): KeyQuery => keyQueries.accountItems(accountId, keys.testRecipientPrefix);

export class TestRecipientRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, recipientId: string): Promise<TestRecipientItem | undefined> {
    return this.store.get<TestRecipientItem>(keys.testRecipient(accountId, recipientId));
  }

  /**
   * Every test recipient of an account, oldest first. There are at most three (a few more for a
   * moment while concurrent registrations settle), so this is one small Query.
   */
  async listAll(accountId: string): Promise<TestRecipientItem[]> {
    return allItems<TestRecipientItem>(this.store, entriesOf(accountId));
  }

  /** A page of the account's entries, newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<TestRecipientItem>> {
    return queryPage<TestRecipientItem>(this.store, entriesOf(accountId), page);
  }

  /** Ids are fresh, so this never meets an existing entry. */
  async create(item: NewTestRecipient): Promise<TestRecipientItem> {
    const stored: TestRecipientItem = { ...keys.testRecipient(item.account_id, item.id), entity: 'test_recipient', ...item };
    await this.store.create(stored);
    return stored;
  }

  /** false when the entry was gone already. */
  remove(accountId: string, recipientId: string): Promise<boolean> {
    return wrote(this.store.delete(keys.testRecipient(accountId, recipientId), { expression: 'attribute_exists(pk)' }));
  }

  /** The verified entry; undefined when it is gone or verified already. */
  async markVerified(accountId: string, recipientId: string, now: string): Promise<TestRecipientItem | undefined> {
    const write = this.store.update<TestRecipientItem>(keys.testRecipient(accountId, recipientId), {
      expression: 'SET #status = :verified, verified_at = :now',
      condition: 'attribute_exists(pk) AND #status = :pending',
      names: { '#status': 'status' },
      values: { ':verified': 'verified', ':now': now, ':pending': 'pending' },
    });
    return (await wrote(write)) ? write : undefined;
  }

  /**
   * Counts one send to an address on a UTC day; false (nothing counted) once `limit` sends are
   * counted. One conditional write, so concurrent sends can never pass the limit.
   */
  countTestSend(accountId: string, recipient: string, day: string, limit: number, expiresAt: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.testSendCounter(accountId, recipient, day), {
        expression: 'SET entity = :entity, expires_at = :expires ADD sends :one',
        condition: 'attribute_not_exists(sends) OR sends < :limit',
        values: { ':entity': 'test_send_counter', ':expires': expiresAt, ':one': 1, ':limit': limit },
      }),
    );
  }
}
