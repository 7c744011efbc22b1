// Stored received mail: the email item (the list form, in its account's partition), its content
// item (what only the full form shows; in the object store when it would make the item large),
// and the receipt that makes a redelivered message find the id it was stored under.
import { keyQueries, keys, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { queryPage, type Page, type PageRequest } from '../pagination';
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
}

export class InboundRepository {
  constructor(private readonly store: Store) {}

  /** The id a message is stored under: `candidate` unless a delivery before claimed one. */
  async claimReceipt(digest: string, accountId: string, candidate: string): Promise<string> {
    const item: InboundReceiptItem = { ...keys.inboundReceipt(digest), entity: 'inbound_receipt', account_id: accountId, inbound_id: candidate };
    if (await wrote(this.store.put(item, { expression: 'attribute_not_exists(pk)' }))) return candidate;
    const had = await this.store.get<InboundReceiptItem>(keys.inboundReceipt(digest));
    if (!had) throw new Error('inbound receipt vanished after its claim failed');
    return had.inbound_id;
  }

  get(accountId: string, inboundId: string): Promise<InboundEmailItem | undefined> {
    return this.store.get<InboundEmailItem>(keys.inboundEmail(accountId, inboundId));
  }

  getContent(accountId: string, inboundId: string): Promise<InboundContentItem | undefined> {
    return this.store.get<InboundContentItem>(keys.inboundContent(accountId, inboundId));
  }

  /** Content first, so a stored email always has its content. Both are the same on a redelivery. */
  async put(email: Omit<InboundEmailItem, keyof ItemKey | 'entity'>, content: Omit<InboundContentItem, keyof ItemKey | 'entity'>): Promise<InboundEmailItem> {
    await this.store.put({ ...keys.inboundContent(email.account_id, email.id), entity: 'inbound_content', ...content } satisfies InboundContentItem);
    const item: InboundEmailItem = { ...keys.inboundEmail(email.account_id, email.id), entity: 'inbound_email', ...email };
    await this.store.put(item);
    return item;
  }

  list(accountId: string, page: PageRequest): Promise<Page<InboundEmailItem>> {
    return queryPage<InboundEmailItem>(this.store, keyQueries.accountItems(accountId, keys.inboundEmailPrefix), page);
  }
}
