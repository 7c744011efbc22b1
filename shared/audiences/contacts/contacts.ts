// Contacts: the use cases behind /v1/contacts. Addresses are normalized by the schemas and unique
// per account: each live contact holds a claim item keyed by its address, taken before the
// contact is written (the store has no transactions), so two contacts can never hold one address,
// even for a moment; a claim whose contact never got written is taken over once it is stale.
import { inParallel } from '../../concurrency';
import type { Store } from '../../db/store';
import { ApiError, InvalidRequestError, NotFoundError } from '../../errors';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { Clock } from '../../ports/clock';
import { matchesFilter, matchesPrefix } from './filter';
import { addMember, removeMember } from './members';
import { ContactClaimRepository } from './claims-repository';
import { ContactCountRepository } from './count-repository';
import { ContactListRepository, type ContactListItem } from './lists-repository';
import { ContactRepository, type ContactItem, type NewContact } from './repository';
import { email as emailSchema, type ContactView, type CreateContactBody, type UpdateContactBody } from './schemas';
import { CONTACT_WALK, MEMBER_WALK, isLive, toContactView } from './views';

export interface ContactDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

/** A contact with this id is stored already (only a caller-derived id can meet one). */
export class ContactExistsError extends Error {
  constructor(readonly contactId: string) {
    super(`contact ${contactId} exists already`);
    this.name = 'ContactExistsError';
  }
}

/** How old an address claim must be before a request may decide its create or change died. */
export const STALE_EMAIL_CLAIM_MS = 60_000;

export const contactNotFound = (contactId: string): ApiError => new NotFoundError(`contact ${contactId}`);
const duplicate = (email: string): ApiError => new ApiError('duplicate_contact', `a contact with the address ${email} exists already`);
export const listNotFound = (listId: string): ApiError => new NotFoundError(`list ${listId}`);
export const dynamicRefused = (listId: string, what: string): ApiError =>
  new InvalidRequestError(`list ${listId} is dynamic: ${what} (its members are the contacts its filter matches)`, { status: 422 });

/** A live contact of the account; 404 otherwise (another account's, deleted, never issued). */
export async function liveContact(store: Store, accountId: string, contactId: string): Promise<ContactItem> {
  const item = await new ContactRepository(store).getContact(accountId, contactId);
  if (!isLive(item)) throw contactNotFound(contactId);
  return item;
}

/**
 * Takes an address for `contactId`: at once when free (or already this contact's), else by
 * taking over a claim a dead request left (its contact does not exist, holds another address, or
 * is being deleted), once older than STALE_EMAIL_CLAIM_MS unless its contact is being deleted.
 */
async function takeEmail(deps: ContactDeps, accountId: string, email: string, contactId: string): Promise<boolean> {
  const claims = new ContactClaimRepository(deps.store);
  const nowMs = deps.clock.now().getTime();
  if (await claims.claimEmail(accountId, email, contactId, nowMs)) return true;
  const held = await claims.emailItem(accountId, email);
  if (!held) return claims.claimEmail(accountId, email, contactId, nowMs);
  const holder = await new ContactRepository(deps.store).getContact(accountId, held.contact_id);
  if (isLive(holder) && holder.email === email) return false;
  const dying = holder?.deleted_at !== undefined;
  if (!dying && held.claimed_at >= nowMs - STALE_EMAIL_CLAIM_MS) return false;
  return claims.takeOverEmail(accountId, email, held.contact_id, contactId, nowMs);
}

/** The live static lists with these ids, in order: 404 naming the first that is not one of the account's, 422 for a dynamic one. */
export async function staticLists(store: Store, accountId: string, listIds: readonly string[]): Promise<ContactListItem[]> {
  const unique = [...new Set(listIds)];
  const found = new Map((await new ContactListRepository(store).listsByIds(accountId, unique)).map((l) => [l.id, l]));
  return unique.map((id) => {
    const list = found.get(id);
    if (!isLive(list)) throw listNotFound(id);
    if (list.type === 'dynamic') throw dynamicRefused(id, 'contacts cannot be added to it');
    return list;
  });
}

/** A new contact as both writers store it: what the body leaves out takes its default. */
function newContactItem(accountId: string, id: string, body: Omit<CreateContactBody, 'list_ids'>, now: string): NewContact {
  return {
    id,
    account_id: accountId,
    email: body.email,
    first_name: body.first_name ?? null,
    last_name: body.last_name ?? null,
    data: body.data ?? {},
    unsubscribed: body.unsubscribed ?? false,
    created_at: now,
    updated_at: now,
  };
}

