// GET /v1/mail/threads?q=: the threads of the messages matching q, each once, at its newest
// matching message, newest first, narrowed to the list's view (folder, address) like the plain
// list. A page's cursor is the search's place; a thread met again on a later page (at an older
// matching message) is recognised by a match newer than the page's start and left out. A page
// reads a bounded number of postings (FIND_ROUNDS walks): it may come back short, even empty,
// with a next_cursor, like the other filtered walks (shared/pagination walkPage).
import type { Store } from '../../db/store';
import { decodeCursor, encodeCursor, type Page, type PageRequest } from '../../pagination';
import { findHits, matchesMessage, type SearchPlan } from './search';
import type { WalkPosition } from './search-walk';
import { postingSk } from './index-repository';
import { MailThreadRepository, type MailThreadItem } from './threads-repository';

const FIND_ROUNDS = 3;

/** Whether the thread has a message matching the plan above `start`: a page before this one showed it. */
async function shownBefore(store: Store, plan: SearchPlan, thread: MailThreadItem, start: WalkPosition | undefined): Promise<boolean> {
  if (!start || thread.last_message_at < start.sk.split('#')[0]!) return false;
  const entries = await new MailThreadRepository(store).entries(plan.accountId, thread.id);
  for (const e of entries) {
    const sk = postingSk(e.occurred_at, e.source, e.id);
    if ((sk > start.sk || (sk === start.sk && !start.inclusive)) && (await matchesMessage(store, plan, e))) return true;
  }
  return false;
}

export async function threadsMatching(store: Store, plan: SearchPlan, view: string, page: PageRequest): Promise<Page<MailThreadItem>> {
  const threads = new MailThreadRepository(store);
  const k = page.cursor ? decodeCursor(page.secret, page.scope, page.cursor) : undefined;
  const start: WalkPosition | undefined = k && typeof k.sk === 'string' ? { sk: k.sk, inclusive: k.i === 1 } : undefined;
  const found: Array<{ thread: MailThreadItem; at: string }> = [];
  const seen = new Set<string>();
  let position = start;
  for (let round = 0; round < FIND_ROUNDS && found.length <= page.limit; round++) {
    const { hits, resume } = await findHits(store, plan, page.limit + 1 - found.length, { start: position });
    const byId = new Map((await threads.many(plan.accountId, hits.map((h) => h.posting.thread_id).filter((id) => !seen.has(id)))).map((t) => [t.id, t]));
    for (const { posting } of hits) {
      const thread = byId.get(posting.thread_id);
      if (!thread || seen.has(thread.id)) continue;
      seen.add(thread.id);
      if (!thread.views.includes(view) || (await shownBefore(store, plan, thread, start))) continue;
      found.push({ thread, at: posting.sk });
      if (found.length > page.limit) break;
    }
    position = resume;
    if (!position) break;
  }
  const items = found.slice(0, page.limit);
  const last = items[items.length - 1];
  const next: WalkPosition | undefined = found.length > page.limit && last ? { sk: last.at, inclusive: false } : position;
  return { items: items.map((f) => f.thread), nextCursor: next ? encodeCursor(page.secret, page.scope, { sk: next.sk, i: next.inclusive ? 1 : 0 }) : null };
}
