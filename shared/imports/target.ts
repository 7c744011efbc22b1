// Where an import writes its contacts. shared/contacts owns contacts and lists (issue 14, slice 1,
// built beside this one); until it lands here the import is written against this small interface,
// and the contacts repository's upsert by email is wired in through useContactImportTarget.
import type { Container } from '../runtime/container';
import type { ContactRow } from './csv';

/** What writing one row does to the account's contacts. */
export type UpsertOutcome = 'created' | 'updated' | 'unchanged';

export interface ContactImportTarget {
  /** True when listId names a static list of the account (not a dynamic one, not another account's). */
  staticListExists(accountId: string, listId: string): Promise<boolean>;
  /**
   * Read only: what upsertContacts would do with each row, in order; a later row with the same
   * email sees what the earlier one would have written. `unchanged`: the contact exists with these
   * values and is already in the list.
   */
  planUpsert(accountId: string, rows: readonly ContactRow[], listId?: string): Promise<UpsertOutcome[]>;
  /**
   * Creates or updates a contact per row by normalized email (never a second contact of an email,
   * never duplicate_contact); a row's empty fields leave the stored ones alone, its data keys are
   * merged over the stored data; adds each contact to listId. Idempotent: the same rows again
   * change nothing.
   */
  upsertContacts(accountId: string, rows: readonly ContactRow[], listId?: string): Promise<{ created: number; updated: number }>;
}

/** The import cannot reach contacts in this build: shared/contacts is not wired in yet. */
export class ContactsNotWiredError extends Error {
  constructor() {
    super('contact import: no contacts target is wired (shared/contacts lands in issue 14, slice 1)');
    this.name = 'ContactsNotWiredError';
  }
}

const notWired: ContactImportTarget = {
  staticListExists: () => Promise.reject(new ContactsNotWiredError()),
  planUpsert: () => Promise.reject(new ContactsNotWiredError()),
  upsertContacts: () => Promise.reject(new ContactsNotWiredError()),
};

let targetFor: (c: Container) => ContactImportTarget = () => notWired;

/** The contacts the import writes to, for this container. */
export function contactImportTarget(c: Container): ContactImportTarget {
  return targetFor(c);
}

/** Wires the target (shared/contacts once it lands; a test double in the tests). */
export function useContactImportTarget(factory: (c: Container) => ContactImportTarget): void {
  targetFor = factory;
}
