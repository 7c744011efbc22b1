// Usage per account and calendar month (UTC). Sends are counted when the provider accepts them,
// transactional and broadcast apart; the cost (shared/billing/usage/cost.ts) is reserved when a send is
// accepted (shared/billing/spend-caps/reserve.ts). Test-mode and suppressed sends never count.
import type { Channel } from '../../accounts/schemas';
import type { Store } from '../../db/store';
import { storeTally, type Tally } from '../../db/tally';
import type { Clock } from '../../ports/clock';
import { AccountRepository, type AccountItem } from '../../accounts/repository';
import type { ReputationConfig } from '../reputation/policy';
import { countReputationSend, reputationOf } from '../reputation/service';
import { UsageRepository } from './repository';
import type { Usage } from './schemas';

// The query schema the route parses with, where it has always been found.
export { usageQuery, type Usage } from './schemas';

export const periodOf = (at: Date | string): string => new Date(at).toISOString().slice(0, 7);

/**
 * A live send the provider accepted, counted in the month of `at`; a broadcast's message counts as
 * broadcast. Usage is billed, so it is written now, right after the send's event (a crash between
 * the two is the only way to lose a count). The reputation's sends go through `reputationTally`
 * when given: a send worker batch sums them and writes them at its end (docs/api-decisions.md).
 */
export async function recordSend(
  store: Store,
  message: { account_id: string; channel: Channel; broadcast_id?: string },
  at: string,
  reputationTally: Tally = storeTally(store),
): Promise<void> {
  // Two items apart, written side by side.
  await Promise.all([
    new UsageRepository(store).addSend(message.account_id, periodOf(at), message.channel, message.broadcast_id ? 'broadcast' : 'transactional'),
    // The sending reputation's denominator: live email sends, as SES counts them (shared/billing/reputation).
    message.channel === 'email' ? countReputationSend(reputationTally, message.account_id, new Date(at)) : undefined,
  ]);
}

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
