// Stored received mail: the email item (the list form, in its account's partition), its content
// item (what only the full form shows; in the object store when it would make the item large),
// and the receipt that makes a redelivered message find the id it was stored under. Each is
// written once: a stored email is never rewritten, whatever arrives later.
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import type { InboundEmailSummary } from './schemas';

export interface InboundEmailItem extends ItemKey, InboundEmailSummary {
  entity: 'inbound_email';
  spam_verdict: string;
  virus_verdict: string;
  /** Where the raw message lies in the object store. */
  raw_key: string;
  /** The parser stopped before the end; the message is kept raw with what it read. */
  malformed?: boolean;
}

export interface InboundContent {
  text: string | null;
  html: string | null;
  headers: Record<string, string | string[]>;
  rfc_message_id: string | null;
}

export interface InboundContentItem extends ItemKey {
  entity: 'inbound_content';
  /** Inline when small; otherwise `content_key` names the JSON in the object store. */
  content?: InboundContent;
  content_key?: string;
}

export interface InboundReceiptItem extends ItemKey {
  entity: 'inbound_receipt';
  account_id: string;
  inbound_id: string;
  /** The raw object the email was stored from (absent on receipts written before it was kept). */
  raw_key?: string;
}

/** Who a received message is: its inbound id and the raw object its email was stored from. */
export interface Receipt {
  inboundId: string;
  rawKey: string;
}

export class InboundRepository {
  constructor(private readonly store: Store) {}

  /** The id and raw object a message is stored under: `candidate` unless a delivery before claimed them. */
  async claimReceipt(digest: string, accountId: string, candidate: Receipt): Promise<Receipt> {
    const item: InboundReceiptItem = { ...keys.inboundReceipt(digest), entity: 'inbound_receipt', account_id: accountId, inbound_id: candidate.inboundId, raw_key: candidate.rawKey };
    if (await wrote(this.store.put(item, { expression: 'attribute_not_exists(pk)' }))) return candidate;
    const had = await this.store.get<InboundReceiptItem>(keys.inboundReceipt(digest));
    if (!had) throw new Error('inbound receipt vanished after its claim failed');
    return { inboundId: had.inbound_id, rawKey: had.raw_key ?? candidate.rawKey };
  }

  get(accountId: string, inboundId: string): Promise<InboundEmailItem | undefined> {
    return this.store.get<InboundEmailItem>(keys.inboundEmail(accountId, inboundId));
  }

  getContent(accountId: string, inboundId: string): Promise<InboundContentItem | undefined> {
    return this.store.get<InboundContentItem>(keys.inboundContent(accountId, inboundId));
  }

  /**
   * Stores an email and its content unless they are stored already, and answers the email as
   * stored: a redelivery (or a run after a crash) never rewrites what the first one wrote. Content
   * first, so a stored email always has its content.
   */
  async putOnce(email: Omit<InboundEmailItem, keyof ItemKey | 'entity'>, content: Omit<InboundContentItem, keyof ItemKey | 'entity'>): Promise<InboundEmailItem> {
    const once = { expression: 'attribute_not_exists(pk)' };
    await wrote(this.store.put({ ...keys.inboundContent(email.account_id, email.id), entity: 'inbound_content', ...content } satisfies InboundContentItem, once));
    const item: InboundEmailItem = { ...keys.inboundEmail(email.account_id, email.id), entity: 'inbound_email', ...email };
    if (await wrote(this.store.put(item, once))) return item;
    const stored = await this.get(email.account_id, email.id);
    if (!stored) throw new Error('inbound email vanished after its write was refused');
    return stored;
  }

  list(accountId: string, page: PageRequest): Promise<Page<InboundEmailItem>> {
    return queryPage<InboundEmailItem>(this.store, keyQueries.accountItems(accountId, keys.inboundEmailPrefix), page);
  }
}
