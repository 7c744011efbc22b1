// The acceptance sweep: finishes what a killed send request left. A request hands each accepted
// message on (send queue or scheduler) before it stores it (./send.ts), so no stored message waits
// to be handed on. A suppressed send is stored in the outbox and then written onto its timeline;
// one still in the outbox once its lease is over belongs to a request that died in between, and
// its event is written here. Pending claims of the design before (./legacy-claims.ts) are
// resolved as they were: stored message → handed on and the claim done; none → claim deleted.
import { inParallel } from '../../concurrency';
import type { Logger } from '../../ports/logger';
import { handOn, type HandOnDeps } from './hand-on';
import { decisionOf } from './idempotency';
import { LegacyClaims, type LegacyClaim } from './legacy-claims';
import type { MessageItem } from './model';
import { MessageRepository, OutboxRepository } from './repository';

export type RecoveryDeps = HandOnDeps & { logger: Logger };

export interface RecoveryResult {
  /** Suppressed sends written onto their timeline, and claims whose stored message was handed on. */
  completed: number;
  /** Outbox entries with nothing left to do, removed; claims without a message, deleted. */
  released: number;
}

const PAGE = 200;

/**
 * Resolves what the outbox holds whose lease ended at or before `leaseEndingBy` (epoch ms; the
 * scheduled sweep passes now). The local runtime passes its start time plus the lease at start:
 * it is the only API of its data, so every request begun before it started is dead.
 */
export async function recoverAcceptances(deps: RecoveryDeps, options: { leaseEndingBy?: number; pageSize?: number } = {}): Promise<RecoveryResult> {
  const outbox = new OutboxRepository(deps.store);
  const result: RecoveryResult = { completed: 0, released: 0 };
  const dueBy = options.leaseEndingBy ?? deps.clock.now().getTime();
  for await (const due of outbox.due(dueBy, options.pageSize ?? PAGE)) {
    await recoverSuppressed(deps, outbox, due.filter((i): i is MessageItem => i.entity === 'message'), result);
    await recoverClaims(deps, due.filter((i): i is LegacyClaim => i.entity === 'idempotency' && i.state === 'pending' && i.lease_until <= dueBy), result);
  }
  if (result.completed + result.released > 0) deps.logger.warn('acceptance sweep resolved what a dead request left', { ...result });
  return result;
}

async function recoverSuppressed(deps: RecoveryDeps, outbox: OutboxRepository, messages: MessageItem[], result: RecoveryResult): Promise<void> {
  const owed = messages.filter((m) => m.accepted_as === 'suppressed' && m.status !== 'suppressed');
  const done = messages.filter((m) => !owed.includes(m));
  result.released += (await inParallel(done, 16, (m) => outbox.remove(m))).filter(Boolean).length;
  const nowIso = deps.clock.now().toISOString();
  for (const accountId of new Set(owed.map((m) => m.account_id))) {
    const mine = owed.filter((m) => m.account_id === accountId);
    // The event is keyed by the message id, so two sweeps write it once; each takes it out of the outbox.
    await handOn(deps, accountId, new Map(mine.map((m) => [m.id, decisionOf(m)])), mine, nowIso);
  }
  result.completed += owed.length;
}

async function recoverClaims(deps: RecoveryDeps, claims: LegacyClaim[], result: RecoveryResult): Promise<void> {
  if (claims.length === 0) return;
  const legacy = new LegacyClaims(deps.store);
  const stored = await new MessageRepository(deps.store).getMany(claims.map((c) => c.message_id));
  const orphans = claims.filter((c) => !stored.has(c.message_id));
  result.released += (await inParallel(orphans, 16, (c) => legacy.release(c))).filter(Boolean).length;
  const found = claims.filter((c) => stored.has(c.message_id));
  const nowIso = deps.clock.now().toISOString();
  for (const accountId of new Set(found.map((c) => c.account_id))) {
    const mine = found.filter((c) => c.account_id === accountId);
    await handOn(deps, accountId, new Map(mine.map((c) => [c.message_id, c.decision])), mine.flatMap((c) => stored.get(c.message_id) ?? []), nowIso);
  }
  await inParallel(found, 16, (c) => legacy.markDone(c));
  result.completed += found.length;
}
