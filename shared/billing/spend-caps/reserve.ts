// Enforcing spend caps where sends are accepted (shared/sending/messages/send.ts): each live send reserves
// its cost (shared/billing/usage/cost.ts) on the period's usage item in one conditional write that holds
// only while the account's spend, and the key's, stay within their hard caps, so 50 racing sends
// against room for 10 admit exactly 10 in any number of processes. The same write counts the sends
// (GET /v1/usage's send counts). A send refused or found unbillable after its reservation gives both
// back (releaseSpend). Test-mode sends reserve and count nothing; a channel that costs nothing is
// counted, never capped.
import type { Channel } from '../../accounts/schemas';
import { keys } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { ApiError } from '../../errors';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import { costOf, type CostConfig } from '../usage/cost';
import { sendKindOf, UsageRepository, type SendKind, type Spend } from '../usage/repository';
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

/** One accepted live send, counted and perhaps costing something; `ref` is the caller's own handle on it. */
export interface SpendRequest<T> {
  ref: T;
  channel: Channel;
  /** `broadcast` for a message of a broadcast. */
  kind: SendKind;
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
 * Counts `items` (accepted, not test mode, in the order given) and reserves their cost in the
 * period of `now`. Each channel's sends of each kind reserve together; when the room is too small
 * for all of them, the first ones that fit are reserved and the rest are returned, refused.
 */
export async function reserveSpend<T>(deps: SpendDeps, sender: SpendSender, items: readonly SpendRequest<T>[], now: Date, capsRead?: Promise<SendCaps>): Promise<T[]> {
  if (sender.testMode || items.length === 0) return [];
  const groups = new Map<string, SpendRequest<T>[]>();
  for (const item of items) groups.set(`${item.channel}:${item.kind}`, [...(groups.get(`${item.channel}:${item.kind}`) ?? []), item]);
  const period = periodOf(now);
  let caps: Promise<SendCaps> | undefined = capsRead;
  const refused: T[] = [];
  for (const group of groups.values()) {
    const { channel, kind } = group[0] as SpendRequest<T>;
    const micros = costOf(deps.config, { channel, testMode: false });
    if (micros === 0) {
      // Nothing to cap: the count alone, unconditionally.
      await new UsageRepository(deps.store).reserve(sender.accountId, period, { channel, kind, count: group.length, keyId: sender.keyId, micros: 0 });
      continue;
    }
    caps ??= new SpendCapRepository(deps.store).forSend(sender.accountId, sender.keyId);
    const admitted = await reserveCapped(deps, sender, group, { period, kind, micros, caps: await caps, now });
    refused.push(...group.slice(admitted).map((i) => i.ref));
  }
  return refused;
}

/** Reserves as many of `group` (one channel and kind, each costing `micros`) as the caps leave room for: how many. */
async function reserveCapped<T>(
  deps: SpendDeps,
  sender: SpendSender,
  group: readonly SpendRequest<T>[],
  at: { period: string; kind: SendKind; micros: number; caps: SendCaps; now: Date },
): Promise<number> {
  const { period, kind, micros, caps } = at;
  const channel = (group[0] as SpendRequest<T>).channel;
  const usage = new UsageRepository(deps.store);
  let want = group.length;
  for (let tries = 0; tries < MAX_TRIES && want > 0; tries++) {
    if (tries > 0) want = Math.min(want, fitting(caps, await usage.spend(sender.accountId, period, sender.keyId), micros));
    if (want === 0) break;
    const total = want * micros;
    const accountRoom = hardOf(caps.account) === undefined ? undefined : (hardOf(caps.account) as number) - total;
    const keyRoom = hardOf(caps.key) === undefined ? undefined : (hardOf(caps.key) as number) - total;
    // A room below zero admits nothing, even before the period's first write.
    if ((accountRoom ?? 0) < 0 || (keyRoom ?? 0) < 0) continue;
    const after = await usage.reserve(sender.accountId, period, { channel, kind, count: want, keyId: sender.keyId, micros: total, accountRoom, keyRoom });
    if (!after) continue;
    const alertAt = { period, messageId: (group[0] as SpendRequest<T>).messageId, now: at.now.toISOString() };
    await alertIfReached(deps, caps.account, after.spent, alertAt);
    await alertIfReached(deps, caps.key, after.keySpent, alertAt);
    return want;
  }
  return 0;
}

/** What a stored message needs for its reservation to be given back. */
export interface ReservedMessage {
  account_id: string;
  key_id: string;
  channel: Channel;
  test_mode: boolean;
  created_at: string;
  /** A message of a broadcast was counted as broadcast. */
  broadcast_id?: string;
  /** A send suppressed at acceptance reserved nothing. */
  accepted_as?: 'suppressed';
}

/**
 * Gives back a message's reservation, its count and its cost, in the period it was accepted in,
 * when it turns out not to be billable: suppressed or failed before the provider took it, or
 * canceled. The caller makes sure it happens once per message (the event or status write that
 * decided it was its own).
 */
export async function releaseSpend(deps: { store: Store; config: CostConfig }, message: ReservedMessage): Promise<void> {
  if (message.test_mode || message.accepted_as === 'suppressed') return;
  const kind = sendKindOf(message);
  await giveBack(deps, { accountId: message.account_id, keyId: message.key_id }, periodOf(message.created_at), { channel: message.channel, kind });
}

/** One live send's count and cost off the period's usage. */
async function giveBack(deps: { store: Store; config: CostConfig }, sender: Pick<SpendSender, 'accountId' | 'keyId'>, period: string, send: { channel: Channel; kind: SendKind }): Promise<void> {
  const micros = costOf(deps.config, { channel: send.channel, testMode: false });
  await new UsageRepository(deps.store).release(sender.accountId, period, { ...send, count: 1, keyId: sender.keyId, micros });
}

/**
 * One accepting attempt's reservation for one send, as it was made: enough to give it back
 * exactly, whatever the cost config says later. A send job carries it (SendJob.reservation).
 */
export interface HeldReservation {
  /** The accepting attempt (one per request: shared/sending/messages/send.ts). */
  attempt: string;
  period: string;
  channel: Channel;
  kind: SendKind;
  key_id: string;
  micros: number;
}

/** What `item`'s reservation by `attempt` in the period of `now` holds. */
export function heldReservation(deps: { config: CostConfig }, sender: Pick<SpendSender, 'keyId'>, attempt: string, item: Pick<SpendRequest<unknown>, 'channel' | 'kind'>, now: Date): HeldReservation {
  return { attempt, period: periodOf(now), channel: item.channel, kind: item.kind, key_id: sender.keyId, micros: costOf(deps.config, { channel: item.channel, testMode: false }) };
}

/** How long the mark of a reservation given back is kept: past a schedule's 90 days and a queue's retention. */
const RETURNED_MARK_S = 180 * 86_400;

/**
 * Gives back one attempt's reservation for one message, once however often and by whomever it
 * is asked (the request itself, each delivery of each of its send jobs): it first creates the
 * message's mark for that attempt (keys.spendReturned) and gives back only when it made it. A
 * kill between the mark and the give-back keeps the reservation (the count errs high). True when
 * this call gave it back.
 */
export async function giveBackOnce(deps: { store: Store; clock: Clock }, accountId: string, messageId: string, held: HeldReservation): Promise<boolean> {
  const mark = { ...keys.spendReturned(messageId, held.attempt), entity: 'spend_returned', expires_at: Math.floor(deps.clock.now().getTime() / 1000) + RETURNED_MARK_S };
  if (!(await wrote(deps.store.create(mark)))) return false;
  await new UsageRepository(deps.store).release(accountId, held.period, { channel: held.channel, kind: held.kind, count: 1, keyId: held.key_id, micros: held.micros });
  return true;
}

/**
 * After a failed write of accepted sends: gives back, once each, the reservations of `attempt`
 * whose message it did not store (none stored, or one stored by another attempt). Best effort; a
 * reservation left behind only makes the cap stricter and the count higher.
 */
export async function releaseUnstoredSpend(
  deps: { store: Store; clock: Clock; logger: Logger },
  accountId: string,
  reserved: ReadonlyArray<{ messageId: string; held: HeldReservation }>,
  /** The attempt that stored each of these messages, when stored (the sending area reads them; spend caps do not know messages). */
  storedBy: (messageIds: string[]) => Promise<ReadonlyMap<string, { reserved_by?: string }>>,
): Promise<void> {
  if (reserved.length === 0) return;
  try {
    const stored = await storedBy(reserved.map((r) => r.messageId));
    for (const r of reserved.filter((x) => stored.get(x.messageId)?.reserved_by !== x.held.attempt)) {
      await giveBackOnce(deps, accountId, r.messageId, r.held);
    }
  } catch (error) {
    deps.logger.warn('could not give back spend reservations after a failed write', { error });
  }
}
