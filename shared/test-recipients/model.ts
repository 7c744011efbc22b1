// Test recipients: the addresses an account in sandbox mode may mail besides its own, each proven
// by a one-time link. Items, limits and the one read every use case shares.
import { accountPartition, keys, type ItemKey } from '../db/keys';
import type { Store } from '../db/store';
import type { TestRecipientStatus, TestRecipientView } from './schemas';

/** Spec limit; pending entries count too (decision recorded in docs/api-decisions.md). */
export const MAX_TEST_RECIPIENTS = 3;
/** Spec limit: test sends per verified address per UTC day. */
export const TEST_SENDS_PER_DAY = 10;
export const LINK_TTL_MS = 24 * 3600_000;
export const TOKEN_LENGTH = 40;

export interface TestRecipientItem extends ItemKey {
  entity: 'test_recipient';
  id: string;
  account_id: string;
  /** Normalized: trimmed and lower-cased. */
  email: string;
  status: TestRecipientStatus;
  created_at: string;
  verified_at: string | null;
  /** When the newest link stops working; null once verified. */
  token_expires_at: string | null;
  /** SHA-256 of the newest link's token: only that link verifies. Absent once verified. */
  token_digest?: string;
}

/** Looked up by the SHA-256 of the link token; deleted by the click that uses it. */
export interface TestRecipientTokenItem extends ItemKey {
  entity: 'test_recipient_token';
  account_id: string;
  recipient_id: string;
  /** Epoch seconds (the table's TTL attribute). Checked on use: TTL deletion lags or never runs. */
  expires_at: number;
}

export interface TestSendCounterItem extends ItemKey {
  entity: 'test_send_counter';
  sends: number;
  expires_at: number;
}

export const toTestRecipientView = (item: TestRecipientItem): TestRecipientView => ({
  id: item.id,
  email: item.email,
  status: item.status,
  created_at: item.created_at,
  verified_at: item.verified_at,
});

/**
 * Every test recipient of an account, oldest first. There are at most three (a few more for a
 * moment while concurrent registrations settle), so this is one small Query.
 */
export async function allTestRecipients(store: Store, accountId: string): Promise<TestRecipientItem[]> {
  const items: TestRecipientItem[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const out = await store.query({
      keyCondition: 'pk = :pk AND begins_with(sk, :prefix)',
      values: { ':pk': accountPartition(accountId), ':prefix': keys.testRecipientPrefix },
      ascending: true,
      startKey,
    });
    items.push(...(out.items as unknown as TestRecipientItem[]));
    startKey = out.lastKey;
  } while (startKey);
  return items;
}

/** The entry of an address; a verified one wins over a pending twin left by a race. */
export function entryOf(items: readonly TestRecipientItem[], email: string): TestRecipientItem | undefined {
  const matches = items.filter((i) => i.email === email);
  return matches.find((i) => i.status === 'verified') ?? matches[0];
}
