// The suppression list: recipients that must not be mailed on a channel. One item per
// (account, channel, normalized recipient), so checks are single reads and writes are upserts.
import type { Channel } from '../accounts/service';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { normalizeAddress } from '../email/address';
import type { Clock } from '../ports/clock';

export type SuppressionState = 'suppressed' | 'unsubscribed';

export interface SuppressionItem {
  pk: string;
  sk: string;
  entity: 'suppression';
  account_id: string;
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  created_at: string;
  updated_at: string;
  gsi2pk: string;
  gsi2sk: string;
}

export interface SuppressionView {
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  updated_at: string;
}

export const toSuppressionView = (item: SuppressionItem): SuppressionView => ({
  channel: item.channel,
  recipient: item.recipient,
  state: item.state,
  reason: item.reason,
  updated_at: item.updated_at,
});

/** Email addresses are trimmed and lower-cased; other channels' recipients are trimmed. */
export function normalizeRecipient(channel: Channel, recipient: string): string {
  return channel === 'email' ? normalizeAddress(recipient) : recipient.trim();
}

export const suppressionListPartition = (accountId: string): string => `ACCT#${accountId}#SUPP`;

export function suppressionItem(
  accountId: string,
  entry: { channel: Channel; recipient: string; state: SuppressionState; reason: string },
  now: string,
): SuppressionItem {
  const recipient = normalizeRecipient(entry.channel, entry.recipient);
  return {
    ...keys.suppression(accountId, entry.channel, recipient),
    entity: 'suppression',
    account_id: accountId,
    channel: entry.channel,
    recipient,
    state: entry.state,
    reason: entry.reason,
    created_at: now,
    updated_at: now,
    // by-filter index: the account's suppressions, most recently changed first.
    gsi2pk: suppressionListPartition(accountId),
    gsi2sk: `${now}#${entry.channel}#${recipient}`,
  };
}

/** Adds or refreshes a suppression (manual add, import, hard bounce, complaint). */
export async function suppress(
  deps: { store: Store; clock: Clock },
  accountId: string,
  entry: { channel: Channel; recipient: string; state?: SuppressionState; reason: string },
): Promise<SuppressionItem> {
  const item = suppressionItem(accountId, { ...entry, state: entry.state ?? 'suppressed' }, deps.clock.now().toISOString());
  await deps.store.put(item);
  return item;
}

export async function findSuppression(store: Store, accountId: string, channel: Channel, recipient: string): Promise<SuppressionItem | undefined> {
  return store.get<SuppressionItem>(keys.suppression(accountId, channel, normalizeRecipient(channel, recipient)));
}

/** Which of many recipients are suppressed, in one batched read. */
export async function findSuppressed(store: Store, accountId: string, channel: Channel, recipients: readonly string[]): Promise<Set<string>> {
  const unique = [...new Set(recipients.map((r) => normalizeRecipient(channel, r)))];
  const found = await store.batchGet<SuppressionItem>(unique.map((r) => keys.suppression(accountId, channel, r)));
  return new Set(found.map((i) => i.recipient));
}
