// Contact lists: the use cases behind /v1/lists. A static list holds the contacts added to it (one
// membership item each, its count kept on the list item: shared/audiences/contacts/members.ts); a dynamic
// list holds the contacts its filter matches, decided when it is read, never stored, and its
// member_count is an estimate recounted when read once older than COUNT_MAX_AGE_MS.
import type { Store } from '../../db/store';
import { ApiError, InvalidRequestError } from '../../errors';
import type { Ids } from '../../ports/ids';
import { mapPage, pageRequest, type Page, type PageInput, type WalkBudget } from '../../pagination';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import { dynamicRefused, liveContact, listNotFound, writeContact, type ContactDeps } from './contacts';
import { matchesFilter } from './filter';
import type { ListRemovalJob } from './messages';
import { addMember, removeMember, settlePending } from './members';
import { ContactClaimRepository } from './claims-repository';
import { ContactCountRepository } from './count-repository';
import { ContactListRepository, type ContactListItem } from './lists-repository';
import { ListMemberRepository } from './members-repository';
import { ContactRepository, type ContactItem } from './repository';
import type { AddMemberBody, ContactView, CreateListBody, ListView, UpdateListBody } from './schemas';
import { CONTACT_WALK, MEMBER_WALK, isLive, toContactView, toListView } from './views';

export interface ListDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
}

/** A dynamic list's estimate is recounted when read once it is older than this. */
export const COUNT_MAX_AGE_MS = 5 * 60_000;
/** A recount reads at most this many contacts (5 queries of 1000); past that it scales the share it matched by the account's contact count. */
export const COUNT_BUDGET: WalkBudget = { pageSize: 1000, pages: 5 };
/** A page of GET /v1/lists recounts at most this many stale dynamic lists; the others keep their last estimate and counted_at. */
export const RECOUNTS_PER_PAGE = 2;
/** A list delete removes its memberships this many at a time. */
const DELETE_BATCH = 100;
/** A DELETE removes at most this many memberships itself; a job on the imports queue removes the rest. */
export const DELETE_IN_REQUEST = 1_000;
/** One list-removal job removes at most this many memberships, then queues the next job. */
export const DELETE_PER_JOB = 20_000;

async function liveList(store: Store, accountId: string, listId: string): Promise<ContactListItem> {
  const item = await new ContactListRepository(store).getList(accountId, listId);
  if (!isLive(item)) throw listNotFound(listId);
  return item;
}

/**
 * A dynamic list's member estimate: exact when the account's contacts fit in COUNT_BUDGET,
 * otherwise the share of the contacts read that match, times the account's contact count.
 */
export async function countMatches(deps: { store: Store }, list: ContactListItem, budget: WalkBudget = COUNT_BUDGET): Promise<number> {
  const { read, matched, complete } = await new ContactRepository(deps.store).countContacts(list.account_id, (c) => matchesFilter(c, list.filter!), budget);
  if (complete || read === 0) return matched;
  const total = Math.max(read, await new ContactCountRepository(deps.store).contactCount(list.account_id));
  return Math.round((matched / read) * total);
}

/** The list as shown: a static list's dead writes settled, a dynamic list's stale estimate recounted (when `recount`). */
async function fresh(deps: ListDeps, list: ContactListItem, recount = true): Promise<ContactListItem> {
  const repo = new ContactListRepository(deps.store);
  if (list.type === 'static') {
    if (!(await settlePending(deps, list))) return list;
    return (await repo.getList(list.account_id, list.id)) ?? list;
  }
  const countedMs = list.counted_at ? Date.parse(list.counted_at) : Number.NaN;
  const now = deps.clock.now();
  if (!recount || countedMs >= now.getTime() - COUNT_MAX_AGE_MS) return list;
  const count = await countMatches(deps, list);
  return (await repo.recordCount(list.account_id, list.id, count, now.toISOString())) ?? list;
}

