// Usage counters in the store: one item per account and month, one count and one cost attribute
// per channel, bumped with ADD so concurrent sends never lose an increment.
import { channels, type Channel } from '../accounts/schemas';
import { keys, type ItemKey } from '../db/keys';
import type { Store } from '../db/store';
import type { ChannelUsage } from './schemas';

type ChannelCounters = Partial<Record<`send_count_${Channel}` | `cost_micros_${Channel}`, number>>;

export type UsageItem = ItemKey & ChannelCounters & { entity: 'usage'; account_id: string; period: string };

const countAttr = (channel: Channel) => `send_count_${channel}` as const;
const costAttr = (channel: Channel) => `cost_micros_${channel}` as const;

export class UsageRepository {
  constructor(private readonly store: Store) {}

  async addSend(accountId: string, period: string, channel: Channel, costMicros: number): Promise<void> {
    await this.store.update(keys.usage(accountId, period), {
      expression: 'SET entity = :entity, account_id = :account, period = :period ADD #count :one, #cost :cost',
      names: { '#count': countAttr(channel), '#cost': costAttr(channel) },
      values: { ':entity': 'usage', ':account': accountId, ':period': period, ':one': 1, ':cost': costMicros },
    });
  }

  /** Every channel's counters in the period, zero where nothing was sent. */
  async byChannel(accountId: string, period: string): Promise<ChannelUsage[]> {
    const item: ChannelCounters = (await this.store.get<UsageItem>(keys.usage(accountId, period))) ?? {};
    return channels.map((channel) => ({
      channel,
      send_count: Number(item[countAttr(channel)] ?? 0),
      cost_micros: Number(item[costAttr(channel)] ?? 0),
    }));
  }
}
