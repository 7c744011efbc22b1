// Stored Mail search index: postings (one per account, term and message, in the term's own
// partition, newest first by `<occurred_at>#<source>#<id>`) and search documents (one per message:
// what a result shows and what a quoted phrase is checked against). Both are written whole and
// deterministically from the message, so writing them again changes nothing. A posting also
// carries what a search result shows (from, subject, snippet) when that keeps it within one write
// unit (1 KB), so a search without phrase checks answers from its postings alone.
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { storedItemBytes } from '../../db/item-size';
import type { Store } from '../../db/store';
import type { MailMessageEntry } from './model';
import type { MailSource } from './schemas';

/** What a search result shows of a message beyond its posting's key and thread. */
export type ShownFields = Pick<MailDocItem, 'from' | 'subject' | 'snippet'>;

export interface MailPostingItem extends ItemKey, Partial<ShownFields> {
  entity: 'mail_posting';
  thread_id: string;
}

/** A posting stays one write unit: the shown fields go on it only while it fits in 1 KB. */
const POSTING_MAX_BYTES = 1024;

/** The posting of one term; with the shown fields when they fit. */
function postingOf(doc: NewMailDoc, term: string): MailPostingItem {
  const bare: MailPostingItem = { ...keys.mailPosting(doc.account_id, term, doc.occurred_at, doc.source, doc.id), entity: 'mail_posting', thread_id: doc.thread_id };
  const shown: MailPostingItem = { ...bare, from: doc.from, subject: doc.subject, snippet: doc.snippet };
  return storedItemBytes(shown as unknown as Record<string, unknown>) <= POSTING_MAX_BYTES ? shown : bare;
}

/** The shown fields of a posting written with them (one written before they were, or too large, has none). */
export const shownOf = (p: MailPostingItem): ShownFields | undefined =>
  p.snippet === undefined ? undefined : { from: p.from ?? null, subject: p.subject ?? null, snippet: p.snippet };

export interface MailDocItem extends ItemKey, Pick<MailMessageEntry, 'account_id' | 'source' | 'id' | 'thread_id' | 'occurred_at' | 'from' | 'subject'> {
  entity: 'mail_doc';
  to: string[];
  snippet: string;
  /** The indexed start of the text (INDEXED_TEXT_CHARS), as the message had it. */
  text: string;
  /** The account's address on the message (lowercased). */
  address: string;
  attachment_count: number;
}

export type NewMailDoc = Omit<MailDocItem, keyof ItemKey | 'entity'>;

/** A posting's place: what the index's intersection compares, and where a walk resumes. */
export const postingSk = (occurredAt: string, source: MailSource, id: string): string => keys.mailPosting('', '', occurredAt, source, id).sk;

/** Sort keys a walk stays between: `from` and `to` inclusive (every ISO time sorts inside). */
export const LOWEST_SK = '0';
export const HIGHEST_SK = '9';

export interface PostingPage {
  items: MailPostingItem[];
  /** More postings follow in the range. */
  more: boolean;
}

/**
 * A message's index items: its document, then a posting per term. The document first, so it is in
 * the first batch the store writes: a posting whose document is missing is skipped by a search, never the reverse.
 */
export function mailIndexItemsOf(doc: NewMailDoc, terms: readonly string[]): Array<MailDocItem | MailPostingItem> {
  return [{ ...keys.mailDoc(doc.account_id, doc.source, doc.id), entity: 'mail_doc', ...doc }, ...terms.map((term) => postingOf(doc, term))];
}

export class MailIndexRepository {
  constructor(private readonly store: Store) {}

  /** One batch write of the items (mailIndexItemsOf): a message's whole index in one call when it fits one batch. */
  async write(doc: NewMailDoc, terms: readonly string[]): Promise<void> {
    await this.store.batchPut(mailIndexItemsOf(doc, terms));
  }

  /**
   * Up to `limit` postings of one term, newest first, with sort keys between `from` and `to`
   * (inclusive); `after`, when given, resumes strictly below that sort key.
   */
  async postings(accountId: string, term: string, range: { from: string; to: string; after?: string; limit: number }): Promise<PostingPage> {
    const partition = keys.mailPostingPartition(accountId, term);
    const out = await this.store.query<MailPostingItem>({
      ...keyQueries.mailPostingsBetween(partition, range.from, range.to),
      ascending: false,
      limit: range.limit,
      consistent: false,
      startKey: range.after !== undefined ? { pk: partition, sk: range.after } : undefined,
    });
    return { items: out.items, more: out.lastKey !== undefined };
  }

  /** Whether the message has a posting under every one of `terms`. */
  async inEvery(accountId: string, terms: readonly string[], m: { occurred_at: string; source: MailSource; id: string }): Promise<boolean> {
    const found = await this.store.batchGet(terms.map((t) => keys.mailPosting(accountId, t, m.occurred_at, m.source, m.id)), { consistent: false });
    return found.length === new Set(terms).size;
  }

  /** Which of these postings exist, as `<term>\n<sort key>`: the point reads of a search walk. */
  async postingsAt(accountId: string, wanted: readonly { term: string; sk: string }[]): Promise<Set<string>> {
    const partitions = new Map(wanted.map((w) => [keys.mailPostingPartition(accountId, w.term), w.term]));
    const found = await this.store.batchGet<MailPostingItem>(
      wanted.map((w) => ({ pk: keys.mailPostingPartition(accountId, w.term), sk: w.sk })),
      { consistent: false },
    );
    return new Set(found.map((p) => `${partitions.get(p.pk) ?? ''}\n${p.sk}`));
  }

  /** The documents of these messages, in the order asked; missing ones are left out. */
  async docs(accountId: string, refs: readonly { source: MailSource; id: string }[]): Promise<MailDocItem[]> {
    if (refs.length === 0) return [];
    const found = await this.store.batchGet<MailDocItem>(refs.map((r) => keys.mailDoc(accountId, r.source, r.id)), { consistent: false });
    const byKey = new Map(found.map((d) => [`${d.source}:${d.id}`, d]));
    return refs.flatMap((r) => byKey.get(`${r.source}:${r.id}`) ?? []);
  }
}

/** A posting's message, from its sort key. */
export function refOfPosting(sk: string): { occurred_at: string; source: MailSource; id: string } {
  const [occurredAt = '', source = 'inbound', id = ''] = sk.split('#');
  return { occurred_at: occurredAt, source: source as MailSource, id };
}
