// The import's target over shared/contacts: an upsert by email built from the contacts area's own
// use cases and repository (its address claims, its membership writes), so an imported contact is
// exactly what POST /v1/contacts makes. Each row is found by its address claim; a new address is
// written with writeContact (claim first), an existing contact updated when the row changes it,
// and the membership of list_id added with addMember. Every step is idempotent or refused as
// already done, so re-running a chunk after a crash creates nothing twice.
import { RetryableError, ApiError } from '../errors';
import { addMember, type MemberDeps } from '../contacts/members';
import { ContactExistsError, writeContact, type ContactDeps } from '../contacts/contacts';
import { ContactRepository, type ContactItem } from '../contacts/repository';
import { MAX_DATA_BYTES, MAX_DATA_KEYS } from '../contacts/schemas';
import type { DataValue } from '../contacts/filter';
import { inParallel } from '../concurrency';
import type { ContactRow } from './csv';
import type { Container } from '../runtime/container';
import type { ContactImportTarget, UpsertOutcome } from './target';

/** Rows of a chunk looked up or written at once (distinct addresses only). */
const PARALLEL = 8;

const isLive = (item: ContactItem | undefined): item is ContactItem => item !== undefined && item.deleted_at === undefined;

interface Fields {
  first_name: string | null;
  last_name: string | null;
  data: Record<string, DataValue>;
  member: boolean;
}

/** What the contact holds after the row: names the row gives, data keys merged over the stored ones. */
function after(current: Fields | undefined, row: ContactRow, listId: string | undefined): Fields {
  return {
    first_name: row.first_name ?? current?.first_name ?? null,
    last_name: row.last_name ?? current?.last_name ?? null,
    data: { ...(current?.data ?? {}), ...row.data },
    member: (current?.member ?? false) || listId !== undefined,
  };
}

function refusal(fields: Fields): string | undefined {
  const keys = Object.keys(fields.data).length;
  if (keys > MAX_DATA_KEYS) return `data would hold ${keys} keys with the contact's stored ones; at most ${MAX_DATA_KEYS}`;
  if (Buffer.byteLength(JSON.stringify(fields.data), 'utf8') > MAX_DATA_BYTES) return `data would be larger than ${MAX_DATA_BYTES} bytes with the contact's stored data`;
  return undefined;
}

const same = (a: Fields, b: Fields): boolean =>
  a.first_name === b.first_name && a.last_name === b.last_name && a.member === b.member && JSON.stringify(Object.entries(a.data).sort()) === JSON.stringify(Object.entries(b.data).sort());

/** Rows in order, grouped by address: a later row of an address applies over the earlier. */
function byEmail(rows: readonly ContactRow[]): Map<string, number[]> {
  const groups = new Map<string, number[]>();
  rows.forEach((r, i) => groups.set(r.email, [...(groups.get(r.email) ?? []), i]));
  return groups;
}

