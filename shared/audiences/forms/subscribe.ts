// A sign-up written through the contacts area's own steps: the contact is found by its address
// claim (created with writeContact when the account has none, claim first, as POST /v1/contacts
// does), the names and data the sign-up gives are written over it, and its membership of the
// form's list is added with addMember. Every step either happens once or is refused as done
// (duplicate_contact, duplicate_member), so a sign-up repeated, raced or re-run after a crash
// never makes a second contact or a second membership.
import { writeContact, type ContactDeps } from '../contacts/contacts';
import type { DataValue } from '../contacts/filter';
import { addMember } from '../contacts/members';
import { ContactClaimRepository } from '../contacts/claims-repository';
import { ContactRepository, type ContactItem } from '../contacts/repository';
import { MAX_DATA_BYTES, MAX_DATA_KEYS } from '../contacts/schemas';
import { isLive } from '../contacts/views';
import { ApiError } from '../../errors';
import type { Store } from '../../db/store';
import type { Logger } from '../../ports/logger';

export interface Signup {
  email: string;
  /** Only what the sign-up gave: an absent name or data key leaves the stored one. */
  first_name?: string;
  last_name?: string;
  data: Record<string, string>;
}

/** Reads of an address whose claim another request holds, before answering 503. */
const CLAIM_REREADS = 3;

const busy = (email: string): ApiError =>
  new ApiError('service_unavailable', `the address ${email} is being written by another request; try again shortly`, { headers: { 'retry-after': '1' } });

async function holderOf(store: Store, accountId: string, email: string): Promise<ContactItem | undefined> {
  const claim = await new ContactClaimRepository(store).emailItem(accountId, email);
  const holder = claim ? await new ContactRepository(store).getContact(accountId, claim.contact_id) : undefined;
  return isLive(holder) && holder.email === email ? holder : undefined;
}

/** The stored data with the sign-up's keys over it, unless that passes the contacts' bounds (then the stored data stays). */
function mergedData(stored: Record<string, DataValue>, given: Record<string, string>): Record<string, DataValue> {
  const merged = { ...stored, ...given };
  const fits = Object.keys(merged).length <= MAX_DATA_KEYS && Buffer.byteLength(JSON.stringify(merged), 'utf8') <= MAX_DATA_BYTES;
  return fits ? merged : stored; // the very object given, so a caller can tell
}

const sameData = (a: Record<string, DataValue>, b: Record<string, DataValue>): boolean =>
  JSON.stringify(Object.entries(a).sort()) === JSON.stringify(Object.entries(b).sort());

/**
 * Puts the address on the list. `resubscribe` (a confirmed double opt-in: the address owner asked)
 * also clears the contact's `unsubscribed`; a single opt-in sign-up, which anyone can make for any
 * address, leaves it as it is.
 */
export async function subscribe(
  deps: ContactDeps & { logger: Logger },
  accountId: string,
  listId: string,
  signup: Signup,
  options: { resubscribe: boolean },
): Promise<ContactItem['id']> {
  const repo = new ContactRepository(deps.store);
  let holder = await holderOf(deps.store, accountId, signup.email);
  let lists: ReadonlySet<string> | undefined = holder?.list_ids;
  if (!holder) {
    try {
      const written = await writeContact(deps, accountId, {
        email: signup.email,
        first_name: signup.first_name ?? null,
        last_name: signup.last_name ?? null,
        data: mergedData({}, signup.data),
      });
      return await join(deps, accountId, listId, written.id, undefined);
    } catch (error) {
      // Written meanwhile by another sign-up (or request) for the address: that contact is the one.
      if (!(error instanceof ApiError && error.code === 'duplicate_contact')) throw error;
      // The other writer may be between its claim and its contact: a few more reads give it time.
      for (let read = 0; read < CLAIM_REREADS && !holder; read++) holder = await holderOf(deps.store, accountId, signup.email);
      if (!holder) throw busy(signup.email);
      lists = holder.list_ids;
    }
  }
  const data = mergedData(holder.data ?? {}, signup.data);
  if (data === holder.data && Object.keys(signup.data).length > 0) {
    deps.logger.warn('sign-up data left out: with the stored data it would pass the contact data bounds', { accountId, contactId: holder.id });
  }
  const next = {
    email: holder.email,
    first_name: signup.first_name ?? holder.first_name,
    last_name: signup.last_name ?? holder.last_name,
    data,
    unsubscribed: options.resubscribe ? false : holder.unsubscribed,
  };
  const changed =
    next.first_name !== holder.first_name || next.last_name !== holder.last_name || next.unsubscribed !== holder.unsubscribed || !sameData(next.data, holder.data ?? {});
  if (changed && !(await repo.updateContact(accountId, holder.id, holder.email, { ...next, updated_at: deps.clock.now().toISOString() }))) {
    throw busy(signup.email);
  }
  return join(deps, accountId, listId, holder.id, lists);
}

async function join(deps: ContactDeps, accountId: string, listId: string, contactId: string, lists: ReadonlySet<string> | undefined): Promise<string> {
  if (lists?.has(listId)) return contactId;
  try {
    await addMember(deps, accountId, listId, contactId);
  } catch (error) {
    if (!(error instanceof ApiError && error.code === 'duplicate_member')) throw error;
  }
  return contactId;
}
