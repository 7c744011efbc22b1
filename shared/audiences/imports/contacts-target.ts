// The import's target over shared/audiences/contacts: an upsert by email built from the contacts area's own
// use cases and repository (its address claims, its membership writes), so an imported contact is
// exactly what POST /v1/contacts makes. Each row is found by its address claim; a new address is
// written with writeContact (claim first), an existing contact updated when the row changes it,
// and the membership of list_id added with addMember. Every step is idempotent or refused as
// already done, so re-running a chunk after a crash creates nothing twice.
import { RetryableError, ApiError } from '../../errors';
import { addMember, type MemberDeps } from '../contacts/members';
import { CLAIMS_IN_FLIGHT, writeNewContacts, type ContactDeps } from '../contacts/contacts';
import { ContactClaimRepository } from '../contacts/claims-repository';
import { ContactCountRepository } from '../contacts/count-repository';
import { ContactListRepository } from '../contacts/lists-repository';
import { ContactRepository, type ContactItem } from '../contacts/repository';
import { MAX_DATA_BYTES, MAX_DATA_KEYS } from '../contacts/schemas';
import type { DataValue } from '../contacts/filter';
import { inParallel } from '../../concurrency';
import type { ContactRow } from './csv';
import type { Store } from '../../db/store';
import type { Container } from '../../runtime/container';
import type { ContactImportTarget, UpsertOptions, UpsertOutcome } from './target';

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

/**
 * What planUpsert read and took: the live holders of the rows' addresses, and the addresses it
 * claimed for new contacts under idFor's ids (claim first: such a claim is the address's read).
 */
interface Reads {
  accountId: string;
  holders: ReadonlyMap<string, ContactItem>;
  claimed: ReadonlySet<string>;
}

const isReads = (x: unknown): x is Reads => typeof x === 'object' && x !== null && 'holders' in x && (x as Reads).holders instanceof Map;

/** What readAhead read and took: for the `covered` addresses (those of the rows the chunk before does not write). */
interface Ahead extends Reads {
  covered: ReadonlySet<string>;
}

const isAhead = (x: unknown): x is Ahead => isReads(x) && 'covered' in x && (x as Ahead).covered instanceof Set;

type TargetDeps = ContactDeps & MemberDeps;

/** What the import needs of a stored contact (a new one's is what it was written with). */
type Stored = Pick<ContactItem, 'id' | 'first_name' | 'last_name' | 'data' | 'list_ids' | 'unsubscribed'>;

/** An address of the chunk: what its rows end as, and the live contact holding it before the chunk, if any. */
interface Address {
  email: string;
  final: Fields;
  holder: ContactItem | undefined;
}

const emailsOf = (rows: readonly ContactRow[]): string[] => [...new Set(rows.map((r) => r.email))];

/** The live contact holding each address that has one: its claim and its contact, in batch reads. */
async function holdersOf(store: Store, accountId: string, emails: readonly string[]): Promise<Map<string, ContactItem>> {
  const claims = await new ContactClaimRepository(store).emailItems(accountId, emails);
  const contacts = await new ContactRepository(store).contactsByIds(accountId, [...new Set([...claims.values()].map((c) => c.contact_id))]);
  const byId = new Map(contacts.map((c) => [c.id, c]));
  const held = new Map<string, ContactItem>();
  for (const [email, claim] of claims) {
    const holder = byId.get(claim.contact_id);
    if (isLive(holder) && holder.email === email) held.set(email, holder);
  }
  return held;
}

/**
 * The live holders of the rows' addresses, and with idFor, the addresses claimed for new contacts.
 * Claim first: each address that would take a new contact is claimed for idFor's contact at once,
 * and only the addresses whose claim was refused (another contact holds it, or a claim not yet
 * stale) and those every row of which would be refused are read. A claim taken is an address no
 * live contact held: the plan makes its contact, under the id every run of the chunk derives, so
 * a run that dies before its plan is stored leaves claims the next run takes again.
 */
