// Usage per account and calendar month (UTC): sends, transactional and broadcast apart, and their
// cost (shared/billing/usage/cost.ts). Both are booked when a send is accepted, in the spend
// reservation's one write (shared/billing/spend-caps/reserve.ts), and given back together when the send
// turns out unbillable (suppressed or failed before the provider took it, canceled, never stored).
// So a month's count is of the live sends accepted in it and not given back, queued ones included
// (docs/api-decisions.md). Test-mode sends and sends suppressed at acceptance never count.
import type { Store } from '../../db/store';
import type { Clock } from '../../ports/clock';
import { AccountRepository, type AccountItem } from '../../accounts/repository';
import type { ReputationConfig } from '../reputation/policy';
import { reputationOf } from '../reputation/service';
import { UsageRepository } from './repository';
import type { Usage } from './schemas';

// The query schema the route parses with, where it has always been found.
export { usageQuery, type Usage } from './schemas';

export const periodOf = (at: Date | string): string => new Date(at).toISOString().slice(0, 7);

/** The period's usage and, whatever the period, the account's reputation now (shared/billing/reputation). */
export async function getUsage(
  deps: { store: Store; clock: Clock; config?: ReputationConfig },
  /** The account as the caller holds it, or its id (then it is read). */
  who: string | Pick<AccountItem, 'id' | 'reputation_state' | 'reputation_since'>,
  period?: string,
): Promise<Usage> {
  const account = typeof who === 'string' ? ((await new AccountRepository(deps.store).get(who)) ?? { id: who }) : who;
  const accountId = account.id;
  const wanted = period ?? periodOf(deps.clock.now());
  const [rows, reputation] = await Promise.all([new UsageRepository(deps.store).byChannel(accountId, wanted), reputationOf(deps, account)]);
  const sum = (pick: (r: (typeof rows)[number]) => number) => rows.reduce((total, r) => total + pick(r), 0);
  return {
    period: wanted,
    total_send_count: sum((r) => r.send_count),
    broadcast_send_count: sum((r) => r.broadcast_send_count),
    total_cost_micros: sum((r) => r.cost_micros),
    channels: rows,
    reputation,
  };
}
