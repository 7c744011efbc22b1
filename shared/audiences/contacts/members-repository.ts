// Static lists' memberships, in the list's own partition: one item per member contact, recording
// which add wrote it (`op`) and which removal is taking it away (`removing`), so a membership write
// that died halfway is settled from it (shared/audiences/contacts/members.ts).
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type QueryResult, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import { walkPage, type Page, type PageRequest, type WalkBudget } from '../../pagination';

export interface ListMemberItem extends ItemKey {
  entity: 'list_member';
  account_id: string;
  list_id: string;
  contact_id: string;
  /** The token of the add that wrote this membership. */
  op: string;
  created_at: string;
  /** The token of a removal under way, and since when (epoch ms). */
  removing?: string;
  removing_at?: number;
}

export class ListMemberRepository {
  constructor(private readonly store: Store) {}

  member(accountId: string, listId: string, contactId: string): Promise<ListMemberItem | undefined> {
    if (!isId(contactId, 'ctc')) return Promise.resolve(undefined);
    return this.store.get<ListMemberItem>(keys.listMember(accountId, listId, contactId));
  }

  /** False when the contact is a member already. */
  putMember(item: Omit<ListMemberItem, keyof ItemKey | 'entity'>): Promise<boolean> {
    return wrote(this.store.create<ListMemberItem>({ ...keys.listMember(item.account_id, item.list_id, item.contact_id), entity: 'list_member', ...item }));
  }

  /** Marks a membership for one removal: only the membership `op` wrote, unmarked (or marked by `takeOver`, a dead removal's token). */
  markRemoving(accountId: string, listId: string, contactId: string, op: string, token: string, nowMs: number, takeOver?: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.listMember(accountId, listId, contactId), {
        expression: 'SET removing = :token, removing_at = :now',
        values: { ':token': token, ':now': nowMs, ':op': op, ...(takeOver ? { ':old': takeOver } : {}) },
        condition: takeOver ? 'op = :op AND removing = :old' : 'op = :op AND attribute_not_exists(removing)',
      }),
    );
  }

  /**
   * Deletes the membership `op` wrote, while the removal `removing` holds it (or, with null, while
   * no removal holds it); false otherwise.
   */
  deleteMember(accountId: string, listId: string, contactId: string, op: string, removing: string | null): Promise<boolean> {
    return wrote(
      this.store.delete(keys.listMember(accountId, listId, contactId), {
        expression: removing ? 'op = :op AND removing = :removing' : 'op = :op AND attribute_not_exists(removing)',
        values: removing ? { ':op': op, ':removing': removing } : { ':op': op },
      }),
    );
  }

  /** Deletes a membership whatever wrote it (a deleted list's). */
  async dropMember(accountId: string, listId: string, contactId: string): Promise<void> {
    await this.store.delete(keys.listMember(accountId, listId, contactId));
  }

  /** A page of a static list's memberships, newest contact first, as `select` turns them into what is listed. */
  members<U extends object>(accountId: string, listId: string, page: PageRequest, select: (items: ListMemberItem[]) => Promise<U[]>, budget: WalkBudget): Promise<Page<U>> {
    return walkPage<ListMemberItem, U>(this.store, keyQueries.partition(keys.listMembersPartition(accountId, listId)), page, select, budget);
  }

  /** A broadcast's audience walk: up to `limit` memberships of a list from `startKey` (a store key), in the list's order. */
  memberPage(accountId: string, listId: string, startKey: Record<string, unknown> | undefined, limit: number): Promise<QueryResult<ListMemberItem>> {
    return this.store.query<ListMemberItem>({ ...keyQueries.partition(keys.listMembersPartition(accountId, listId)), ascending: true, limit, startKey });
  }

  /** The next memberships of a list from its start (for a delete, which removes them as it goes). */
  async firstMembers(accountId: string, listId: string, limit: number): Promise<ListMemberItem[]> {
    const out = await this.store.query<ListMemberItem>({ ...keyQueries.partition(keys.listMembersPartition(accountId, listId)), limit });
    return out.items;
  }
}