/**
 * Writes a new contact (its address first); 409 duplicate_contact when a live contact has the
 * address. `id`: the contact's id when the caller derives it (a contact import, so that a run
 * re-doing a chunk after a crash takes back the address claim its dead run left; see
 * shared/audiences/imports/contacts-target.ts); a fresh one otherwise.
 */
export async function writeContact(deps: ContactDeps, accountId: string, body: Omit<CreateContactBody, 'list_ids'>, id = deps.ids.next('ctc')): Promise<NewContact> {
  if (!(await takeEmail(deps, accountId, body.email, id))) throw duplicate(body.email);
  const item = newContactItem(accountId, id, body, deps.clock.now().toISOString());
  if (!(await new ContactRepository(deps.store).createContact(item))) throw new ContactExistsError(id); // fresh ULIDs do not collide; a derived id may
  await new ContactCountRepository(deps.store).moveContactCount(accountId, 1);
  return item;
}

/** Address claims taken at once by writeNewContacts. */
export const CLAIMS_IN_FLIGHT = 32;
/** A batch write's items (DynamoDB's BatchWriteItem takes 25). */
const CONTACTS_PER_WRITE = 25;

export interface NewContactBody {
  body: Omit<CreateContactBody, 'list_ids'>;
  /** A caller-derived id (see writeContact); a fresh one when absent or when a contact with it exists already. */
  id?: string;
}

/**
 * writeContact for many new contacts of one account, with the same guarantees: every address is
 * claimed first (conditional writes, CLAIMS_IN_FLIGHT at once), and the contacts whose claims were
 * taken are written in batch writes as they are (each only after its own claim). A batch write has no condition, so an id is used only when no
 * contact has it (read first in one batch: a derived id that a dead run wrote and that was deleted
 * since gets a fresh one; not read when the caller knows its ids are new); nothing but the caller
 * writes a derived id, and a fresh ULID is new.
 * `taken`: the addresses a live contact holds (or a claim not stale yet). The account's count is
 * the caller's to move. `claimed`: addresses the caller has claimed already for the ids it gives
 * (with idsAreNew): written without claiming them again.
 */
export async function writeNewContacts(
  deps: ContactDeps,
  accountId: string,
  wanted: readonly NewContactBody[],
  options: { idsAreNew?: boolean; claimed?: ReadonlySet<string> } = {},
): Promise<{ written: NewContact[]; taken: string[] }> {
  const repo = new ContactRepository(deps.store);
  const derived = options.idsAreNew ? [] : wanted.flatMap((w) => (w.id === undefined ? [] : [w.id]));
  const used = new Set((await repo.contactsByIds(accountId, derived)).map((c) => c.id));
  const now = deps.clock.now().toISOString();
  const items = wanted.map(({ body, id }) => newContactItem(accountId, id !== undefined && !used.has(id) ? id : deps.ids.next('ctc'), body, now));
  // Each batch write starts once its contacts' claims are all taken, while later claims go on.
  const written: NewContact[] = [];
  const taken: string[] = [];
  const writes: Array<Promise<void>> = [];
  let ready: NewContact[] = [];
  const flush = (): void => {
    if (ready.length === 0) return;
    const write = repo.putNewContacts(ready);
    write.catch(() => undefined); // awaited below; not an unhandled rejection meanwhile
    writes.push(write);
    ready = [];
  };
  await inParallel(items, CLAIMS_IN_FLIGHT, async (item) => {
    // An address the caller claimed for this contact already (its id given) is not claimed twice.
    if (!options.claimed?.has(item.email) && !(await takeEmail(deps, accountId, item.email, item.id))) return void taken.push(item.email);
    written.push(item);
    ready.push(item);
    if (ready.length >= CONTACTS_PER_WRITE) flush();
  });
  flush();
  await Promise.all(writes);
  return { written, taken };
}

/**
 * Creates a contact, and adds it to the static lists in `list_ids`, all checked first (404 for a
 * list that is not the account's, 422 for a dynamic one). The memberships follow the contact one
 * by one, each complete on its own (shared/audiences/contacts/members.ts).
 */
export async function createContact(deps: ContactDeps, accountId: string, body: CreateContactBody): Promise<ContactView> {
  const lists = await staticLists(deps.store, accountId, body.list_ids ?? []);
  const { list_ids: _lists, ...fields } = body;
  const item = await writeContact(deps, accountId, fields);
  for (const list of lists) await addMember(deps, accountId, list.id, item.id);
  return readContact(deps.store, accountId, item.id);
}

export async function readContact(store: Store, accountId: string, contactId: string): Promise<ContactView> {
  return toContactView(await liveContact(store, accountId, contactId));
}

export interface ContactFilters {
  email?: string;
  list_id?: string;
  q?: string;
}

