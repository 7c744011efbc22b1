// Stored Mail threads: the thread item (its state, in the account's partition), its entries (one
// per message, in the thread's own partition, oldest first), each message's ref (which thread it
// is in), and the thread's pointers in the list views (one partition per account and view, newest
// last_message_at first).
//
// A thread is written with optimistic locking on `version`. Its pointers follow a fixed order, so
// a list never misses a thread: the new pointers first, then the thread, then the old pointers are
// deleted. A crash or a lost race leaves only extra pointers, which a list recognises (the thread
// does not name that view at that time) and drops.
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { RetryableError } from '../../errors';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import { allItems } from '../../db/all-items';
import { viewsOf, type ThreadState } from './model';
import type { MailSource } from './schemas';

export interface MailThreadItem extends ItemKey, ThreadState {
  entity: 'mail_thread';
  /** The views whose pointers (at last_message_at) this state has. */
  views: string[];
  version: number;
}

export interface MailThreadEntryItem extends ItemKey {
  entity: 'mail_thread_entry';
  source: MailSource;
  id: string;
  occurred_at: string;
  /** What the thread detail shows of an outbound message beside its status (inbound ones are read from their email). */
  from: string | null;
  to: string[];
  subject: string | null;
}

export interface MailMessageRefItem extends ItemKey {
  entity: 'mail_message_ref';
  thread_id: string;
  /** The thread has counted the message. */
  applied: boolean;
}

export interface MailViewEntryItem extends ItemKey {
  entity: 'mail_view_entry';
  thread_id: string;
}

/** A listed thread beside its pointer's key, which the page's cursor is made of. */
export interface ViewHit extends ItemKey {
  thread: MailThreadItem;
}

const MAX_ATTEMPTS = 8;
const THREAD_ID = /^thr_[0-9a-f]{26}$/;
export const isThreadId = (id: string): boolean => THREAD_ID.test(id);

const pointerKey = (t: Pick<MailThreadItem, 'account_id' | 'id' | 'last_message_at'>, view: string): ItemKey =>
  keys.mailViewEntry(t.account_id, view, t.last_message_at, t.id);

