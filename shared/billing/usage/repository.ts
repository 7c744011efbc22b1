// Usage counters in the store: one item per account and month, bumped with ADD so concurrent
// writers never lose an increment. Counts are written when the provider accepts a send (split
// into transactional and broadcast sends); cost is written when a send is accepted, as the spend
// reservation (shared/billing/spend-caps/reserve.ts), and given back when the send turns out unbillable.
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

export type SendKind = 'transactional' | 'broadcast';

const countAttr = (channel: Channel, kind: SendKind) => (kind === 'broadcast' ? (`broadcast_count_${channel}` as const) : (`send_count_${channel}` as const));
const costAttr = (channel: Channel) => `cost_micros_${channel}` as const;
const keySpentAttr = (keyId: string) => `key_spent_${keyId}` as const;

/** One reservation: `micros` on the account's and the key's spend, each kept within its room if given. */
export interface Reservation {
  channel: Channel;
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

  /** One send the provider accepted. */
  async addSend(accountId: string, period: string, channel: Channel, kind: SendKind): Promise<void> {
    await this.store.update(keys.usage(accountId, period), {
      expression: `${IDENTITY} ADD #count :one`,
      names: { '#count': countAttr(channel, kind) },
      values: { ':entity': 'usage', ':account': accountId, ':period': period, ':one': 1 },
    });
  }

  /**
   * Adds the cost in one conditional write, which holds only while the account's and the key's
   * spend stay within their rooms: exact under any concurrency. The spend after it, or undefined
   * when a room was too small (nothing written).
   */
  async reserve(accountId: string, period: string, r: Reservation): Promise<Spend | undefined> {
    const conditions: string[] = [];
    const values: Record<string, unknown> = { ':entity': 'usage', ':account': accountId, ':period': period, ':micros': r.micros };
    if (r.accountRoom !== undefined) {
      conditions.push('(attribute_not_exists(spent_micros) OR spent_micros <= :accountRoom)');
      values[':accountRoom'] = r.accountRoom;
    }
    if (r.keyRoom !== undefined) {
      conditions.push('(attribute_not_exists(#keySpent) OR #keySpent <= :keyRoom)');
      values[':keyRoom'] = r.keyRoom;
    }
    let after: UsageItem | undefined;
    const ok = await wrote(
      this.store
        .update<UsageItem>(keys.usage(accountId, period), {
          expression: `${IDENTITY} ADD spent_micros :micros, #cost :micros, #keySpent :micros`,
          condition: conditions.length > 0 ? conditions.join(' AND ') : undefined,
          names: { '#cost': costAttr(r.channel), '#keySpent': keySpentAttr(r.keyId) },
          values,
        })
        .then((item) => (after = item)),
    );
    return ok && after ? spendIn(after, r.keyId) : undefined;
  }

  /** Gives a reservation back (a send refused or found unbillable after it was accepted). */
  async release(accountId: string, period: string, r: Pick<Reservation, 'channel' | 'keyId' | 'micros'>): Promise<void> {
    await this.store.update(keys.usage(accountId, period), {
      expression: `${IDENTITY} ADD spent_micros :minus, #cost :minus, #keySpent :minus`,
      names: { '#cost': costAttr(r.channel), '#keySpent': keySpentAttr(r.keyId) },
      values: { ':entity': 'usage', ':account': accountId, ':period': period, ':minus': -r.micros },
    });
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

const spendIn = (item: UsageItem, keyId: string): Spend => ({ spent: Number(item.spent_micros ?? 0), keySpent: Number(item[keySpentAttr(keyId)] ?? 0) });
