// The acceptance sweep: finishes what a killed send request left. A request claims its idempotency
// keys, stores the messages, hands them on and marks the claims done; a pending claim whose lease
// is over marks a request that died somewhere in between (the claim is in the outbox index until
// it is done). Each such claim is taken over and resolved: its message stored → handed on and
// the claim done; no message → the claim deleted, so a retry creates the message. Nothing stored
// is dropped and no id that was never stored is ever replayed.
import { inParallel } from '../concurrency';
import type { Logger } from '../ports/logger';
import { handOn, type HandOnDeps } from './hand-on';
import type { IdempotencyItem } from './idempotency';
import { IdempotencyRepository, MessageRepository } from './repository';

export type RecoveryDeps = HandOnDeps & { logger: Logger };

export interface RecoveryResult {
  /** Claims whose message was stored: handed on and marked done. */
  completed: number;
  /** Claims without a message: deleted. */
  released: number;
}

const PAGE = 200;

/**
 * Resolves the pending claims whose lease ended at or before `leaseEndingBy` (epoch ms; the
 * scheduled sweep passes now). The local runtime passes its start time plus the lease at start:
 * it is the only API of its data, so every claim made before it started belongs to a dead request.
 */
export async function recoverAcceptances(deps: RecoveryDeps, options: { leaseEndingBy?: number; pageSize?: number } = {}): Promise<RecoveryResult> {
  const records = new IdempotencyRepository(deps.store);
  const messages = new MessageRepository(deps.store);
  const result: RecoveryResult = { completed: 0, released: 0 };
  const nowMs = deps.clock.now().getTime();
  for await (const due of records.dueForRecovery(options.leaseEndingBy ?? nowMs, options.pageSize ?? PAGE)) {
    const taken = (await inParallel(due, 16, (claim) => records.takeOver(claim, nowMs))).filter((c): c is IdempotencyItem => c !== undefined);
    const stored = await messages.getMany(taken.map((c) => c.message_id));
    const orphans = taken.filter((c) => !stored.has(c.message_id));
    result.released += (await inParallel(orphans, 16, (c) => records.release(c))).filter(Boolean).length;
    const found = taken.filter((c) => stored.has(c.message_id));
    const nowIso = new Date(nowMs).toISOString();
    for (const accountId of new Set(found.map((c) => c.account_id))) {
      const mine = found.filter((c) => c.account_id === accountId);
      const waiting = mine.flatMap((c) => stored.get(c.message_id) ?? []);
      await handOn(deps, accountId, new Map(mine.map((c) => [c.message_id, c.decision])), waiting, nowIso);
    }
    await records.markDone(found);
    result.completed += found.length;
  }
  if (result.completed + result.released > 0) deps.logger.warn('acceptance sweep resolved claims left by a dead request', { ...result });
  return result;
}