export async function createList(deps: ListDeps, accountId: string, body: CreateListBody): Promise<ListView> {
  const repo = new ContactListRepository(deps.store);
  const id = deps.ids.next('lst');
  const now = deps.clock.now().toISOString();
  const item = {
    id,
    account_id: accountId,
    name: body.name,
    type: body.type,
    filter: body.type === 'dynamic' ? (body.filter ?? null) : null,
    member_count: 0,
    counted_at: null,
    created_at: now,
    updated_at: now,
  };
  const stored = await repo.createList(item);
  if (!stored) throw new Error(`list ${id} exists already`); // fresh ULIDs do not collide
  return toListView(await fresh(deps, stored));
}

export async function listLists(deps: ListDeps & { cursorSecret: string }, accountId: string, page: PageInput): Promise<Page<ListView>> {
  const out = await new ContactListRepository(deps.store).lists(accountId, pageRequest(deps, { accountId, collection: 'lists' }, page));
  let recounts = 0;
  const items: ContactListItem[] = [];
  for (const list of out.items) {
    const stale = list.type === 'dynamic' && !(Date.parse(list.counted_at ?? '') >= deps.clock.now().getTime() - COUNT_MAX_AGE_MS);
    const recount = stale && recounts < RECOUNTS_PER_PAGE;
    if (recount) recounts += 1;
    items.push(await fresh(deps, list, recount));
  }
  return mapPage({ items, nextCursor: out.nextCursor }, toListView);
}

export async function readList(deps: ListDeps, accountId: string, listId: string): Promise<ListView> {
  return toListView(await fresh(deps, await liveList(deps.store, accountId, listId)));
}

/** Partial update: the name, and a dynamic list's filter (its estimate is recounted at once). 422 for a filter on a static list. */
export async function updateList(deps: ListDeps, accountId: string, listId: string, body: UpdateListBody): Promise<ListView> {
  const repo = new ContactListRepository(deps.store);
  const current = await liveList(deps.store, accountId, listId);
  if (body.filter !== undefined && current.type === 'static') throw new InvalidRequestError(`list ${listId} is static: it has no filter`, { status: 422 });
  const updated = await repo.updateList(accountId, listId, {
    name: body.name ?? current.name,
    filter: body.filter ?? current.filter,
    updated_at: deps.clock.now().toISOString(),
    ...(body.filter !== undefined ? { counted_at: null } : {}),
  });
  if (!updated) throw listNotFound(listId);
  return toListView(await fresh(deps, updated));
}

/**
 * Deletes a list; its contacts stay. The list is marked deleted first, so from then on every read
 * treats it as gone and no membership can be added; then its memberships are removed a batch at a
 * time (each: the id out of the contact's list_ids, then the membership), then the list item.
 * The request removes at most DELETE_IN_REQUEST memberships; a longer list is handed to a job on
 * the imports queue (continueListDelete), which removes the rest and then the list, so the work of
 * one request stays bounded whatever the list's size. Every step is idempotent: a DELETE repeated
 * after a crash (the list answers 404 to every other route meanwhile) carries on where it stopped.
 */
export async function deleteList(deps: ListDeps & { queue: Queue }, accountId: string, listId: string, inRequest = DELETE_IN_REQUEST): Promise<void> {
  const repo = new ContactListRepository(deps.store);
  const marked = await repo.markListDeleted(accountId, listId, deps.clock.now().toISOString());
  if (!marked) throw listNotFound(listId);
  if (marked.type === 'static' && !(await removeMembers(deps.store, accountId, listId, inRequest))) {
    const job: ListRemovalJob = { account_id: accountId, list_id: listId };
    await deps.queue.send('imports', job);
    return;
  }
  await repo.removeList(accountId, listId);
}

/**
 * A job of a list delete that had more memberships than one request removes: up to
 * DELETE_PER_JOB more, then the list item, or the next job. `gone` when the list was already
 * removed (a repeated job); a list that is not marked deleted is never touched.
 */
export async function continueListDelete(deps: { store: Store; queue: Queue }, job: ListRemovalJob, perJob = DELETE_PER_JOB): Promise<'removed' | 'continued' | 'gone'> {
  const repo = new ContactListRepository(deps.store);
  const list = await repo.getList(job.account_id, job.list_id);
  if (!list || list.deleted_at === undefined) return 'gone';
  if (!(await removeMembers(deps.store, job.account_id, job.list_id, perJob))) {
    await deps.queue.send('imports', job);
    return 'continued';
  }
  await repo.removeList(job.account_id, job.list_id);
  return 'removed';
}