async function claimOrRead(deps: TargetDeps, accountId: string, rows: readonly ContactRow[], listId: string | undefined, idFor: ((email: string) => string) | undefined): Promise<Reads> {
  const groups = byEmail(rows);
  const emails = [...groups.keys()];
  if (!idFor) return { accountId, holders: await holdersOf(deps.store, accountId, emails), claimed: new Set() };
  const wouldMake = (email: string): boolean => walk(undefined, groups.get(email)!.map((i) => rows[i]!), listId).final !== undefined;
  const claims = new ContactClaimRepository(deps.store);
  const nowMs = deps.clock.now().getTime();
  const claimed = new Set<string>();
  const toRead = emails.filter((e) => !wouldMake(e));
  await inParallel(
    emails.filter(wouldMake),
    CLAIMS_IN_FLIGHT,
    async (email) => void ((await claims.claimEmail(accountId, email, idFor(email), nowMs)) ? claimed.add(email) : toRead.push(email)),
  );
  return { accountId, holders: await holdersOf(deps.store, accountId, toRead), claimed };
}

/** claimOrRead, taking what a read ahead covered from it and claiming or reading only the rest. */
async function readsWith(deps: TargetDeps, accountId: string, rows: readonly ContactRow[], listId: string | undefined, idFor: ((email: string) => string) | undefined, ahead: Ahead | undefined): Promise<Reads> {
  if (!ahead) return claimOrRead(deps, accountId, rows, listId, idFor);
  const own = await claimOrRead(deps, accountId, rows.filter((r) => !ahead.covered.has(r.email)), listId, idFor);
  const holders = new Map(own.holders);
  for (const [email, holder] of ahead.holders) holders.set(email, holder);
  return { accountId, holders, claimed: new Set([...own.claimed, ...ahead.claimed]) };
}

const fieldsOf = (c: Pick<ContactItem, 'first_name' | 'last_name' | 'data' | 'list_ids'>, listId: string | undefined): Fields => ({
  first_name: c.first_name,
  last_name: c.last_name,
  data: c.data ?? {},
  member: listId !== undefined && (c.list_ids?.has(listId) ?? false),
});

/** Walks one address's rows from what is stored: each row's outcome and what the contact ends as. */
function walk(stored: Fields | undefined, rows: ContactRow[], listId: string | undefined): { outcomes: UpsertOutcome[]; final: Fields | undefined } {
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
}

/** Each address's rows walked from its holder: the rows' outcomes, and the addresses with what they end as. */
function plan(holders: ReadonlyMap<string, ContactItem>, rows: readonly ContactRow[], listId: string | undefined): { outcomes: UpsertOutcome[]; addresses: Address[] } {
  const groups = [...byEmail(rows)];
  const outcomes: UpsertOutcome[] = new Array(rows.length);
  const addresses: Address[] = [];
  for (const [email, indexes] of groups) {
    const holder = holders.get(email);
    const { outcomes: got, final } = walk(holder ? fieldsOf(holder, listId) : undefined, indexes.map((i) => rows[i]!), listId);
    indexes.forEach((at, k) => (outcomes[at] = got[k]!));
    if (final) addresses.push({ email, final, holder }); // none when every row of the address was refused
  }
  return { outcomes, addresses };
}

/**
 * Writes the addresses no contact held, and answers the contact each address ends with, read or
 * written, and `made`: the contacts this chunk made, now or by an earlier run of it (they bear its
 * derived ids).
 */
