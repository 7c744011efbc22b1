// Usage counters in the store: one item per account and month, bumped with ADD so concurrent
// writers never lose an increment. A send's count (transactional or broadcast) and its cost are
// written together when the send is accepted, as the spend reservation
// (shared/billing/spend-caps/reserve.ts), and given back together when the send turns out
// unbillable: the send worker writes no usage (docs/api-decisions.md).
import { channels, type Channel } from '../../accounts/schemas';
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import type { ChannelUsage } from './schemas';

type ChannelCounters = Partial<Record<`send_count_${Channel}` | `broadcast_count_${Channel}` | `cost_micros_${Channel}`, number>>;

export type UsageItem = ItemKey &
  ChannelCounters & {
    entity: 'usage';
    account_id: string;
    period: string;
    /** The period's reserved cost over every channel: what a hard cap compares with. */
    spent_micros?: number;
    /** `key_spent_<key id>`: the same, per API key (a key cap compares with it). */
    [keySpent: `key_spent_${string}`]: number | undefined;
  };

export const sendKinds = ['transactional', 'broadcast'] as const;
export type SendKind = (typeof sendKinds)[number];

/** How a message counts: as broadcast when a broadcast sent it. */
export const sendKindOf = (message: { broadcast_id?: string }): SendKind => (message.broadcast_id === undefined ? 'transactional' : 'broadcast');

const countAttr = (channel: Channel, kind: SendKind) => (kind === 'broadcast' ? (`broadcast_count_${channel}` as const) : (`send_count_${channel}` as const));
const costAttr = (channel: Channel) => `cost_micros_${channel}` as const;
const keySpentAttr = (keyId: string) => `key_spent_${keyId}` as const;

/**
 * One reservation: `count` sends of a channel and kind, and `micros` (their whole cost, 0 for a
 * channel that costs nothing) on the account's and the key's spend, each kept within its room if given.
 */
export interface Reservation {
  channel: Channel;
  kind: SendKind;
  count: number;
  keyId: string;
  micros: number;
  /** The most the account's spend may be before this reservation (hard cap minus `micros`). */
  accountRoom?: number;
  /** The same for the key's spend. */
  keyRoom?: number;
}

export interface Spend {
  spent: number;
  keySpent: number;
}

const IDENTITY = 'SET entity = :entity, account_id = :account, period = :period';

export class UsageRepository {
  constructor(private readonly store: Store) {}

  /**
   * Adds the count and the cost in one conditional write, which holds only while the account's and
   * the key's spend stay within their rooms: exact under any concurrency. The spend after it, or
   * undefined when a room was too small (nothing written).
   */
  async reserve(accountId: string, period: string, r: Reservation): Promise<Spend | undefined> {
    const conditions: string[] = [];
    const { expression, names, values } = adds(accountId, period, r, 1);
    if (r.accountRoom !== undefined) {
      conditions.push('(attribute_not_exists(spent_micros) OR spent_micros <= :accountRoom)');
      values[':accountRoom'] = r.accountRoom;
    }
    if (r.keyRoom !== undefined) {
      conditions.push('(attribute_not_exists(#keySpent) OR #keySpent <= :keyRoom)');
      names['#keySpent'] = keySpentAttr(r.keyId);
      values[':keyRoom'] = r.keyRoom;
    }
    let after: UsageItem | undefined;
    const ok = await wrote(
      this.store
        .update<UsageItem>(keys.usage(accountId, period), {
          expression,
          condition: conditions.length > 0 ? conditions.join(' AND ') : undefined,
          names,
          values,
        })
        .then((item) => (after = item)),
    );
    return ok && after ? spendIn(after, r.keyId) : undefined;
  }

  /** Gives a reservation back, count and cost (sends refused or found unbillable after they were accepted). */
  async release(accountId: string, period: string, r: Omit<Reservation, 'accountRoom' | 'keyRoom'>): Promise<void> {
    await this.store.update(keys.usage(accountId, period), adds(accountId, period, r, -1));
  }

  async spend(accountId: string, period: string, keyId: string): Promise<Spend> {
    const item = await this.store.get<UsageItem>(keys.usage(accountId, period));
    return item ? spendIn(item, keyId) : { spent: 0, keySpent: 0 };
  }

  /** Every channel's counters in the period, zero where nothing was sent. */
  async byChannel(accountId: string, period: string): Promise<ChannelUsage[]> {
    const item: ChannelCounters = (await this.store.get<UsageItem>(keys.usage(accountId, period))) ?? {};
    return channels.map((channel) => ({
      channel,
      send_count: Number(item[countAttr(channel, 'transactional')] ?? 0),
      broadcast_send_count: Number(item[countAttr(channel, 'broadcast')] ?? 0),
      cost_micros: Number(item[costAttr(channel)] ?? 0),
    }));
  }
}

/**
 * The ADDs of a reservation (`sign` 1) or of its release (-1): the count always, the cost only when
 * there is one, so a channel that costs nothing is counted without a spend of 0 on the key.
 */
function adds(accountId: string, period: string, r: Omit<Reservation, 'accountRoom' | 'keyRoom'>, sign: 1 | -1) {
  const names: Record<string, string> = { '#count': countAttr(r.channel, r.kind) };
  const values: Record<string, unknown> = { ':entity': 'usage', ':account': accountId, ':period': period, ':count': sign * r.count };
  let expression = `${IDENTITY} ADD #count :count`;
  if (r.micros !== 0) {
    expression += ', spent_micros :micros, #cost :micros, #keySpent :micros';
    Object.assign(names, { '#cost': costAttr(r.channel), '#keySpent': keySpentAttr(r.keyId) });
    values[':micros'] = sign * r.micros;
  }
  return { expression, names, values };
}

const spendIn = (item: UsageItem, keyId: string): Spend => ({ spent: Number(item.spent_micros ?? 0), keySpent: Number(item[keySpentAttr(keyId)] ?? 0) });