/** Removes up to `budget` memberships of a list being deleted; true when none is left. */
async function removeMembers(store: Store, accountId: string, listId: string, budget: number): Promise<boolean> {
  const contacts = new ContactRepository(store);
  const members = new ListMemberRepository(store);
  for (let removed = 0; removed < budget; ) {
    const batch = await members.firstMembers(accountId, listId, Math.min(DELETE_BATCH, budget - removed));
    if (batch.length === 0) return true;
    await Promise.all(
      batch.map(async (m) => {
        await contacts.dropListFromContact(accountId, m.contact_id, listId);
        await members.dropMember(accountId, listId, m.contact_id);
      }),
    );
    removed += batch.length;
  }
  return (await members.firstMembers(accountId, listId, 1)).length === 0;
}

/**
 * Adds a contact to a static list, by id or by address (the contact is created when the account
 * has none with it). 409 duplicate_member when it is a member already; 422 on a dynamic list.
 */
export async function addToList(deps: ContactDeps, accountId: string, listId: string, body: AddMemberBody): Promise<ContactView> {
  const list = await liveList(deps.store, accountId, listId);
  if (list.type === 'dynamic') throw dynamicRefused(listId, 'contacts cannot be added to it');
  const contactId = body.contact_id ?? (await contactByEmail(deps, accountId, body.email!));
  await liveContact(deps.store, accountId, contactId);
  await addMember(deps, accountId, listId, contactId);
  return toContactView(await liveContact(deps.store, accountId, contactId));
}

/** The live contact with this address, created when there is none. */
async function contactByEmail(deps: ContactDeps, accountId: string, email: string): Promise<string> {
  const claims = new ContactClaimRepository(deps.store);
  const held = await claims.emailItem(accountId, email);
  const holder = held ? await new ContactRepository(deps.store).getContact(accountId, held.contact_id) : undefined;
  if (isLive(holder) && holder.email === email) return holder.id;
  try {
    return (await writeContact(deps, accountId, { email })).id;
  } catch (error) {
    // Created by a concurrent request meanwhile: that contact is the one.
    if (!(error instanceof ApiError && error.code === 'duplicate_contact')) throw error;
    const again = await claims.emailItem(accountId, email);
    if (!again) throw error;
    return again.contact_id;
  }
}

/**
 * A page of a list's members, newest contact first: a static list's memberships; for a dynamic
 * list, a walk of the account's contacts through its filter, reading at most CONTACT_WALK per
 * page (a page may be short, even empty, with a next_cursor: keep walking until it is null).
 */
export async function listMembers(deps: { store: Store; cursorSecret: string }, accountId: string, listId: string, page: PageInput): Promise<Page<ContactView>> {
  const repo = new ContactRepository(deps.store);
  const list = await liveList(deps.store, accountId, listId);
  const request = pageRequest(deps, { accountId, collection: 'list-members', filters: { list_id: listId } }, page);
  if (list.type === 'static') {
    return mapPage(await repo.memberContacts(accountId, listId, request, (c) => isLive(c), MEMBER_WALK), toContactView);
  }
  const matches = (c: ContactItem): boolean => isLive(c) && matchesFilter(c, list.filter!);
  const out = await repo.walkContacts(accountId, request, async (items) => items.filter(matches), CONTACT_WALK);
  return mapPage(out, toContactView);
}

/** Takes a contact out of a static list: 404 when it is not a member, 422 on a dynamic list. */
export async function removeFromList(deps: ListDeps, accountId: string, listId: string, contactId: string): Promise<void> {
  const list = await liveList(deps.store, accountId, listId);
  if (list.type === 'dynamic') throw dynamicRefused(listId, 'contacts cannot be removed from it');
  if (!(await removeMember(deps, accountId, listId, contactId))) throw new ApiError('not_found', `contact ${contactId} is not a member of list ${listId}`);
}