async function writeFresh(
  deps: TargetDeps,
  accountId: string,
  addresses: readonly Address[],
  idFor: ((email: string) => string) | undefined,
  idsAreNew: boolean,
  claimed: ReadonlySet<string>,
): Promise<{ stored: Map<string, Stored>; made: number }> {
  const fresh = addresses.filter((a) => !a.holder);
  // Each address's derived id, hashed once (the count below compares against it again).
  const ids = new Map(idFor ? addresses.map((a) => [a.email, idFor(a.email)] as const) : []);
  // Written with the rows' values and in no list yet: what each holds is known without a read.
  const { written, taken } = await writeNewContacts(
    deps,
    accountId,
    fresh.map(({ email, final }) => ({ body: { email, first_name: final.first_name, last_name: final.last_name, data: final.data }, ...(idFor ? { id: ids.get(email)! } : {}) })),
    { idsAreNew, claimed },
  );
  const stored = new Map<string, Stored>(written.map((c) => [c.email, c]));
  for (const { email, holder } of addresses) if (holder) stored.set(email, holder);
  if (taken.length > 0) {
    // Written meanwhile (another run of this chunk, or a request), or a claim a dead write left: retried.
    const again = await holdersOf(deps.store, accountId, taken);
    for (const email of taken) {
      const holder = again.get(email);
      if (!holder) throw new RetryableError(`the address ${email} is claimed by a contact not written yet; the chunk is retried`);
      stored.set(email, holder);
    }
  }
  // A plan made by this run has no earlier run whose contacts bear its ids (an earlier chunk planned
  // in the same millisecond derives the same ids, and is no earlier run of this one).
  if (!idFor || idsAreNew) return { stored, made: written.length };
  const writtenNow = new Set(written.map((w) => w.email));
  const made = written.length + addresses.filter((a) => stored.get(a.email)?.id === ids.get(a.email) && !writtenNow.has(a.email)).length;
  return { stored, made };
}

/** Brings a stored contact to what its rows end as: its fields when they differ, then the list's membership. */
async function settle(deps: TargetDeps, accountId: string, email: string, holder: Stored, final: Fields, listId: string | undefined): Promise<void> {
  const now = fieldsOf(holder, listId);
  if (!same({ ...now, member: final.member }, final)) {
    const updated = await new ContactRepository(deps.store).updateContact(accountId, holder.id, email, {
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
}

async function upsertContacts(
  deps: TargetDeps,
  accountId: string,
  rows: readonly ContactRow[],
  listId: string | undefined,
  { idFor, countOnce, planned }: UpsertOptions = {},
): Promise<{ created: number; updated: number }> {
  const reads = isReads(planned) && planned.accountId === accountId ? planned : undefined;
  const { outcomes, addresses } = plan(reads?.holders ?? (await holdersOf(deps.store, accountId, emailsOf(rows))), rows, listId);
  const { stored, made } = await writeFresh(deps, accountId, addresses, idFor, reads !== undefined, reads?.claimed ?? new Set());
  const counts = new ContactCountRepository(deps.store);
  if (countOnce) await counts.moveContactCountOnce(accountId, made, countOnce.mark, countOnce.step);
  else if (made > 0) await counts.moveContactCount(accountId, made);
  await inParallel(addresses, PARALLEL, ({ email, final }) => settle(deps, accountId, email, stored.get(email)!, final, listId));
  return { created: outcomes.filter((o) => o === 'created').length, updated: outcomes.filter((o) => o === 'updated').length };
}

export function contactsTarget(deps: TargetDeps): ContactImportTarget {
  return {
    async listKind(accountId, listId) {
      const [list] = await new ContactListRepository(deps.store).listsByIds(accountId, [listId]);
      return list !== undefined && list.deleted_at === undefined ? list.type : undefined;
    },

    async readAhead(accountId, rows, writing, listId, idFor) {
      const covered = rows.filter((r) => !writing.has(r.email));
      return { ...(await claimOrRead(deps, accountId, covered, listId, idFor)), covered: new Set(covered.map((r) => r.email)) } satisfies Ahead;
    },

    async planUpsert(accountId, rows, listId, ahead, idFor) {
      const reads = await readsWith(deps, accountId, rows, listId, idFor, isAhead(ahead) && ahead.accountId === accountId ? ahead : undefined);
      return { outcomes: plan(reads.holders, rows, listId).outcomes, reads };
    },

    upsertContacts: (accountId, rows, listId, options) => upsertContacts(deps, accountId, rows, listId, options),

    async finished(accountId, mark) {
      await new ContactCountRepository(deps.store).forgetCountMark(accountId, mark);
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
