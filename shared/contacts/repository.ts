// Stored contacts and lists. In the account's partition: each contact (by id), its address claim
// (by normalized address: which contact holds it), each list (by id; a static list carries its
// member count and the membership writes in flight), and an approximate count of the account's
// contacts. In a static list's own partition: one membership item per member contact.
//
// The store has no transactions (dynalite has none), so a write that spans items is a sequence of
// conditional single-item writes, each idempotent or undone, ordered so a crash between any two
// leaves a state that reads treat correctly and a later request finishes (shared/contacts/members.ts,
// docs/api-decisions.md "Contacts and lists").
import { keys, keyQueries, type ItemKey } from '../db/keys';
import { wrote, type QueryResult, type Store } from '../db/store';
import { inParallel } from '../concurrency';
import { isId } from '../ids';
import { queryPage, walkPage, type Page, type PageRequest, type WalkBudget } from '../pagination';
import type { DataValue } from './filter';
import type { ListFilter } from './schemas';

export interface ContactItem extends ItemKey {
  entity: 'contact';
  id: string;
  account_id: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  data: Record<string, DataValue>;
  unsubscribed: boolean;
  /** The static lists the contact is a member of; absent when none (DynamoDB has no empty sets). */
  list_ids?: Set<string>;
  created_at: string;
  updated_at: string;
  /** Set first by a delete: reads treat the contact as gone while its memberships are removed. */
  deleted_at?: string;
}

export type NewContact = Omit<ContactItem, keyof ItemKey | 'entity' | 'list_ids' | 'deleted_at'>;

export interface ContactEmailItem extends ItemKey {
  entity: 'contact_email';
  account_id: string;
  contact_id: string;
  /** Epoch ms: a claim whose contact never got written can be taken over once it is old. */
  claimed_at: number;
}

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

interface ContactCountItem extends ItemKey {
  entity: 'contact_count';
  count: number;
}

const one = (value: string): Set<string> => new Set([value]);

/** Batch reads or writes of one call in flight at once. */
const PARALLEL_BATCHES = 4;

