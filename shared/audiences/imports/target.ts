// Where an import writes its contacts: a small interface, so the import's chunking and crash
// handling are tested against a double, and shared/audiences/contacts behind it (./contacts-target.ts) in
// both runtimes.
import type { ContactRow } from './csv';

/**
 * What writing one row does to the account's contacts; `refused` when the contact could not take
 * it (its data merged over the stored data would pass the contacts limits): the row is skipped.
 */
export type UpsertOutcome = 'created' | 'updated' | 'unchanged' | { refused: string };

/**
 * The account's contact count moves by the contacts a chunk made once per `step` of the run named
 * `mark` (an import and its chunk), however often the chunk is re-run after a crash.
 */
export interface CountOnce {
  mark: string;
  step: number;
}

export interface UpsertOptions {
  /**
   * Names the contact an address gets when it is new, the same on every run of a chunk, so that a
   * run re-doing the chunk after a crash between an address claim and its contact takes the claim
   * back instead of waiting for it to go stale (a fresh id each time when absent).
   */
  idFor?: (email: string) => string;
  countOnce?: CountOnce;
  /**
   * The reads and claims of the plan this run made of these rows just before (planUpsert's
   * `reads`): used instead of reading or claiming again. No earlier run can have written a contact
   * under one of idFor's ids: contacts are written only after their chunk's plan is stored, and
   * this run stored it. Absent when the chunk is re-run from a stored plan.
   */
  planned?: unknown;
}

export interface ContactImportTarget {
  /** The kind of the account's list listId; undefined when it has none (another account's included). */
  listKind(accountId: string, listId: string): Promise<'static' | 'dynamic' | undefined>;
  /**
   * What upsertContacts would do with each row, in order; a later row with the same email sees
   * what the earlier one would have written. `unchanged`: the contact exists with these values and
   * is already in the list. `reads`: what the plan read, opaque, for an upsert of the same rows
   * right after it (UpsertOptions.planned). Read only without `idFor`; with it, the plan may take
   * the address claims of the contacts it would create, under idFor's ids (the same on every run
   * of the chunk, so a run after a crash takes them again), and upsertContacts does not take them
   * twice.
   */
  planUpsert(accountId: string, rows: readonly ContactRow[], listId?: string, ahead?: unknown, idFor?: (email: string) => string): Promise<{ outcomes: UpsertOutcome[]; reads?: unknown }>;
  /**
   * Optional: does ahead what planUpsert of `rows` (with the same listId and idFor) will do, while
   * the chunk before is being written, leaving out the addresses in `writing` (that chunk's: what
   * they hold is not settled yet). Its answer, opaque, is planUpsert's `ahead`: planUpsert does
   * only the addresses it does not cover. What the rows' contacts hold may change after the read,
   * as after any plan's read; upsertContacts meets such a change as it does then.
   */
  readAhead?(accountId: string, rows: readonly ContactRow[], writing: ReadonlySet<string>, listId?: string, idFor?: (email: string) => string): Promise<unknown>;
  /**
   * Creates or updates a contact per row by normalized email (never a second contact of an email,
   * never duplicate_contact); a row's empty fields leave the stored ones alone, its data keys are
   * merged over the stored data; adds each contact to listId; skips a row planUpsert would
   * refuse. Idempotent: the same rows again change nothing.
   */
  upsertContacts(accountId: string, rows: readonly ContactRow[], listId?: string, options?: UpsertOptions): Promise<{ created: number; updated: number }>;
  /** The run named `mark` is over: what upsertContacts kept to count each of its steps once can go. */
  finished?(accountId: string, mark: string): Promise<void>;
}
