// Where an import writes its contacts: a small interface, so the import's chunking and crash
// handling are tested against a double, and shared/contacts behind it (./contacts-target.ts) in
// both runtimes.
import type { ContactRow } from './csv';

/**
 * What writing one row does to the account's contacts; `refused` when the contact could not take
 * it (its data merged over the stored data would pass the contacts limits): the row is skipped.
 */
export type UpsertOutcome = 'created' | 'updated' | 'unchanged' | { refused: string };

export interface ContactImportTarget {
  /** The kind of the account's list listId; undefined when it has none (another account's included). */
  listKind(accountId: string, listId: string): Promise<'static' | 'dynamic' | undefined>;
  /**
   * Read only: what upsertContacts would do with each row, in order; a later row with the same
   * email sees what the earlier one would have written. `unchanged`: the contact exists with these
   * values and is already in the list.
   */
  planUpsert(accountId: string, rows: readonly ContactRow[], listId?: string): Promise<UpsertOutcome[]>;
  /**
   * Creates or updates a contact per row by normalized email (never a second contact of an email,
   * never duplicate_contact); a row's empty fields leave the stored ones alone, its data keys are
   * merged over the stored data; adds each contact to listId; skips a row planUpsert would
   * refuse. Idempotent: the same rows again change nothing. `idFor` names the contact an address
   * gets when it is new, the same on every run of a chunk, so that a run re-doing the chunk after
   * a crash between an address claim and its contact takes the claim back instead of waiting for
   * it to go stale (a fresh id each time when absent).
   */
  upsertContacts(accountId: string, rows: readonly ContactRow[], listId?: string, idFor?: (email: string) => string): Promise<{ created: number; updated: number }>;
}