export class MailThreadRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, threadId: string): Promise<MailThreadItem | undefined> {
    if (!isThreadId(threadId)) return Promise.resolve(undefined);
    return this.store.get<MailThreadItem>(keys.mailThread(accountId, threadId));
  }

  many(accountId: string, threadIds: readonly string[]): Promise<MailThreadItem[]> {
    if (threadIds.length === 0) return Promise.resolve([]);
    return this.store.batchGet<MailThreadItem>([...new Set(threadIds)].map((id) => keys.mailThread(accountId, id)));
  }

  /**
   * Writes `next` over `current` (undefined: the thread is new); false when another writer changed
   * the thread first (the caller reads it again). Moves the pointers whose view or time changed.
   * `alongside`: plain puts made in the same batch write as the new pointers, before the thread's.
   */
  async save(current: MailThreadItem | undefined, next: ThreadState, alongside: readonly ItemKey[] = []): Promise<MailThreadItem | false> {
    const item: MailThreadItem = {
      ...keys.mailThread(next.account_id, next.id),
      entity: 'mail_thread',
      ...next,
      views: viewsOf(next),
      version: (current?.version ?? 0) + 1,
    };
    const moved = current?.last_message_at !== item.last_message_at;
    const added = moved ? item.views : item.views.filter((v) => !current?.views.includes(v));
    const pointers = added.map((view): MailViewEntryItem => ({ ...pointerKey(item, view), entity: 'mail_view_entry', thread_id: item.id }));
    await this.store.batchPut([...alongside, ...pointers]);
    const condition = current ? { expression: 'version = :v', values: { ':v': current.version } } : { expression: 'attribute_not_exists(pk)' };
    if (!(await wrote(this.store.put(item, condition)))) return false;
    if (current) {
      const removed = moved ? current.views : current.views.filter((v) => !item.views.includes(v));
      await Promise.all(removed.map((view) => this.store.delete(pointerKey(current, view))));
    }
    return item;
  }

  /**
   * Reads the thread, asks `change` for its next state (undefined: nothing to write) and saves it,
   * reading again when another writer was first. Undefined when there is no thread and `change`
   * made none. `read`: the thread as the caller just read it (consistently), used for the first
   * try instead of reading it here. `alongside`: plain puts written once, with the first try's
   * pointers (or alone when there is nothing to change), always before the thread.
   */
  async change(
    accountId: string,
    threadId: string,
    change: (current: MailThreadItem | undefined) => ThreadState | undefined,
    options: { read?: { thread: MailThreadItem | undefined }; alongside?: readonly ItemKey[] } = {},
  ): Promise<MailThreadItem | undefined> {
    let alongside = options.alongside ?? [];
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const current = attempt === 0 && options.read ? options.read.thread : await this.get(accountId, threadId);
      const next = change(current);
      if (!next) {
        await this.store.batchPut(alongside);
        return current;
      }
      const saved = await this.save(current, next, alongside);
      alongside = [];
      if (saved) return saved;
    }
    throw new RetryableError(`thread ${threadId}: ${MAX_ATTEMPTS} writers in a row were first`);
  }

  /**
   * A page of one view's pointers, newest first, as the threads they point at. A pointer the thread
   * no longer has (left by a crash or a lost race) is dropped from the page and deleted.
   */
  viewPage(accountId: string, view: string, page: PageRequest): Promise<Page<ViewHit>> {
    return queryPage<MailViewEntryItem, ViewHit>(
      this.store,
      keyQueries.partition(keys.mailViewPartition(accountId, view)),
      page,
      async (pointers) => {
        const threads = new Map((await this.many(accountId, pointers.map((p) => p.thread_id))).map((t) => [t.id, t]));
        const kept: ViewHit[] = [];
        for (const pointer of pointers) {
          const thread = threads.get(pointer.thread_id);
          if (thread && thread.views.includes(view) && pointer.sk === pointerKey(thread, view).sk) {
            kept.push({ pk: pointer.pk, sk: pointer.sk, thread });
          } else {
            await this.store.delete({ pk: pointer.pk, sk: pointer.sk }, { expression: 'attribute_exists(pk)' }).catch(() => undefined);
          }
        }
        return kept;
      },
    );
  }

  /** Idempotent: the same message writes the same entry. */
  putEntry(accountId: string, threadId: string, entry: Omit<MailThreadEntryItem, keyof ItemKey | 'entity'>): Promise<void> {
    return this.store.put(entryItem(accountId, threadId, entry));
  }

  /** Every entry of a thread, oldest first. */
  entries(accountId: string, threadId: string): Promise<MailThreadEntryItem[]> {
    return allItems<MailThreadEntryItem>(this.store, keyQueries.partition(keys.mailThreadEntriesPartition(accountId, threadId)));
  }

  getRef(accountId: string, source: MailSource, id: string): Promise<MailMessageRefItem | undefined> {
    return this.store.get<MailMessageRefItem>(keys.mailMessageRef(accountId, source, id));
  }

  /** A message's ref and the thread it joins, in one consistent read. */
  async refAndThread(accountId: string, source: MailSource, id: string, threadId: string): Promise<{ ref?: MailMessageRefItem; thread?: MailThreadItem }> {
    const refKey = keys.mailMessageRef(accountId, source, id);
    const threadKey = keys.mailThread(accountId, threadId);
    const found = await this.store.batchGet<MailMessageRefItem | MailThreadItem>(isThreadId(threadId) ? [refKey, threadKey] : [refKey]);
    const ref = found.find((i) => i.sk === refKey.sk) as MailMessageRefItem | undefined;
    const thread = found.find((i) => i.sk === threadKey.sk) as MailThreadItem | undefined;
    return { ...(ref ? { ref } : {}), ...(thread ? { thread } : {}) };
  }

  putRef(accountId: string, source: MailSource, id: string, threadId: string, applied: boolean): Promise<void> {
    return this.store.put(refItem(accountId, source, id, threadId, applied));
  }
}

/** A thread's entry for one message, as putEntry writes it. */
export function entryItem(accountId: string, threadId: string, entry: Omit<MailThreadEntryItem, keyof ItemKey | 'entity'>): MailThreadEntryItem {
  return { ...keys.mailThreadEntry(accountId, threadId, entry.occurred_at, entry.source, entry.id), entity: 'mail_thread_entry', ...entry };
}

/** A message's ref, as putRef writes it. */
export function refItem(accountId: string, source: MailSource, id: string, threadId: string, applied: boolean): MailMessageRefItem {
  return { ...keys.mailMessageRef(accountId, source, id), entity: 'mail_message_ref', thread_id: threadId, applied };
}
