// Test recipients: the addresses an account in sandbox mode may mail besides its own, each proven
// by a one-time link. Limits, the wire view of an entry, and which entry an address has.
import type { TestRecipientItem } from './repository';
import type { TestRecipientView } from './schemas';

/** Spec limit; pending entries count too (decision recorded in docs/api-decisions.md). */
export const MAX_TEST_RECIPIENTS = 3;
/** Spec limit: test sends per verified address per UTC day. */
export const TEST_SENDS_PER_DAY = 10;
/**
 * Sandbox sends to a signed-up account's own address per UTC day (issue 28): enough to try every
 * feature, too few to make a sign-up a mailing cannon aimed at whatever address it signed up with.
 */
export const OWN_ADDRESS_SENDS_PER_DAY = 50;

export const toTestRecipientView = (item: TestRecipientItem): TestRecipientView => ({
  id: item.id,
  email: item.email,
  status: item.status,
  created_at: item.created_at,
  verified_at: item.verified_at,
});

/** The entry of an address; a verified one wins over a pending twin left by a race. */
export function entryOf(items: readonly TestRecipientItem[], email: string): TestRecipientItem | undefined {
  const matches = items.filter((i) => i.email === email);
  return matches.find((i) => i.status === 'verified') ?? matches[0];
}
