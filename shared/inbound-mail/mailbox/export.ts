// GET /v1/mail/export: the mail of the thread list's filters (folder, inbox_id, inbox, q) as the
// spec's Export document (json) or as mbox, a page at a time: at most EXPORT_PAGE_MESSAGES messages
// and EXPORT_PAGE_BYTES bytes a call, with next_cursor (json: in the document; mbox: the
// Postbox-Next-Cursor header) until the last page, so no call holds a large mailbox in memory.
// Without q: the view's threads newest first, each thread's messages oldest first. With q: the
// matching messages of the view's threads, newest first (the search's order).
import type { Store } from '../../db/store';
import { decodeCursor, encodeCursor } from '../../pagination';
import type { Clock } from '../../ports/clock';
import type { ObjectStore } from '../../ports/object-store';
import { EXPORT_PAGE_BYTES, exportMessage, type Exported, type ExportRef } from './export-messages';
import { mboxEntry } from './export-mbox';
import { viewName } from './model';
import { findHits, planSearch, type SearchPlan } from './search';
import type { ExportMessage, ExportQuery } from './search-schemas';
import type { WalkPosition } from './search-walk';
import { addressFilter } from './threads';
import { MailThreadRepository, type MailThreadEntryItem, type ViewHit } from './threads-repository';

export const EXPORT_PAGE_MESSAGES = 100;
/** Thread pointers read at once while exporting a view. */
const THREADS_AT_ONCE = 10;
/** Search walks one page of a q export may make (each bounded, shared/inbound-mail/mailbox/search-walk.ts). */
const FIND_ROUNDS = 5;

export interface ExportDeps {
  store: Store;
  objects: ObjectStore;
  clock: Clock;
  cursorSecret: string;
}

export interface ExportPage {
  exported_at: string;
  messages: ExportMessage[];
  /** format=mbox: the page's mbox text. */
  mbox?: Buffer;
  nextCursor: string | null;
}

/** Messages read at once while filling a page (fewer for mbox, whose raw messages are larger). */
const READ_AHEAD = { json: 8, mbox: 4 } as const;

/** Fills one page: refuses a message that would pass the page's count or bytes, unless the page is empty. */
class PageFill {
  readonly messages: ExportMessage[] = [];
  readonly chunks: Buffer[] = [];
  private bytes = 0;

  constructor(
    private readonly deps: ExportDeps,
    private readonly accountId: string,
    private readonly mbox: boolean,
  ) {}

  /**
   * Takes `refs` in order until the page is full; answers how many it took (a message that is gone
   * counts as taken). Reads a few messages at once; at most that many are read and not taken.
   */
  async addAll(refs: readonly ExportRef[]): Promise<number> {
    const ahead = this.mbox ? READ_AHEAD.mbox : READ_AHEAD.json;
    for (let i = 0; i < refs.length; i += ahead) {
      if (this.messages.length >= EXPORT_PAGE_MESSAGES) return i;
      const outs = await Promise.all(refs.slice(i, i + ahead).map((ref) => exportMessage(this.deps, this.accountId, ref, this.mbox)));
      for (const [j, out] of outs.entries()) if (out && !this.take(out)) return i + j;
    }
    return refs.length;
  }

  private take(out: Exported): boolean {
    if (this.messages.length >= EXPORT_PAGE_MESSAGES) return false;
    const chunk = this.mbox && out.bytes ? mboxEntry({ from: out.message.from, occurred_at: out.message.occurred_at, bytes: out.bytes }) : undefined;
    const size = chunk ? chunk.length : Buffer.byteLength(JSON.stringify(out.message));
    if (this.messages.length > 0 && this.bytes + size > EXPORT_PAGE_BYTES) return false;
    this.bytes += size;
    this.messages.push(out.message);
    if (chunk) this.chunks.push(chunk);
    return true;
  }
}

/** Where a view export goes on: after the last thread done (its pointer), inside thread `t` after entry `e`. */
type ViewState = { vp?: string; vs?: string; t?: string; e?: string };

