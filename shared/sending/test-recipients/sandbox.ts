// What the send path asks while an account is in sandbox mode: may this address be mailed, and
// has it had its test sends for today.
import type { AccountItem } from '../../accounts/service';
import type { Store } from '../../db/store';
import { normalizeAddress } from '../../formats/address';
import { ApiError } from '../../errors';
import type { Clock } from '../../ports/clock';
import { entryOf, OWN_ADDRESS_SENDS_PER_DAY, TEST_SENDS_PER_DAY } from './model';
import { TestRecipientRepository, type TestRecipientItem } from './repository';

const DAY_MS = 24 * 3600_000;

export async function findTestRecipientByEmail(store: Store, accountId: string, email: string): Promise<TestRecipientItem | undefined> {
  return entryOf(await new TestRecipientRepository(store).listAll(accountId), normalizeAddress(email));
}

export async function isVerifiedTestRecipient(store: Store, accountId: string, email: string): Promise<boolean> {
  return (await findTestRecipientByEmail(store, accountId, email))?.status === 'verified';
}

/** The account's verified addresses in one read, for checking a whole batch. */
export async function verifiedTestRecipientAddresses(store: Store, accountId: string): Promise<Set<string>> {
  const items = await new TestRecipientRepository(store).listAll(accountId);
  return new Set(items.filter((i) => i.status === 'verified').map((i) => i.email));
}

/** Which sandbox allowance a send draws on: a verified test recipient's, or the account address's. */
export type SandboxQuota = 'test_recipient' | 'account_address';

/**
 * Whether sandbox mail to the account's own address is counted: for an account made by sign-up
 * (it carries owner_verified), whose address anyone could have typed in. An account the operator
 * made (the staff route, `npm start`'s own) has the operator's word for its address and is not
 * counted (docs/api-decisions.md, issue 28).
 */
export const ownAddressCounted = (account: Pick<AccountItem, 'owner_verified'>): boolean => account.owner_verified !== undefined;

const LIMITS: Record<SandboxQuota, { perDay: number; who: string }> = {
  test_recipient: { perDay: TEST_SENDS_PER_DAY, who: 'test sends' },
  account_address: { perDay: OWN_ADDRESS_SENDS_PER_DAY, who: 'sandbox sends to the account address' },
};

/**
 * Counts one sandbox send to an address in the current UTC day: 10 a day to a verified test
 * recipient, 50 to a signed-up account's own address. Past that it throws 429 test_send_daily_limit with
 * Retry-After set to the next UTC midnight. Call it once per message that will be sent (after the
 * idempotency claim is known, so a replayed request is not counted twice).
 */
export async function admitTestSend(deps: { store: Store; clock: Clock }, accountId: string, email: string, quota: SandboxQuota = 'test_recipient'): Promise<void> {
  const recipient = normalizeAddress(email);
  const { perDay, who } = LIMITS[quota];
  const now = deps.clock.now();
  const day = now.toISOString().slice(0, 10);
  const nextDayMs = Date.parse(`${day}T00:00:00.000Z`) + DAY_MS;
  // Kept a day past its own so a late reader still finds it; TTL removes it after that.
  const expiresAt = Math.floor((nextDayMs + DAY_MS) / 1000);
  if (await new TestRecipientRepository(deps.store).countTestSend(accountId, recipient, day, perDay, expiresAt)) return;
  throw new ApiError('test_send_daily_limit', `${recipient} has had its ${perDay} ${who} today (UTC); more are allowed from 00:00 UTC`, {
    headers: { 'retry-after': String(Math.max(1, Math.ceil((nextDayMs - now.getTime()) / 1000))) },
  });
}
