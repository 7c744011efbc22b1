// Usage per account and calendar month (UTC): live sends counted when the provider accepts them,
// with an internal cost estimate for spend caps. Test-mode and suppressed sends never count.
import type { Channel } from '../accounts/schemas';
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';
import { UsageRepository } from './repository';
import type { Usage } from './schemas';

// The query schema the route parses with, where it has always been found.
export { usageQuery, type Usage } from './schemas';

export const periodOf = (at: Date | string): string => new Date(at).toISOString().slice(0, 7);

export async function recordSend(store: Store, accountId: string, channel: Channel, at: string, costMicros: number): Promise<void> {
  await new UsageRepository(store).addSend(accountId, periodOf(at), channel, costMicros);
}

export async function getUsage(deps: { store: Store; clock: Clock }, accountId: string, period?: string): Promise<Usage> {
  const wanted = period ?? periodOf(deps.clock.now());
  const rows = await new UsageRepository(deps.store).byChannel(accountId, wanted);
  return {
    period: wanted,
    total_send_count: rows.reduce((sum, r) => sum + r.send_count, 0),
    total_cost_micros: rows.reduce((sum, r) => sum + r.cost_micros, 0),
    channels: rows,
  };
}