export function contactsTarget(deps: ContactDeps & MemberDeps): ContactImportTarget {
  const repo = new ContactRepository(deps.store);

  /** The live contact holding an address, if any. */
  const holderOf = async (accountId: string, email: string): Promise<ContactItem | undefined> => {
    const claim = await repo.emailItem(accountId, email);
    const holder = claim ? await repo.getContact(accountId, claim.contact_id) : undefined;
    return isLive(holder) && holder.email === email ? holder : undefined;
  };
  const fieldsOf = (c: Pick<ContactItem, 'first_name' | 'last_name' | 'data' | 'list_ids'>, listId: string | undefined): Fields => ({
    first_name: c.first_name,
    last_name: c.last_name,
    data: c.data ?? {},
    member: listId !== undefined && (c.list_ids?.has(listId) ?? false),
  });

  /** Walks one address's rows from what is stored: each row's outcome and what the contact ends as. */
  const walk = (stored: Fields | undefined, rows: ContactRow[], listId: string | undefined) => {
    let current = stored;
    const outcomes = rows.map((row): UpsertOutcome => {
      const next = after(current, row, listId);
      const refused = refusal(next);
      if (refused) return { refused };
      const outcome: UpsertOutcome = !current ? 'created' : same(current, next) ? 'unchanged' : 'updated';
      current = next;
      return outcome;
    });
    return { outcomes, final: current };
  };

  /**
   * A new contact under the chunk's derived id: a claim with that id is this import's own, left by
   * a run that died before writing the contact, and is taken back at once. The derived id is taken
   * already only when that run did write the contact and it was deleted since (its address freed):
   * the address then gets a fresh id.
   */
  const writeNew = async (accountId: string, fields: Parameters<typeof writeContact>[2], id: string | undefined) => {
    try {
      return await writeContact(deps, accountId, fields, id);
    } catch (error) {
      if (!(error instanceof ContactExistsError) || id === undefined) throw error;
      return writeContact(deps, accountId, fields);
    }
  };

  const each = async (accountId: string, rows: readonly ContactRow[], listId: string | undefined, one: (email: string, indexes: number[]) => Promise<UpsertOutcome[]>) => {
    const outcomes: UpsertOutcome[] = new Array(rows.length);
    await inParallel([...byEmail(rows)], PARALLEL, async ([email, indexes]) => {
      const got = await one(email, indexes);
      indexes.forEach((at, k) => (outcomes[at] = got[k]!));
    });
    return outcomes;
  };

  return {
    async listKind(accountId, listId) {
      const [list] = await repo.listsByIds(accountId, [listId]);
      return list !== undefined && list.deleted_at === undefined ? list.type : undefined;
    },

    planUpsert: (accountId, rows, listId) =>
      each(accountId, rows, listId, async (email, indexes) => {
        const holder = await holderOf(accountId, email);
        return walk(holder ? fieldsOf(holder, listId) : undefined, indexes.map((i) => rows[i]!), listId).outcomes;
      }),

    async upsertContacts(accountId, rows, listId, idFor) {
      const outcomes = await each(accountId, rows, listId, async (email, indexes) => {
        let holder: Pick<ContactItem, 'id' | 'first_name' | 'last_name' | 'data' | 'list_ids' | 'unsubscribed'> | undefined = await holderOf(accountId, email);
        const { outcomes: got, final } = walk(holder ? fieldsOf(holder, listId) : undefined, indexes.map((i) => rows[i]!), listId);
        if (!final) return got; // every row of the address refused
        if (!holder) {
          const fields = { email, first_name: final.first_name, last_name: final.last_name, data: final.data };
          try {
            // Written with the row's values and in no list yet: what it holds is known without a read.
            holder = await writeNew(accountId, fields, idFor?.(email));
          } catch (error) {
            if (!(error instanceof ApiError && error.code === 'duplicate_contact')) throw error;
            // Written meanwhile (another run of this chunk, or a request), or a claim a dead write left: retried.
            holder = await holderOf(accountId, email);
            if (!holder) throw new RetryableError(`the address ${email} is claimed by a contact not written yet; the chunk is retried`, { cause: error });
          }
        }
        const now = fieldsOf(holder, listId);
        if (!same({ ...now, member: final.member }, final)) {
          const updated = await repo.updateContact(accountId, holder.id, email, {
            email,
            first_name: final.first_name,
            last_name: final.last_name,
            data: final.data,
            unsubscribed: holder.unsubscribed,
            updated_at: deps.clock.now().toISOString(),
          });
          if (!updated) throw new RetryableError(`contact ${holder.id} changed or went away during the import; the chunk is retried`);
        }
        if (listId !== undefined && !now.member) {
          try {
            await addMember(deps, accountId, listId, holder.id);
          } catch (error) {
            if (!(error instanceof ApiError && error.code === 'duplicate_member')) throw error;
          }
        }
        return got;
      });
      return { created: outcomes.filter((o) => o === 'created').length, updated: outcomes.filter((o) => o === 'updated').length };
    },
  };
}

let targetFor: (c: Container) => ContactImportTarget = (c) => contactsTarget(c);

/** The contacts the import writes to, for this container. */
export function contactImportTarget(c: Container): ContactImportTarget {
  return targetFor(c);
}

/** Puts another target in place (a test double; the benchmark's counting one). */
export function useContactImportTarget(factory: (c: Container) => ContactImportTarget): void {
  targetFor = factory;
}