function groupsOf<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export class ContactRepository {
  constructor(private readonly store: Store) {}

  // --- contacts ---

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  getContact(accountId: string, contactId: string): Promise<ContactItem | undefined> {
    if (!isId(contactId, 'ctc')) return Promise.resolve(undefined);
    return this.store.get<ContactItem>(keys.contact(accountId, contactId));
  }

  async contactsByIds(accountId: string, contactIds: readonly string[]): Promise<ContactItem[]> {
    if (contactIds.length === 0) return [];
    const groups = await inParallel(groupsOf(contactIds, 100), PARALLEL_BATCHES, (ids) => this.store.batchGet<ContactItem>(ids.map((id) => keys.contact(accountId, id))));
    return groups.flat();
  }

  /** Several new contacts at once, unconditionally (batch writes): only for ids nothing else writes, whose addresses are claimed. */
  async putNewContacts(items: readonly NewContact[]): Promise<void> {
    const stored = items.map((item): ContactItem => ({ ...keys.contact(item.account_id, item.id), entity: 'contact', ...item }));
    await inParallel(groupsOf(stored, 25), PARALLEL_BATCHES, (group) => this.store.batchPut(group));
  }

  createContact(item: NewContact): Promise<boolean> {
    return wrote(this.store.create<ContactItem>({ ...keys.contact(item.account_id, item.id), entity: 'contact', ...item }));
  }

  /** Writes the fields of a live contact whose address is still `seenEmail`; undefined when it changed, was deleted, or is gone. */
  async updateContact(
    accountId: string,
    contactId: string,
    seenEmail: string,
    fields: Pick<ContactItem, 'email' | 'first_name' | 'last_name' | 'data' | 'unsubscribed' | 'updated_at'>,
  ): Promise<ContactItem | undefined> {
    let updated: ContactItem | undefined;
    const ok = await wrote(
      this.store
        .update<ContactItem>(keys.contact(accountId, contactId), {
          expression: 'SET email = :email, first_name = :first, last_name = :last, #data = :data, unsubscribed = :unsub, updated_at = :at',
          names: { '#data': 'data' },
          values: {
            ':email': fields.email,
            ':first': fields.first_name,
            ':last': fields.last_name,
            ':data': fields.data,
            ':unsub': fields.unsubscribed,
            ':at': fields.updated_at,
            ':seen': seenEmail,
          },
          condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at) AND email = :seen',
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /** Marks a contact deleted; true when this call marked it, false when it was marked already or is gone. */
  markContactDeleted(accountId: string, contactId: string, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contact(accountId, contactId), {
        expression: 'SET deleted_at = :now',
        values: { ':now': now },
        condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      }),
    );
  }

  async removeContact(accountId: string, contactId: string): Promise<void> {
    await this.store.delete(keys.contact(accountId, contactId));
  }

  /** Adds a list to a live contact's list_ids (idempotent); false when the contact is gone or being deleted. */
  addListToContact(accountId: string, contactId: string, listId: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.contact(accountId, contactId), {
        expression: 'ADD list_ids :list',
        values: { ':list': one(listId) },
        condition: 'attribute_exists(pk) AND attribute_not_exists(deleted_at)',
      }),
    );
  }

  /** Takes a list out of a contact's list_ids (idempotent); nothing when the contact is gone. */
  async dropListFromContact(accountId: string, contactId: string, listId: string): Promise<void> {
    await wrote(
      this.store.update(keys.contact(accountId, contactId), {
        expression: 'DELETE list_ids :list',
        values: { ':list': one(listId) },
        condition: 'attribute_exists(pk)',
      }),
    );
  }

  /**
   * A page of the account's contacts, newest first, keeping those `select` returns (it may read
   * more and drop some), reading at most `budget` store pages (shared/pagination walkPage).
   */
  walkContacts<U extends object>(accountId: string, page: PageRequest, select: (items: ContactItem[]) => Promise<U[]>, budget: WalkBudget): Promise<Page<U>> {
    return walkPage<ContactItem, U>(this.store, keyQueries.accountItems(accountId, keys.contactPrefix), page, select, budget);
  }

  /**
   * Reads the account's live contacts newest first, at most `budget`, and counts those `matches`
   * accepts; `complete` when it read them all.
   */
  async countContacts(accountId: string, matches: (c: ContactItem) => boolean, budget: WalkBudget): Promise<{ read: number; matched: number; complete: boolean }> {
    let read = 0;
    let matched = 0;
    let startKey: Record<string, unknown> | undefined;
    for (let page = 0; page < budget.pages; page++) {
      const out = await this.store.query<ContactItem>({ ...keyQueries.accountItems(accountId, keys.contactPrefix), limit: budget.pageSize, startKey, consistent: false });
      for (const c of out.items) {
        if (c.deleted_at !== undefined) continue;
        read += 1;
        if (matches(c)) matched += 1;
      }
      if (!out.lastKey) return { read, matched, complete: true };
      startKey = out.lastKey;
    }
    return { read, matched, complete: false };
  }

  // --- address claims ---

  emailItem(accountId: string, email: string): Promise<ContactEmailItem | undefined> {
    return this.store.get<ContactEmailItem>(keys.contactEmail(accountId, email));
  }

  /** The claims of these addresses that exist, by address, in batch reads. */
  async emailItems(accountId: string, emails: readonly string[]): Promise<Map<string, ContactEmailItem>> {
    const bySk = new Map(emails.map((e) => [keys.contactEmail(accountId, e).sk, e]));
    const groups = await inParallel(groupsOf(emails, 100), PARALLEL_BATCHES, (part) => this.store.batchGet<ContactEmailItem>(part.map((e) => keys.contactEmail(accountId, e))));
    return new Map(groups.flat().map((claim) => [bySk.get(claim.sk)!, claim]));
  }

  /** Takes an address for a contact; false when another contact holds it (this one may take it again). */
  claimEmail(accountId: string, email: string, contactId: string, nowMs: number): Promise<boolean> {
    const item: ContactEmailItem = { ...keys.contactEmail(accountId, email), entity: 'contact_email', account_id: accountId, contact_id: contactId, claimed_at: nowMs };
    return wrote(this.store.put(item, { expression: 'attribute_not_exists(pk) OR contact_id = :id', values: { ':id': contactId } }));
  }

  /** Takes over an address from `staleContactId`, only if nobody changed the claim since it was read. */
  takeOverEmail(accountId: string, email: string, staleContactId: string, contactId: string, nowMs: number): Promise<boolean> {
    const item: ContactEmailItem = { ...keys.contactEmail(accountId, email), entity: 'contact_email', account_id: accountId, contact_id: contactId, claimed_at: nowMs };
    return wrote(this.store.put(item, { expression: 'contact_id = :old', values: { ':old': staleContactId } }));
  }

  /** Gives an address up, only while this contact holds it. */
  releaseEmail(accountId: string, email: string, contactId: string): Promise<boolean> {
    return wrote(this.store.delete(keys.contactEmail(accountId, email), { expression: 'contact_id = :id', values: { ':id': contactId } }));
  }

  // --- the approximate contact count ---

  async moveContactCount(accountId: string, delta: number): Promise<void> {
    await this.store.update(keys.contactCount(accountId), { expression: 'SET entity = :entity ADD #count :delta', names: { '#count': 'count' }, values: { ':entity': 'contact_count', ':delta': delta } });
  }

  /**
   * Moves the count by `delta` once per step of a run named `mark` (an attribute on the count item
   * holds the last step counted): a repeat of a step, or of an earlier one, moves nothing.
   */
  async moveContactCountOnce(accountId: string, delta: number, mark: string, step: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactCount(accountId), {
        expression: 'SET entity = :entity, #mark = :step ADD #count :delta',
        names: { '#count': 'count', '#mark': mark },
        values: { ':entity': 'contact_count', ':delta': delta, ':step': step },
        condition: 'attribute_not_exists(#mark) OR #mark < :step',
      }),
    );
  }

  /** Drops a finished run's mark from the count item. */
  async forgetCountMark(accountId: string, mark: string): Promise<void> {
    await wrote(this.store.update(keys.contactCount(accountId), { expression: 'REMOVE #mark', names: { '#mark': mark }, condition: 'attribute_exists(pk)' }));
  }

  async contactCount(accountId: string): Promise<number> {
    const item = await this.store.get<ContactCountItem>(keys.contactCount(accountId), false);
    return Math.max(0, item?.count ?? 0);
  }

  // --- lists ---

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

  // --- memberships ---

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

  /**
   * A page of a static list's members as their contacts, newest membership first: the memberships
   * joined to their contacts in one batch read, those gone or not `wanted` dropped. Each joined item
   * keeps its membership's key, which is what the page's cursor resumes from.
   */
  async memberContacts(accountId: string, listId: string, page: PageRequest, wanted: (c: ContactItem) => boolean, budget: WalkBudget): Promise<Page<ContactItem>> {
    const out = await this.members(
      accountId,
      listId,
      page,
      async (members) => {
        const contacts = new Map((await this.contactsByIds(accountId, members.map((m) => m.contact_id))).map((c) => [c.id, c]));
        return members.flatMap((m) => {
          const contact = contacts.get(m.contact_id);
          return contact && wanted(contact) ? [{ pk: m.pk, sk: m.sk, contact }] : [];
        });
      },
      budget,
    );
    return { items: out.items.map((m) => m.contact), nextCursor: out.nextCursor };
  }

  /** A broadcast's audience walk: up to `limit` memberships of a list from `startKey` (a store key), in the list's order. */
  memberPage(accountId: string, listId: string, startKey: Record<string, unknown> | undefined, limit: number): Promise<QueryResult<ListMemberItem>> {
    return this.store.query<ListMemberItem>({ ...keyQueries.partition(keys.listMembersPartition(accountId, listId)), ascending: true, limit, startKey });
  }

  /** A broadcast's audience walk of a dynamic list: up to `limit` of the account's contacts from `startKey`, oldest first. */
  contactPage(accountId: string, startKey: Record<string, unknown> | undefined, limit: number): Promise<QueryResult<ContactItem>> {
    return this.store.query<ContactItem>({ ...keyQueries.accountItems(accountId, keys.contactPrefix), ascending: true, limit, startKey, consistent: false });
  }

  /** The next memberships of a list from its start (for a delete, which removes them as it goes). */
  async firstMembers(accountId: string, listId: string, limit: number): Promise<ListMemberItem[]> {
    const out = await this.store.query<ListMemberItem>({ ...keyQueries.partition(keys.listMembersPartition(accountId, listId)), limit });
    return out.items;
  }
}
