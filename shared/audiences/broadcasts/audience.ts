// A list audience, evaluated at fan-out, never in the API request: one walk job reads one page of
// the list (a static list's memberships with their contacts, or the account's contacts through a
// dynamic list's filter), writes the recipients it found as one chunk numbered after the page
// (a conditional create), hands the chunk to the fanout queue, records the page on the broadcast
// (conditional on it being the next page: counts added once) and hands the next page on.
//
// Across a crash: a page that wrote its chunk is re-run from the chunk (its recipients and where
// the next page starts are stored on it), so a re-run sends the same recipients and walks on from
// the same place; a page recorded already is only handed on again. Every send is idempotent per
// recipient (bulk_<broadcast>_<recipient>), so duplicate jobs send nobody twice.
import type { Store } from '../../db/store';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import { matchesFilter } from '../contacts/filter';
import { ContactListRepository, type ContactListItem } from '../contacts/lists-repository';
import { ListMemberRepository } from '../contacts/members-repository';
import { ContactRepository, type ContactItem } from '../contacts/repository';
import { accountStop, contentOf, finishIfComplete } from './fan-out';
import type { FanOutJob, WalkJob } from './messages';
import type { BroadcastItem } from './model';
import { BroadcastRepository } from './repository';
import { CHUNK_BYTES, RECIPIENTS_PER_CHUNK } from './limits';

export interface WalkDeps {
  store: Store;
  clock: Clock;
  queue: Queue;
}

/** A dynamic list's page reads at most this much of the account's contacts: 5 queries of 1000. */
export const DYNAMIC_WALK = { pageSize: 1000, pages: 5 } as const;

export type WalkResult =
  | { kind: 'missing' }
  | { kind: 'stopped'; status: string }
  | { kind: 'failed'; reason: string }
  /** A job for a page already recorded, or not yet due: nothing to do. */
  | { kind: 'stale' }
  /** The page was recorded by an earlier run, which may have died before handing on: handed on again. */
  | { kind: 'handed_on_again' }
  | { kind: 'walked'; recipients: number; unsubscribed: number; done: boolean };

interface PageRead {
  recipients: string[];
  data?: Array<Record<string, unknown> | null>;
  unsubscribed: number;
  next: Record<string, unknown> | null;
}

/** A recipient's template variables: its data, then its own fields (which win); absent names stay absent. */
export function contactVariables(contact: ContactItem): Record<string, unknown> {
  return {
    ...(contact.data ?? {}),
    email: contact.email,
    ...(contact.first_name ? { first_name: contact.first_name } : {}),
    ...(contact.last_name ? { last_name: contact.last_name } : {}),
  };
}

const keyOf = (item: { pk: string; sk: string }): Record<string, unknown> => ({ pk: item.pk, sk: item.sk });

/** Collects one page's recipients until RECIPIENTS_PER_CHUNK, or CHUNK_BYTES with data. */
class PageCollector {
  readonly recipients: string[] = [];
  readonly data: Array<Record<string, unknown> | null> = [];
  unsubscribed = 0;
  private bytes = 0;
  private readonly seen = new Set<string>();

  constructor(private readonly withData: boolean) {}

  get full(): boolean {
    return this.recipients.length >= RECIPIENTS_PER_CHUNK;
  }

  /** False when the contact does not fit this page (it starts the next one); true when taken or skipped. */
  take(contact: ContactItem): boolean {
    if (contact.unsubscribed) {
      this.unsubscribed += 1;
      return true;
    }
    if (this.seen.has(contact.email)) return true;
    const vars = this.withData ? contactVariables(contact) : null;
    const size = Buffer.byteLength(contact.email) + (vars ? Buffer.byteLength(JSON.stringify(vars)) : 0) + 8;
    if (this.withData && this.recipients.length > 0 && this.bytes + size > CHUNK_BYTES) return false;
    this.seen.add(contact.email);
    this.recipients.push(contact.email);
    this.data.push(vars);
    this.bytes += size;
    return true;
  }

  read(next: Record<string, unknown> | null): PageRead {
    return { recipients: this.recipients, ...(this.withData ? { data: this.data } : {}), unsubscribed: this.unsubscribed, next };
  }
}

const live = (c: ContactItem | undefined): c is ContactItem => c !== undefined && c.deleted_at === undefined;

/** One page of a static list: up to RECIPIENTS_PER_CHUNK memberships from `start`, with their contacts. */
async function readStaticPage(store: Store, list: ContactListItem, start: Record<string, unknown> | undefined, withData: boolean): Promise<PageRead> {
  const page = new PageCollector(withData);
  const out = await new ListMemberRepository(store).memberPage(list.account_id, list.id, start, RECIPIENTS_PER_CHUNK);
  const contacts = new Map((await new ContactRepository(store).contactsByIds(list.account_id, out.items.map((m) => m.contact_id))).map((c) => [c.id, c]));
  let previous: Record<string, unknown> | undefined = start;
  for (const member of out.items) {
    const contact = contacts.get(member.contact_id);
    // A membership whose contact is gone or being deleted: nobody to send to, not counted.
    if (live(contact) && !page.take(contact)) return page.read(previous ?? null);
    previous = keyOf(member);
  }
  return page.read(out.lastKey ?? null);
}