async function exportView(deps: ExportDeps, accountId: string, view: string, state: ViewState, page: PageFill): Promise<ViewState | undefined> {
  const threads = new MailThreadRepository(deps.store);
  const scope = { accountId, collection: 'mail-export-threads' };
  let done = { vp: state.vp, vs: state.vs };
  let cursor = state.vp && state.vs ? encodeCursor(deps.cursorSecret, scope, { pk: state.vp, sk: state.vs }) : undefined;
  for (;;) {
    const hits = await threads.viewPage(accountId, view, { secret: deps.cursorSecret, scope, limit: THREADS_AT_ONCE, cursor });
    const entries = await Promise.all(hits.items.map((hit) => threads.entries(accountId, hit.thread.id)));
    const resumeAfter = (threadId: string): string | undefined => (threadId === state.t ? state.e : undefined);
    const queue = hits.items.flatMap((hit, i) => {
      const after = resumeAfter(hit.thread.id);
      return (entries[i] ?? []).filter((e) => after === undefined || e.sk > after).map((e) => ({ at: i, e }));
    });
    const taken = await page.addAll(queue.map(({ at, e }) => entryRef(e, (hits.items[at] as ViewHit).thread.id)));
    if (taken < queue.length) {
      const stop = queue[taken] as (typeof queue)[number];
      const before = taken > 0 ? queue[taken - 1] : undefined;
      const doneHit = stop.at > 0 ? hits.items[stop.at - 1] : undefined;
      const threadId = (hits.items[stop.at] as ViewHit).thread.id;
      return {
        ...(doneHit ? { vp: doneHit.pk, vs: doneHit.sk } : done),
        t: threadId,
        e: before && before.at === stop.at ? before.e.sk : resumeAfter(threadId),
      };
    }
    const last = hits.items[hits.items.length - 1];
    if (last) done = { vp: last.pk, vs: last.sk };
    if (!hits.nextCursor) return undefined;
    cursor = hits.nextCursor;
  }
}

const entryRef = (e: MailThreadEntryItem, threadId: string): ExportRef => ({ ...e, thread_id: threadId });

async function exportSearch(deps: ExportDeps, plan: SearchPlan, view: string, start: WalkPosition | undefined, page: PageFill): Promise<WalkPosition | undefined> {
  const threads = new MailThreadRepository(deps.store);
  let position = start;
  for (let round = 0; round < FIND_ROUNDS; round++) {
    const { hits, resume } = await findHits(deps.store, plan, EXPORT_PAGE_MESSAGES, { start: position, docs: true });
    const inView = new Set((await threads.many(plan.accountId, hits.map((h) => h.posting.thread_id))).filter((t) => t.views.includes(view)).map((t) => t.id));
    const kept = hits.flatMap(({ posting, doc }) => (doc && inView.has(doc.thread_id) ? [{ posting, doc }] : []));
    const taken = await page.addAll(kept.map((h) => h.doc));
    if (taken < kept.length) return taken > 0 ? { sk: (kept[taken - 1] as (typeof kept)[number]).posting.sk, inclusive: false } : position;
    if (!resume) return undefined;
    position = resume;
  }
  return position;
}

export async function exportMail(deps: ExportDeps, accountId: string, query: ExportQuery): Promise<ExportPage> {
  const folder = query.folder ?? 'inbox';
  const q = query.q?.trim();
  const plan = q ? planSearch(accountId, q) : undefined;
  const address = await addressFilter(deps.store, accountId, query);
  const view = viewName(folder, address);
  const scope = { accountId, collection: 'mail-export', filters: { folder, address, q } };
  const k = query.cursor ? decodeCursor(deps.cursorSecret, scope, query.cursor) : {};
  const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
  const page = new PageFill(deps, accountId, query.format === 'mbox');
  let next: Record<string, unknown> | undefined;
  if (plan) {
    const sk = str(k.sk);
    next = await exportSearch(deps, plan, view, sk ? { sk, inclusive: k.i === 1 } : undefined, page).then((p) => p && { sk: p.sk, i: p.inclusive ? 1 : 0 });
  } else {
    next = await exportView(deps, accountId, view, { vp: str(k.vp), vs: str(k.vs), t: str(k.t), e: str(k.e) }, page);
  }
  return {
    exported_at: deps.clock.now().toISOString(),
    messages: page.messages,
    mbox: query.format === 'mbox' ? Buffer.concat(page.chunks) : undefined,
    nextCursor: next ? encodeCursor(deps.cursorSecret, scope, Object.fromEntries(Object.entries(next).filter(([, v]) => v !== undefined))) : null,
  };
}
