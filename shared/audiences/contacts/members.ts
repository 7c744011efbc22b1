// Static-list membership writes without transactions. A membership touches three items: the
// membership (in the list's partition), the contact's list_ids, and the list's member_count. The
// store has no transactions, so each write is a sequence of conditional single-item writes whose
// first step is on the list item: it moves the count and records a token naming the write
// (`pending`). The token is dropped by the write's last step. A token older than PENDING_STALE_MS
// belongs to a request that died; the next read of the list settles it from the membership item,
// which records which write made it (`op`) and which removal is taking it away (`removing`):
//
//   add    +<contact>|<op>|<ms>:  count +1 & token → membership (op) → contact list_ids +list → token dropped
//          settled: the membership `op` wrote exists → finish (list_ids +list); else → count −1.
//   remove −<contact>|<op>|<ms>:  membership marked removing (by the token) → count −1 & token
//                                  → contact list_ids −list → membership deleted (while still marked) → token dropped
//          settled: the membership still marked by this token exists → finish the removal; else → done
//          (only the mark's holder deletes a marked membership). A mark whose removal died before it
//          counted (no token on the list) is taken over by the next removal once it is stale.
//
// So member_count is exact for every list with no token older than the bound, and a list read
// after the bound sees it exact again. A write that fails its condition halfway undoes the count
// (undoCount drops the token in the same write, so it happens at most once).
import { randomHex } from '../../crypto/crypto';
import { inParallel } from '../../concurrency';
import type { Clock } from '../../ports/clock';
import type { Store } from '../../db/store';
import { ApiError, NotFoundError } from '../../errors';
import { ContactListRepository, type ContactListItem } from './lists-repository';
import { ListMemberRepository, type ListMemberItem } from './members-repository';
import { ContactRepository } from './repository';

/** How old a membership write's token must be before a read decides its request died. */
export const PENDING_STALE_MS = 60_000;

export interface MemberDeps {
  store: Store;
  clock: Clock;
}

const newOp = (): string => randomHex(8);

interface Token {
  sign: '+' | '-';
  contactId: string;
  op: string;
  ms: number;
}

const tokenOf = (t: Token): string => `${t.sign}${t.contactId}|${t.op}|${t.ms}`;

export function parseToken(token: string): Token | undefined {
  const match = /^([+-])(ctc_[0-9a-z]{26})\|([0-9a-f]{16})\|(\d{1,15})$/.exec(token);
  if (!match) return undefined;
  return { sign: match[1] as '+' | '-', contactId: match[2] as string, op: match[3] as string, ms: Number(match[4]) };
}

/** The three items a membership write touches, each through its repository. */
function repositories(store: Store): { contacts: ContactRepository; lists: ContactListRepository; members: ListMemberRepository } {
  return { contacts: new ContactRepository(store), lists: new ContactListRepository(store), members: new ListMemberRepository(store) };
}

export const duplicateMember = (contactId: string, listId: string): ApiError => new ApiError('duplicate_member', `contact ${contactId} is a member of list ${listId} already`);

/**
 * Adds a live contact to a live static list. Throws 409 duplicate_member when it is a member,
 * 404 when the list or the contact went away meanwhile (the count is moved back).
 */
export async function addMember(deps: MemberDeps, accountId: string, listId: string, contactId: string): Promise<void> {
  const { contacts, lists, members } = repositories(deps.store);
  const now = deps.clock.now();
  const op = newOp();
  const token = tokenOf({ sign: '+', contactId, op, ms: now.getTime() });
  if (!(await lists.beginCount(accountId, listId, 1, token))) throw new NotFoundError(`list ${listId}`);
  if (!(await members.putMember({ account_id: accountId, list_id: listId, contact_id: contactId, op, created_at: now.toISOString() }))) {
    await lists.undoCount(accountId, listId, 1, token);
    throw duplicateMember(contactId, listId);
  }
  if (!(await contacts.addListToContact(accountId, contactId, listId))) {
    await members.deleteMember(accountId, listId, contactId, op, null);
    await lists.undoCount(accountId, listId, 1, token);
    throw new NotFoundError(`contact ${contactId}`);
  }
  if (!(await lists.endAdd(accountId, listId, token))) {
    // The list's delete began meanwhile, and its sweep may have passed this membership already.
    await contacts.dropListFromContact(accountId, contactId, listId);
    await members.dropMember(accountId, listId, contactId);
    throw new NotFoundError(`list ${listId}`);
  }
}

