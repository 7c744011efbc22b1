// Searching the Mail index: a query planned for an account (optionally one address), its matches
// newest first (the postings of its terms, intersected by shared/inbound-mail/mailbox/search-walk.ts, and the
// search documents of the candidates when a check needs them), and whether one message matches.
// Never reads the messages themselves; another account's mail is in other partitions.
import type { Store } from '../../db/store';
import { ALL_TERM, addressTerm } from './index-terms';
import { MailIndexRepository, postingSk, refOfPosting, shownOf, type MailDocItem, type MailPostingItem } from './index-repository';
import { parseSearchQuery, passesChecks, type PhraseCheck } from './search-query';
import type { SearchResult } from './search-schemas';
import { Walk, type WalkPosition } from './search-walk';
import type { MailSource } from './schemas';

/** A parsed query bound to an account: the posting lists to intersect and the checks on each candidate. */
export interface SearchPlan {
  accountId: string;
  terms: string[];
  checks: PhraseCheck[];
  range: { after?: string; before?: string };
}

/** `address`, when given, scopes the search to the account's mail of that address. */
export function planSearch(accountId: string, q: string, address?: string): SearchPlan {
  const query = parseSearchQuery(q);
  const terms = [...query.terms, ...(address ? [addressTerm(address)] : [])];
  return { accountId, terms: terms.length > 0 ? terms : [ALL_TERM], checks: query.checks, range: { after: query.after, before: query.before } };
}

export interface Hit {
  posting: MailPostingItem;
  /** Read when the caller asked for documents or the query has checks; undefined otherwise, and for a posting that shows its result when the caller takes those. */
  doc?: MailDocItem;
}

export interface HitsPage {
  hits: Hit[];
  /** Where the next page starts; undefined when the walk reached the end. */
  resume?: WalkPosition;
}

/**
 * Up to `want` matches from `start` (the top when undefined), each passing the query's checks;
 * stops early, with `resume`, when the walk's read budget runs out.
 */
export async function findHits(store: Store, plan: SearchPlan, want: number, options: { start?: WalkPosition; docs?: boolean; shown?: boolean } = {}): Promise<HitsPage> {
  const repo = new MailIndexRepository(store);
  const walk = new Walk(repo, plan.accountId, plan.terms, plan.range, options.start);
  const needDocs = options.docs === true || plan.checks.length > 0;
  // `shown`: the caller takes a posting's shown fields for its document when no check needs the text.
  const docless = (p: MailPostingItem): boolean => options.shown === true && plan.checks.length === 0 && shownOf(p) !== undefined;
  const hits: Hit[] = [];
  for (;;) {
    // With checks some candidates fail them: take a few more than are missing.
    const { items: batch, stop } = await walk.take(plan.checks.length > 0 ? Math.max(10, want - hits.length) : want - hits.length);
    const docs = needDocs ? await repo.docs(plan.accountId, batch.filter((p) => !docless(p)).map((p) => refOfPosting(p.sk))) : [];
    const docOf = new Map(docs.map((d) => [postingSk(d.occurred_at, d.source, d.id), d]));
    for (const posting of batch) {
      const doc = docOf.get(posting.sk);
      if (needDocs && !docless(posting) && (!doc || !passesChecks(plan.checks, doc))) continue;
      hits.push({ posting, doc });
      if (hits.length >= want) return { hits, resume: { sk: posting.sk, inclusive: false } };
    }
    if (stop === 'end') return { hits };
    if (stop === 'cut') return { hits, resume: walk.position };
  }
}

/** Whether one message matches the plan: its posting in every list, in range, and its document passing the checks. */
export async function matchesMessage(store: Store, plan: SearchPlan, message: { occurred_at: string; source: MailSource; id: string }): Promise<boolean> {
  const sk = postingSk(message.occurred_at, message.source, message.id);
  if ((plan.range.after && sk < plan.range.after) || (plan.range.before && sk > plan.range.before)) return false;
  const repo = new MailIndexRepository(store);
  if (!(await repo.inEvery(plan.accountId, plan.terms, message))) return false;
  if (plan.checks.length === 0) return true;
  const [doc] = await repo.docs(plan.accountId, [message]);
  return doc !== undefined && passesChecks(plan.checks, doc);
}

export function toSearchResult(doc: MailDocItem): SearchResult {
  return { thread_id: doc.thread_id, source: doc.source, message_ref: doc.id, from: doc.from, subject: doc.subject, snippet: doc.snippet, occurred_at: doc.occurred_at };
}

/** A hit's result: from its document, or from its posting's shown fields; undefined when it has neither. */
export function resultOfHit(hit: Hit): SearchResult | undefined {
  if (hit.doc) return toSearchResult(hit.doc);
  const shown = shownOf(hit.posting);
  if (!shown) return undefined;
  const { occurred_at, source, id } = refOfPosting(hit.posting.sk);
  return { thread_id: hit.posting.thread_id, source, message_ref: id, ...shown, occurred_at };
}
