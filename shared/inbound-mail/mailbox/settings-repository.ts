// The Mail app's inboxes and labels. Each is one item keyed by what must be unique: an inbox by
// its address, a label by its lowercased name, so a conditional put is the whole uniqueness check
// (no second item to leave behind on a crash) and the lists read in address and name order.
// Removing one by its id reads the account's (capped) collection to find its key.
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { allItems } from '../../db/all-items';

export interface MailInboxItem extends ItemKey {
  entity: 'mail_inbox';
  id: string;
  account_id: string;
  domain_id: string;
  domain: string;
  local_part: string;
  address: string;
  active: boolean;
  created_at: string;
  updated_at: string;
}

export interface MailLabelItem extends ItemKey {
  entity: 'mail_label';
  id: string;
  account_id: string;
  name: string;
  color: string;
  created_at: string;
}

export type NewInbox = Omit<MailInboxItem, keyof ItemKey | 'entity'>;
export type NewLabel = Omit<MailLabelItem, keyof ItemKey | 'entity'>;

export class MailSettingsRepository {
  constructor(private readonly store: Store) {}

  /** False when the account has an inbox at this address already. */
  createInbox(inbox: NewInbox): Promise<boolean> {
    const item: MailInboxItem = { ...keys.mailInbox(inbox.account_id, inbox.address), entity: 'mail_inbox', ...inbox };
    return wrote(this.store.put(item, { expression: 'attribute_not_exists(pk)' }));
  }

  /** The account's inboxes, by address. */
  inboxes(accountId: string): Promise<MailInboxItem[]> {
    return allItems<MailInboxItem>(this.store, keyQueries.accountItems(accountId, keys.mailInboxPrefix));
  }

  /** The account's inbox at this address (lowercased), if it has one: how received mail finds its inbox. */
  inboxAt(accountId: string, address: string): Promise<MailInboxItem | undefined> {
    return this.store.get<MailInboxItem>(keys.mailInbox(accountId, address));
  }

  /** False when it was gone already (or the address holds another inbox now). */
  deleteInbox(inbox: MailInboxItem): Promise<boolean> {
    return wrote(this.store.delete(keys.mailInbox(inbox.account_id, inbox.address), { expression: 'id = :id', values: { ':id': inbox.id } }));
  }

  /** False when the account has a label of this name, whatever its case. */
  createLabel(label: NewLabel): Promise<boolean> {
    const item: MailLabelItem = { ...keys.mailLabel(label.account_id, label.name.toLowerCase()), entity: 'mail_label', ...label };
    return wrote(this.store.put(item, { expression: 'attribute_not_exists(pk)' }));
  }

  /** The account's labels, by lowercased name. */
  labels(accountId: string): Promise<MailLabelItem[]> {
    return allItems<MailLabelItem>(this.store, keyQueries.accountItems(accountId, keys.mailLabelPrefix));
  }

  deleteLabel(label: MailLabelItem): Promise<boolean> {
    return wrote(this.store.delete(keys.mailLabel(label.account_id, label.name.toLowerCase()), { expression: 'id = :id', values: { ':id': label.id } }));
  }
}