/** One page of a dynamic list: the account's contacts from `start` through the filter, reading at most DYNAMIC_WALK. */
async function readDynamicPage(store: Store, list: ContactListItem, start: Record<string, unknown> | undefined, withData: boolean): Promise<PageRead> {
  const repo = new ContactRepository(store);
  const page = new PageCollector(withData);
  let startKey = start;
  for (let read = 0; read < DYNAMIC_WALK.pages; read++) {
    const out = await repo.contactPage(list.account_id, startKey, DYNAMIC_WALK.pageSize);
    let previous = startKey;
    for (const contact of out.items) {
      if (live(contact) && matchesFilter(contact, list.filter!)) {
        if (!page.take(contact)) return page.read(previous ?? null);
        if (page.full) return page.read(keyOf(contact));
      }
      previous = keyOf(contact);
    }
    if (!out.lastKey) return page.read(null);
    startKey = out.lastKey;
  }
  return page.read(startKey ?? null);
}

/** Starts the walk of a list audience (or carries it on from the page it stopped at). */
export function firstWalkJob(broadcast: BroadcastItem): WalkJob {
  return { broadcast_id: broadcast.id, account_id: broadcast.account_id, page: broadcast.pages_walked ?? 0 };
}

export async function walkPage(deps: WalkDeps, job: WalkJob): Promise<WalkResult> {
  const broadcasts = new BroadcastRepository(deps.store);
  const broadcast = await broadcasts.get(job.account_id, job.broadcast_id);
  if (!broadcast || broadcast.audience_list_id === null) return { kind: 'missing' };
  if (broadcast.status !== 'sending') return { kind: 'stopped', status: broadcast.status };
  const walked = broadcast.pages_walked ?? 0;
  if (job.page === walked - 1) {
    // Recorded by a run that may have died before handing the next page on.
    if (broadcast.walk_done) await finishIfComplete(deps, broadcasts, broadcast);
    else await deps.queue.send('fanout', { ...job, page: walked } satisfies WalkJob);
    return { kind: 'handed_on_again' };
  }
  if (job.page !== walked) return { kind: 'stale' };

  const now = (): string => deps.clock.now().toISOString();
  const fail = async (reason: string): Promise<WalkResult> => {
    await broadcasts.fail(broadcast.account_id, broadcast.id, reason, now());
    return { kind: 'failed', reason };
  };
  const stop = await accountStop(deps, broadcast);
  if (stop) return fail(stop);
  const list = await new ContactListRepository(deps.store).getList(broadcast.account_id, broadcast.audience_list_id);
  if (!list || list.deleted_at !== undefined) return fail(`the audience list ${broadcast.audience_list_id} was deleted`);

  const chunk = (broadcast.chunk_base ?? 0) + job.page;
  let read: PageRead;
  const stored = await broadcasts.getChunk(broadcast.id, chunk);
  if (stored) {
    read = { recipients: stored.recipients, data: stored.data, unsubscribed: stored.unsubscribed ?? 0, next: stored.next_key ?? null };
  } else {
    const withData = (await contentOf(broadcasts, broadcast)).template !== undefined;
    const start = broadcast.walk_cursor ?? undefined;
    read = list.type === 'static' ? await readStaticPage(deps.store, list, start, withData) : await readDynamicPage(deps.store, list, start, withData);
    if (read.recipients.length > 0) {
      const created = await broadcasts.createChunk({
        broadcast_id: broadcast.id,
        account_id: broadcast.account_id,
        chunk,
        recipients: read.recipients,
        ...(read.data ? { data: read.data } : {}),
        next_key: read.next,
        unsubscribed: read.unsubscribed,
      });
      if (!created) {
        // A concurrent run of this page wrote it first: its page is the one.
        const theirs = await broadcasts.getChunk(broadcast.id, chunk);
        if (theirs) read = { recipients: theirs.recipients, data: theirs.data, unsubscribed: theirs.unsubscribed ?? 0, next: theirs.next_key ?? null };
      }
    }
  }
  // The chunk is handed on before the page is recorded: a recorded page always has its chunk job.
  if (read.recipients.length > 0) await deps.queue.send('fanout', { broadcast_id: broadcast.id, account_id: broadcast.account_id, chunk } satisfies FanOutJob);
  const counts = { recipients: read.recipients.length, unsubscribed: read.unsubscribed, chunks: read.recipients.length > 0 ? 1 : 0 };
  const updated = await broadcasts.recordPage(broadcast.account_id, broadcast.id, job.page, counts, read.next, now());
  if (!updated) return { kind: 'stale' }; // another run recorded it (and hands on), or it stopped sending
  if (updated.walk_done) await finishIfComplete(deps, broadcasts, updated);
  else await deps.queue.send('fanout', { ...job, page: job.page + 1 } satisfies WalkJob);
  return { kind: 'walked', recipients: counts.recipients, unsubscribed: counts.unsubscribed, done: updated.walk_done === true };
}
