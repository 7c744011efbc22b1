// Enforcing spend caps where sends are accepted (shared/sending/messages/send.ts): each live send reserves
// its cost (shared/billing/usage/cost.ts) on the period's usage item in one conditional write that holds
// only while the account's spend, and the key's, stay within their hard caps, so 50 racing sends
// against room for 10 admit exactly 10 in any number of processes. A send refused or found
// unbillable after its reservation gives it back (releaseSpend). Test-mode and zero-cost sends
// reserve nothing and are never capped.
import type { Channel } from '../../accounts/schemas';
import type { Store } from '../../db/store';
import { ApiError } from '../../errors';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import { costOf, type CostConfig } from '../usage/cost';
import { UsageRepository, type Spend } from '../usage/repository';
import { periodOf } from '../usage/service';
import { alertIfReached } from './alert';
import { SpendCapRepository, type SpendCapItem } from './repository';

export interface SpendDeps {
  store: Store;
  queue: Queue;
  clock: Clock;
  logger: Logger;
  config: CostConfig;
}

export interface SpendSender {
  accountId: string;
  keyId: string;
  testMode: boolean;
}

/** One accepted send that may cost something; `ref` is the caller's own handle on it. */
export interface SpendRequest<T> {
  ref: T;
  channel: Channel;
  messageId: string;
}

/** A batch that meets others racing for the last of the room tries again with what is left, this often. */
const MAX_TRIES = 8;

export const spendCapExceeded = (): ApiError =>
  new ApiError('spend_cap_exceeded', 'this send would take the period\'s cost past the hard spend cap; raise or remove the cap (PUT /v1/spend-caps) or wait for the next period');

const hardOf = (cap: SpendCapItem | undefined): number | undefined => (cap?.hard_limit_micros === null ? undefined : cap?.hard_limit_micros);

/** How many sends of `micros` each still fit under both hard caps. */
function fitting(caps: { account?: SpendCapItem; key?: SpendCapItem }, spend: Spend, micros: number): number {
  let fit = Number.POSITIVE_INFINITY;
  const account = hardOf(caps.account);
  const key = hardOf(caps.key);
  if (account !== undefined) fit = Math.min(fit, Math.floor((account - spend.spent) / micros));
  if (key !== undefined) fit = Math.min(fit, Math.floor((key - spend.keySpent) / micros));
  return Math.max(0, fit);
}

export type SendCaps = { account?: SpendCapItem; key?: SpendCapItem };

/**
 * The caps that hold the sender's live sends, read ahead so the read overlaps the caller's own
 * writes (undefined in test mode, which is never capped). Reading them before the reservation
 * is what reading them just before it would be: a cap changed meanwhile races the send either way.
 */
export function readCaps(deps: Pick<SpendDeps, 'store'>, sender: SpendSender): Promise<SendCaps> | undefined {
  if (sender.testMode) return undefined;
  const read = new SpendCapRepository(deps.store).forSend(sender.accountId, sender.keyId);
  read.catch(() => undefined); // awaited (and thrown) by reserveSpend; never an unhandled rejection
  return read;
}

/**
 * Reserves the cost of `items` (accepted, not test mode, in the order given) in the period of
 * `now`. Each channel's sends reserve together; when the room is too small for all of them, the
 * first ones that fit are reserved and the rest are returned, refused.
 */
export async function reserveSpend<T>(deps: SpendDeps, sender: SpendSender, items: readonly SpendRequest<T>[], now: Date, capsRead?: Promise<SendCaps>): Promise<T[]> {
  if (sender.testMode || items.length === 0) return [];
  const byChannel = new Map<Channel, SpendRequest<T>[]>();
  for (const item of items) {
    if (costOf(deps.config, { channel: item.channel, testMode: false }) === 0) continue;
    byChannel.set(item.channel, [...(byChannel.get(item.channel) ?? []), item]);
  }
  if (byChannel.size === 0) return [];
  const period = periodOf(now);
  const caps = await (capsRead ?? new SpendCapRepository(deps.store).forSend(sender.accountId, sender.keyId));
  const usage = new UsageRepository(deps.store);
  const refused: T[] = [];
  for (const [channel, group] of byChannel) {
    const micros = costOf(deps.config, { channel, testMode: false });
    let want = group.length;
    let admitted = 0;
    for (let tries = 0; tries < MAX_TRIES && want > 0; tries++) {
      if (tries > 0) want = Math.min(want, fitting(caps, await usage.spend(sender.accountId, period, sender.keyId), micros));
      if (want === 0) break;
      const total = want * micros;
      const accountRoom = hardOf(caps.account) === undefined ? undefined : (hardOf(caps.account) as number) - total;
      const keyRoom = hardOf(caps.key) === undefined ? undefined : (hardOf(caps.key) as number) - total;
      // A room below zero admits nothing, even before the period's first write.
      if ((accountRoom ?? 0) < 0 || (keyRoom ?? 0) < 0) continue;
      const after = await usage.reserve(sender.accountId, period, { channel, keyId: sender.keyId, micros: total, accountRoom, keyRoom });
      if (!after) continue;
      admitted = want;
      const at = { period, messageId: (group[0] as SpendRequest<T>).messageId, now: now.toISOString() };
      await alertIfReached(deps, caps.account, after.spent, at);
      await alertIfReached(deps, caps.key, after.keySpent, at);
      break;
    }
    refused.push(...group.slice(admitted).map((i) => i.ref));
  }
  return refused;
}

/** What a stored message needs for its reservation to be given back. */
export interface ReservedMessage {
  account_id: string;
  key_id: string;
  channel: Channel;
  test_mode: boolean;
  created_at: string;
}

/**
 * Gives back a message's reservation (in the period it was accepted in) when it turns out not to
 * be billable: suppressed or failed before the provider took it, or canceled. The caller makes
 * sure it happens once per message (the event or status write that decided it was its own).
 */
export async function releaseSpend(deps: { store: Store; config: CostConfig }, message: ReservedMessage): Promise<void> {
  const micros = costOf(deps.config, { channel: message.channel, testMode: message.test_mode });
  if (micros === 0) return;
  await new UsageRepository(deps.store).release(message.account_id, periodOf(message.created_at), { channel: message.channel, keyId: message.key_id, micros });
}

/**
 * After a failed write of accepted sends: gives back the reservations of those whose message was
 * not stored (their claims are released, so a retry reserves afresh). Best effort; a reservation
 * left behind only makes the cap stricter.
 */
export async function releaseUnstoredSpend(
  deps: { store: Store; logger: Logger; config: CostConfig },
  sender: SpendSender,
  reserved: readonly Omit<SpendRequest<unknown>, 'ref'>[],
  acceptedAt: string,
  /** Which of these messages were stored (the sending area reads them; spend caps do not know messages). */
  storedOf: (messageIds: string[]) => Promise<{ has(messageId: string): boolean }>,
): Promise<void> {
  if (sender.testMode || reserved.length === 0) return;
  try {
    const stored = await storedOf(reserved.map((r) => r.messageId));
    for (const r of reserved.filter((x) => !stored.has(x.messageId))) {
      await releaseSpend(deps, { account_id: sender.accountId, key_id: sender.keyId, channel: r.channel, test_mode: false, created_at: acceptedAt });
    }
  } catch (error) {
    deps.logger.warn('could not give back spend reservations after a failed write', { error });
  }
}
