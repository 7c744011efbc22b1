// The last step of accepting a send, shared by the request that accepted it and the sweep that
// finishes what a crashed request left (./recovery.ts): a stored message goes to its path. Every step is safe to
// repeat: a suppressed event is keyed by the message id, a schedule by the message id, and a second
// job for a message finds it taken or done (dispatch's lease).
import { inParallel } from '../../concurrency';
import { wrote, type Store } from '../../db/store';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { Metrics } from '../../ports/metrics';
import type { Queue } from '../../ports/queue';
import type { Scheduler } from '../../ports/scheduler';
import type { SendDecision } from './idempotency';
import type { SendJob } from './messages';
import type { HeldReservation } from '../../billing/spend-caps/reserve';
import type { MessageItem } from './model';
import { MessageRepository } from './repository';
import { recordEvent, routerEventId, type TimelineListeners } from './timeline';

const HAND_ON_CONCURRENCY = 16;

export interface HandOnDeps {
  /** The timeline's listeners (shared/runtime/listeners.ts), passed on to recordEvent. */
  timeline: TimelineListeners;
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  scheduler: Scheduler;
  metrics: Metrics;
}

export type Waiting = Pick<MessageItem, 'id' | 'status' | 'scheduled_at' | 'test_mode'> & Partial<Pick<MessageItem, 'channel' | 'recipient'>>;

/**
 * Hands each stored message on by what its claim decided: suppressed ones onto the timeline only,
 * scheduled ones to the scheduler, queued ones to the send queue (one batch). A message that has
 * moved on (sent, canceled, failed) is left alone. Answers the ids whose schedule an earlier
 * attempt had made already (this one's was not written, nor its job).
 */
export async function handOn(
  deps: HandOnDeps,
  accountId: string,
  decisions: ReadonlyMap<string, SendDecision>,
  messages: readonly Waiting[],
  nowIso: string,
  /** Set by a request that hands its messages on before storing them (epoch ms): see SendJob.handed_at. */
  handedAt?: number,
  /** What the accepting request reserved for each message, carried by its job (SendJob.reservation). */
  reservations?: ReadonlyMap<string, HeldReservation>,
): Promise<Set<string>> {
  const jobs: SendJob[] = [];
  const scheduledBefore = new Set<string>();
  await inParallel(messages, HAND_ON_CONCURRENCY, async (message) => {
    const reservation = reservations?.get(message.id);
    const job: SendJob = {
      message_id: message.id,
      account_id: accountId,
      // What lets the worker read a batch's suppressions at once (SendJob.recipient).
      ...(message.channel && message.recipient ? { channel: message.channel, recipient: message.recipient } : {}),
      ...(handedAt === undefined ? {} : { handed_at: handedAt }),
      ...(reservation ? { reservation } : {}),
    };
    if (decisions.get(message.id)?.kind === 'suppressed') {
      // Decided before dispatch: on the timeline only, never enqueued or billed.
      await recordEvent(deps, { id: message.id, account_id: accountId, test_mode: message.test_mode }, {
        id: message.id,
        type: 'suppressed',
        source: 'router',
        providerEventId: routerEventId(message.id),
        payload: { reason: 'recipient is on the suppression list' },
        occurredAt: nowIso,
      });
      // The send worker never takes it, so it leaves the outbox here (./recovery.ts would otherwise).
      await new MessageRepository(deps.store).leaveOutbox(message.id);
    } else if (message.status === 'scheduled' && message.scheduled_at) {
      // Not written again when an earlier attempt scheduled it already.
      if (!(await wrote(deps.scheduler.schedule({ id: message.id, at: new Date(message.scheduled_at), queue: 'send', body: job })))) scheduledBefore.add(message.id);
    } else if (message.status === 'queued') {
      jobs.push(job);
    }
  });
  if (jobs.length > 0) await deps.queue.sendBatch('send', jobs);
  return scheduledBefore;
}
