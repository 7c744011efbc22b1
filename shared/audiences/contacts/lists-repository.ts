// Contact lists, in the account's partition: one item per list (by id). A static list carries its
// exact member count and the membership writes in flight (`pending` tokens: shared/audiences/contacts/members.ts);
// a dynamic list its filter and the estimate of its members as of counted_at.
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import { one } from './repository-helpers';
import type { ListFilter } from './schemas';

export interface ContactListItem extends ItemKey {
  entity: 'contact_list';
  id: string;
  account_id: string;
  name: string;
  type: 'static' | 'dynamic';
  filter: ListFilter | null;
  /** Static: exact (moved with every membership write). Dynamic: the estimate as of counted_at. */
  member_count: number;
  counted_at: string | null;
  /** Membership writes whose count moved and whose other writes may not have (tokens, see members.ts). */
  pending?: Set<string>;
  created_at: string;
  updated_at: string;
  /** Set first by a delete: reads treat the list as gone while its memberships are removed. */
  deleted_at?: string;
}

export type NewContactList = Omit<ContactListItem, keyof ItemKey | 'entity' | 'pending' | 'deleted_at'>;

export class ContactListRepository {
  constructor(private readonly store: Store) {}

  getList(accountId: string, listId: string): Promise<ContactListItem | undefined> {
    if (!isId(listId, 'lst')) return Promise.resolve(undefined);
    return this.store.get<ContactListItem>(keys.contactList(accountId, listId));
  }

  listsByIds(accountId: string, listIds: readonly string[]): Promise<ContactListItem[]> {
    const valid = listIds.filter((id) => isId(id, 'lst'));
    if (valid.length === 0) return Promise.resolve([]);
    return this.store.batchGet<ContactListItem>(valid.map((id) => keys.contactList(accountId, id)));
  }

  /** The stored list; undefined when one with this id exists already. */
  async createList(item: NewContactList): Promise<ContactListItem | undefined> {
    const stored: ContactListItem = { ...keys.contactList(item.account_id, item.id), entity: 'contact_list', ...item };
    return (await wrote(this.store.create(stored))) ? stored : undefined;
  }

  /** A page of the account's lists, newest first, without those being deleted. */
  lists(accountId: string, page: PageRequest): Promise<Page<ContactListItem>> {
    const query = keyQueries.accountItems(accountId, keys.contactListPrefix);
    return queryPage<ContactListItem>(this.store, { ...query, filter: 'attribute_not_exists(deleted_at)' }, page);
  }

  /** Renames a live list or changes its filter; undefined when it is gone or being deleted. */
  async updateList(accountId: string, listId: string, fields: Pick<ContactListItem, 'name' | 'filter' | 'updated_at'> & { counted_at?: null }): Promise<ContactListItem | undefined> {
    let updated: ContactListItem | undefined;
    const resetCount = fields.counted_at === null ? ', counted_at = :null' : '';
    const ok = await wrote(
      this.store
        .update<ContactListItem>(keys.contactList(accountId, listId), {
          expression: `SET #name = :name, #filter = :filter, updated_at = :at${resetCount}`,
          names: { '#name': 'name', '#filter': 'filter' },
          values: { ':name': fields.name, ':filter': fields.filter, ':at': fields.updated_at, ...(resetCount ? { ':null': null } : {}) },
          condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /** A dynamic list's new estimate. */
  async recordCount(accountId: string, listId: string, count: number, countedAt: string): Promise<ContactListItem | undefined> {
    let updated: ContactListItem | undefined;
    await wrote(
      this.store
        .update<ContactListItem>(keys.contactList(accountId, listId), {
          expression: 'SET member_count = :count, counted_at = :at',
          values: { ':count': count, ':at': countedAt },
          condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
        })
        .then((item) => void (updated = item)),
    );
    return updated;
  }

  /** Marks a list deleted (idempotent); undefined when there is no such list. */
  async markListDeleted(accountId: string, listId: string, now: string): Promise<ContactListItem | undefined> {
    let updated: ContactListItem | undefined;
    await wrote(
      this.store
        .update<ContactListItem>(keys.contactList(accountId, listId), {
          expression: 'SET deleted_at = if_not_exists(deleted_at, :now)',
          values: { ':now': now },
          condition: 'attribute_exists(pk)',
        })
        .then((item) => void (updated = item)),
    );
    return updated;
  }

  async removeList(accountId: string, listId: string): Promise<void> {
    await this.store.delete(keys.contactList(accountId, listId));
  }

  /** Moves a live list's count by `delta` and records the write's token; false when the list is gone or being deleted. */
  beginCount(accountId: string, listId: string, delta: number, token: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactList(accountId, listId), {
        expression: 'ADD member_count :delta, pending :token',
        values: { ':delta': delta, ':token': one(token) },
        condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      }),
    );
  }

  /** Moves the count back and forgets the token, only if the token is still there (so at most once). */
  undoCount(accountId: string, listId: string, delta: number, token: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactList(accountId, listId), {
        expression: 'ADD member_count :delta DELETE pending :token',
        values: { ':delta': -delta, ':token': one(token), ':tok': token },
        condition: 'contains(pending, :tok)',
      }),
    );
  }

  /**
   * Forgets a finished add's token, only while the list is live; false when it is being deleted or
   * gone (the add must then take its membership back: the delete's sweep may have passed it).
   */
  endAdd(accountId: string, listId: string, token: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactList(accountId, listId), {
        expression: 'DELETE pending :token',
        values: { ':token': one(token) },
        condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      }),
    );
  }

  /** Forgets a finished write's token; nothing when the list is gone. */
  async endCount(accountId: string, listId: string, token: string): Promise<void> {
    await wrote(
      this.store.update(keys.contactList(accountId, listId), {
        expression: 'DELETE pending :token',
        values: { ':token': one(token) },
        condition: 'attribute_exists(pk)',
      }),
    );
  }
}