/**
 * A page of the account's contacts, newest first. `email` is one read through the address claim;
 * `list_id` walks a static list's memberships or, for a dynamic list, the account's contacts
 * through its filter; `q` is a prefix of the email or a name, matched on a walk of the contacts
 * (or the list) that reads at most CONTACT_WALK (MEMBER_WALK) per page.
 */
export async function listContacts(deps: { store: Store; cursorSecret: string }, accountId: string, filters: ContactFilters, page: PageInput): Promise<Page<ContactView>> {
  const repo = new ContactRepository(deps.store);
  const request = pageRequest(deps, { accountId, collection: 'contacts', filters: { ...filters } }, page);
  const list = filters.list_id === undefined ? undefined : await new ContactListRepository(deps.store).getList(accountId, filters.list_id);
  if (filters.list_id !== undefined && !isLive(list)) throw listNotFound(filters.list_id);
  const wanted = (c: ContactItem): boolean =>
    isLive(c) && (filters.q === undefined || matchesPrefix(c, filters.q)) && (list?.type !== 'dynamic' || matchesFilter(c, list.filter!));

  if (filters.email !== undefined) {
    const parsed = emailSchema.safeParse(filters.email);
    if (!parsed.success) return { items: [], nextCursor: null };
    const held = await new ContactClaimRepository(deps.store).emailItem(accountId, parsed.data);
    const contact = held ? await repo.getContact(accountId, held.contact_id) : undefined;
    const inList = list?.type !== 'static' || (contact?.list_ids?.has(list.id) ?? false);
    const found = contact && contact.email === parsed.data && wanted(contact) && inList ? [toContactView(contact)] : [];
    return { items: found, nextCursor: null };
  }
  if (list?.type === 'static') {
    return mapPage(await repo.memberContacts(accountId, list.id, request, wanted, MEMBER_WALK), toContactView);
  }
  const out = await repo.walkContacts(accountId, request, async (items) => items.filter(wanted), CONTACT_WALK);
  return { items: out.items.map(toContactView), nextCursor: out.nextCursor };
}

/**
 * Partial update. An address change takes the new address first (409 duplicate_contact when a
 * live contact has it), writes the contact while its address is still the one read, then gives
 * the old address up.
 */
export async function updateContact(deps: ContactDeps, accountId: string, contactId: string, body: UpdateContactBody): Promise<ContactView> {
  const repo = new ContactRepository(deps.store);
  const claims = new ContactClaimRepository(deps.store);
  const current = await liveContact(deps.store, accountId, contactId);
  const email = body.email ?? current.email;
  const moved = email !== current.email;
  if (moved && !(await takeEmail(deps, accountId, email, contactId))) throw duplicate(email);
  const updated = await repo.updateContact(accountId, contactId, current.email, {
    email,
    first_name: body.first_name === undefined ? current.first_name : body.first_name,
    last_name: body.last_name === undefined ? current.last_name : body.last_name,
    data: body.data ?? current.data,
    unsubscribed: body.unsubscribed ?? current.unsubscribed,
    updated_at: deps.clock.now().toISOString(),
  });
  if (!updated) {
    if (moved) await claims.releaseEmail(accountId, email, contactId);
    if (!isLive(await repo.getContact(accountId, contactId))) throw contactNotFound(contactId);
    throw new ApiError('conflict', `contact ${contactId} changed its address meanwhile; read it and try again`);
  }
  if (moved) await claims.releaseEmail(accountId, current.email, contactId);
  return toContactView(updated);
}

/**
 * Deletes a contact: marked deleted first (every read treats it as gone from then on), then taken
 * out of each list it is a member of (each count moved), its address given up, and the item
 * removed. Each step is idempotent, so a DELETE repeated after a crash finishes the job (and
 * answers 204 again while the contact item is there).
 */
export async function deleteContact(deps: ContactDeps, accountId: string, contactId: string): Promise<void> {
  const repo = new ContactRepository(deps.store);
  const current = await repo.getContact(accountId, contactId);
  if (!current) throw contactNotFound(contactId);
  if (await repo.markContactDeleted(accountId, contactId, deps.clock.now().toISOString())) await new ContactCountRepository(deps.store).moveContactCount(accountId, -1);
  // Read again after the mark: from then on no add can put a list on the contact, so these are all of them.
  const marked = (await repo.getContact(accountId, contactId)) ?? current;
  for (const listId of marked.list_ids ?? []) await removeMember(deps, accountId, listId, contactId);
  await new ContactClaimRepository(deps.store).releaseEmail(accountId, current.email, contactId);
  await repo.removeContact(accountId, contactId);
}