const addPending = (list: ContactListItem, contactId: string, op: string): string | undefined =>
  [...(list.pending ?? [])].find((t) => t.startsWith(`+${contactId}|${op}|`));

/**
 * Removes a contact from a static list. False when it is not a member (or another removal is
 * taking it away right now); 409 conflict while the add that made the membership is still under
 * way. When the list is being deleted, the list's delete owns its count, so only the membership
 * and the contact's list id go.
 */
export async function removeMember(deps: MemberDeps, accountId: string, listId: string, contactId: string): Promise<boolean> {
  const { contacts, lists, members } = repositories(deps.store);
  const member = await members.member(accountId, listId, contactId);
  if (!member) return false;
  // Read after the membership: an add records its token on the list before it writes the membership.
  let list = await lists.getList(accountId, listId);
  const nowMs = deps.clock.now().getTime();
  if (list && !list.deleted_at && addPending(list, contactId, member.op)) {
    await settlePending(deps, list);
    list = await lists.getList(accountId, listId);
    if (list && addPending(list, contactId, member.op)) throw new ApiError('conflict', `contact ${contactId} is being added to list ${listId} right now; try again`);
    if ((await members.member(accountId, listId, contactId))?.op !== member.op) return false;
  }
  const token = tokenOf({ sign: '-', contactId, op: member.op, ms: nowMs });
  let takeOver: string | undefined;
  if (member.removing) {
    // A removal that marked the membership and died before it counted left no token: take it over once stale.
    const counted = [...(list?.pending ?? [])].some((t) => t.startsWith(`-${contactId}|${member.op}|`));
    const stale = (member.removing_at ?? 0) < nowMs - PENDING_STALE_MS;
    if (counted || !stale) return false;
    takeOver = member.removing;
  }
  if (!(await members.markRemoving(accountId, listId, contactId, member.op, token, nowMs, takeOver))) return false;
  const counted = await lists.beginCount(accountId, listId, -1, token);
  await contacts.dropListFromContact(accountId, contactId, listId);
  await members.deleteMember(accountId, listId, contactId, member.op, token);
  if (counted) await lists.endCount(accountId, listId, token);
  return true;
}

/** Settles the list's membership writes whose request died (tokens older than PENDING_STALE_MS). True when it changed anything. */
export async function settlePending(deps: MemberDeps, list: ContactListItem): Promise<boolean> {
  const nowMs = deps.clock.now().getTime();
  const stale = [...(list.pending ?? [])].filter((t) => (parseToken(t)?.ms ?? 0) < nowMs - PENDING_STALE_MS);
  if (stale.length === 0) return false;
  const { contacts, lists, members } = repositories(deps.store);
  await inParallel(stale, 4, async (token) => {
    const t = parseToken(token);
    if (!t) return lists.endCount(list.account_id, list.id, token);
    const member: ListMemberItem | undefined = await members.member(list.account_id, list.id, t.contactId);
    if (t.sign === '+') {
      if (member?.op !== t.op) return void (await lists.undoCount(list.account_id, list.id, 1, token));
      if (await contacts.addListToContact(list.account_id, t.contactId, list.id)) return lists.endCount(list.account_id, list.id, token);
      // The contact is gone or being deleted: this membership goes with it, unless a removal holds it (and counts it out).
      if (await members.deleteMember(list.account_id, list.id, t.contactId, t.op, null)) return void (await lists.undoCount(list.account_id, list.id, 1, token));
      return lists.endCount(list.account_id, list.id, token);
    }
    // A removal marks the membership before it counts, and only the mark's holder deletes it.
    if (member && member.op === t.op && member.removing === token) {
      await contacts.dropListFromContact(list.account_id, t.contactId, list.id);
      await members.deleteMember(list.account_id, list.id, t.contactId, t.op, token);
    }
    return lists.endCount(list.account_id, list.id, token);
  });
  return true;
}
