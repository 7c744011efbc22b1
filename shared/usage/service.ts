// Usage per account and calendar month (UTC): live sends counted when the provider accepts them,
// with an internal cost estimate for spend caps. Test-mode and suppressed sends never count.
import * as z from 'zod';
import { channels, type Channel } from '../accounts/service';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';

export const periodOf = (at: Date | string): string => new Date(at).toISOString().slice(0, 7);

export const usageQuery = z
  .object({ period: z.string().regex(/^\d{4}-(0[1-9]|1[0-2])$/, 'expected YYYY-MM').optional() });

export interface Usage {
  period: string;
  total_send_count: number;
  total_cost_micros: number;
  channels: Array<{ channel: Channel; send_count: number; cost_micros: number }>;
}

const countAttr = (channel: Channel) => `send_count_${channel}`;
const costAttr = (channel: Channel) => `cost_micros_${channel}`;

export async function recordSend(store: Store, accountId: string, channel: Channel, at: string, costMicros: number): Promise<void> {
  const period = periodOf(at);
  await store.update(keys.usage(accountId, period), {
    expression: 'SET entity = :entity, account_id = :account, period = :period ADD #count :one, #cost :cost',
    names: { '#count': countAttr(channel), '#cost': costAttr(channel) },
    values: { ':entity': 'usage', ':account': accountId, ':period': period, ':one': 1, ':cost': costMicros },
  });
}

export async function getUsage(deps: { store: Store; clock: Clock }, accountId: string, period?: string): Promise<Usage> {
  const wanted = period ?? periodOf(deps.clock.now());
  const item = (await deps.store.get<Record<string, unknown>>(keys.usage(accountId, wanted))) ?? {};
  const rows = channels.map((channel) => ({
    channel,
    send_count: Number(item[countAttr(channel)] ?? 0),
    cost_micros: Number(item[costAttr(channel)] ?? 0),
  }));
  return {
    period: wanted,
    total_send_count: rows.reduce((sum, r) => sum + r.send_count, 0),
    total_cost_micros: rows.reduce((sum, r) => sum + r.cost_micros, 0),
    channels: rows,
  };
}
