// Stored contacts, in the account's partition: one item per contact (by id), carrying the static
// lists it is a member of. The contacts area's other items each have their repository: the
// address claims (claims-repository.ts), the approximate count (count-repository.ts), the lists
// (lists-repository.ts) and their memberships (members-repository.ts).
//
// The store has no transactions (dynalite has none), so a write that spans items is a sequence of
// conditional single-item writes, each idempotent or undone, ordered so a crash between any two
// leaves a state that reads treat correctly and a later request finishes (shared/audiences/contacts/members.ts,
// docs/api-decisions.md "Contacts and lists").
import { keys, keyQueries, type ItemKey } from '../../db/keys';
import { wrote, type QueryResult, type Store } from '../../db/store';
import { isId } from '../../ports/ids';
import { walkPage, type Page, type PageRequest, type WalkBudget } from '../../pagination';
import type { DataValue } from './filter';
import { ListMemberRepository } from './members-repository';
import { inBatches, one } from './repository-helpers';

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

export class ContactRepository {
  constructor(private readonly store: Store) {}

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  getContact(accountId: string, contactId: string): Promise<ContactItem | undefined> {
    if (!isId(contactId, 'ctc')) return Promise.resolve(undefined);
    return this.store.get<ContactItem>(keys.contact(accountId, contactId));
  }

  async contactsByIds(accountId: string, contactIds: readonly string[]): Promise<ContactItem[]> {
    if (contactIds.length === 0) return [];
    const groups = await inBatches(contactIds, 100, (ids) => this.store.batchGet<ContactItem>(ids.map((id) => keys.contact(accountId, id))));
    return groups.flat();
  }

  /** Several new contacts at once, unconditionally (batch writes): only for ids nothing else writes, whose addresses are claimed. */
  async putNewContacts(items: readonly NewContact[]): Promise<void> {
    const stored = items.map((item): ContactItem => ({ ...keys.contact(item.account_id, item.id), entity: 'contact', ...item }));
    await inBatches(stored, 25, (group) => this.store.batchPut(group));
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

  /**
   * A page of a static list's members as their contacts, newest membership first: the memberships
   * joined to their contacts in one batch read, those gone or not `wanted` dropped. Each joined item
   * keeps its membership's key, which is what the page's cursor resumes from.
   */
  async memberContacts(accountId: string, listId: string, page: PageRequest, wanted: (c: ContactItem) => boolean, budget: WalkBudget): Promise<Page<ContactItem>> {
    const out = await new ListMemberRepository(this.store).members(
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

  /** A broadcast's audience walk of a dynamic list: up to `limit` of the account's contacts from `startKey`, oldest first. */
  contactPage(accountId: string, startKey: Record<string, unknown> | undefined, limit: number): Promise<QueryResult<ContactItem>> {
    return this.store.query<ContactItem>({ ...keyQueries.accountItems(accountId, keys.contactPrefix), ascending: true, limit, startKey, consistent: false });
  }
}
