// How a broadcast that moved to sending reaches its fan-out. The move (a conditional write on the
// broadcast) names the start that made it (`start_token`); that start then hands the broadcast on
// (inline recipients: one fanout job per stored chunk; a list audience: the walk's first page) and
// marks it handed on. Every start also has a start job on the fanout queue that repeats the
// hand-on unless it is marked done: for the API's starts it is sent before the move, delayed past
// the request's lifetime (a safety net for a request that died between the move and the hand-on);
// the scheduler's start job is the schedule itself, which makes the move scheduled → sending when
// it fires (never for a broadcast cancelled or sent meanwhile: the move is conditional). A hand-on
// repeated after a crash queues jobs that were queued already, which every job tolerates.
import { randomHex } from '../../crypto/crypto';
import type { Store } from '../../db/store';
import type { Clock } from '../../ports/clock';
import type { Queue } from '../../ports/queue';
import { firstWalkJob } from './audience';
import { SCHEDULED_START, type FanOutJob, type StartJob } from './messages';
import type { BroadcastItem } from './model';
import { BroadcastRepository } from './repository';

/** The API start's safety net runs this long after the request: past its 29 s Lambda timeout. */
export const START_SAFETY_NET_SECONDS = 60;

export interface StartDeps {
  store: Store;
  clock: Clock;
  queue: Queue;
}

export const newStartToken = (): string => randomHex(8);

export const startJobFor = (broadcast: Pick<BroadcastItem, 'id' | 'account_id'>, token: string): StartJob => ({
  broadcast_id: broadcast.id,
  account_id: broadcast.account_id,
  start: token,
});

/** Queues the broadcast's fan-out and marks it handed on; nothing when another start owns it. */
export async function handOn(deps: StartDeps, broadcast: BroadcastItem): Promise<void> {
  if (broadcast.status !== 'sending' || !broadcast.start_token) return;
  if (broadcast.audience_list_id !== null) {
    await deps.queue.send('fanout', firstWalkJob(broadcast));
  } else {
    const base = broadcast.chunk_base ?? 0;
    const jobs = Array.from({ length: broadcast.chunk_count }, (_, i): FanOutJob => ({ broadcast_id: broadcast.id, account_id: broadcast.account_id, chunk: base + i }));
    await deps.queue.sendBatch('fanout', jobs);
  }
  await new BroadcastRepository(deps.store).handedOn(broadcast.account_id, broadcast.id, broadcast.start_token);
}

export type StartResult = { kind: 'missing' } | { kind: 'handed_on'; scheduled: boolean } | { kind: 'nothing'; status: string };

/** A start job: the scheduler's moves scheduled → sending first; then the hand-on, unless it was done. */
export async function runStart(deps: StartDeps, job: StartJob): Promise<StartResult> {
  const broadcasts = new BroadcastRepository(deps.store);
  let broadcast = await broadcasts.get(job.account_id, job.broadcast_id);
  if (!broadcast) return { kind: 'missing' };
  const scheduled = job.start === SCHEDULED_START;
  if (scheduled && broadcast.status === 'scheduled') {
    broadcast = (await broadcasts.start(job.account_id, job.broadcast_id, ['scheduled'], SCHEDULED_START, deps.clock.now().toISOString(), false)) ?? (await broadcasts.get(job.account_id, job.broadcast_id));
    if (!broadcast) return { kind: 'missing' };
  }
  if (broadcast.status !== 'sending' || broadcast.start_token !== job.start || broadcast.handed_on) return { kind: 'nothing', status: broadcast.status };
  await handOn(deps, broadcast);
  return { kind: 'handed_on', scheduled };
}
