// Contacts' address claims, in the account's partition: one item per normalized address naming
// the contact that holds it, taken before the contact is written, so two contacts never hold one
// address (shared/audiences/contacts/contacts.ts takeEmail).
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { inBatches } from './repository-helpers';

export interface ContactEmailItem extends ItemKey {
  entity: 'contact_email';
  account_id: string;
  contact_id: string;
  /** Epoch ms: a claim whose contact never got written can be taken over once it is old. */
  claimed_at: number;
}

export class ContactClaimRepository {
  constructor(private readonly store: Store) {}

  emailItem(accountId: string, email: string): Promise<ContactEmailItem | undefined> {
    return this.store.get<ContactEmailItem>(keys.contactEmail(accountId, email));
  }

  /** The claims of these addresses that exist, by address, in batch reads. */
  async emailItems(accountId: string, emails: readonly string[]): Promise<Map<string, ContactEmailItem>> {
    const bySk = new Map(emails.map((e) => [keys.contactEmail(accountId, e).sk, e]));
    const groups = await inBatches(emails, 100, (part) => this.store.batchGet<ContactEmailItem>(part.map((e) => keys.contactEmail(accountId, e))));
    return new Map(groups.flat().map((claim) => [bySk.get(claim.sk)!, claim]));
  }

  /** Takes an address for a contact; false when another contact holds it (this one may take it again). */
  claimEmail(accountId: string, email: string, contactId: string, nowMs: number): Promise<boolean> {
    const item: ContactEmailItem = { ...keys.contactEmail(accountId, email), entity: 'contact_email', account_id: accountId, contact_id: contactId, claimed_at: nowMs };
    return wrote(this.store.put(item, { expression: 'attribute_not_exists(pk) OR contact_id = :id', values: { ':id': contactId } }));
  }

  /** Takes over an address from `staleContactId`, only if nobody changed the claim since it was read. */
  takeOverEmail(accountId: string, email: string, staleContactId: string, contactId: string, nowMs: number): Promise<boolean> {
    const item: ContactEmailItem = { ...keys.contactEmail(accountId, email), entity: 'contact_email', account_id: accountId, contact_id: contactId, claimed_at: nowMs };
    return wrote(this.store.put(item, { expression: 'contact_id = :old', values: { ':old': staleContactId } }));
  }

  /** Gives an address up, only while this contact holds it. */
  releaseEmail(accountId: string, email: string, contactId: string): Promise<boolean> {
    return wrote(this.store.delete(keys.contactEmail(accountId, email), { expression: 'contact_id = :id', values: { ':id': contactId } }));
  }
}
