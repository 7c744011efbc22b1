// The fanout queue's payloads. A chunk job sends one stored recipient chunk of a broadcast; a start
// job hands a broadcast that moved to sending on to its fan-out (the scheduler's, at scheduled_at,
// and a late safety net after an API start, which finds it handed on already unless the request
// died); a walk job reads one page of a list audience into a chunk. Where a walk carries on from
// is stored on the broadcast, never in the job, so a repeated or stale job does no work twice.
import * as z from 'zod';

export const fanOutJob = z.object({
  broadcast_id: z.string().min(1),
  account_id: z.string().min(1),
  chunk: z.number().int().nonnegative(),
});

export type FanOutJob = z.infer<typeof fanOutJob>;

/** The token of the scheduler's start, which moves scheduled → sending itself. */
export const SCHEDULED_START = 'scheduled';

export const startJob = z.object({
  broadcast_id: z.string().min(1),
  account_id: z.string().min(1),
  start: z.string().min(1).max(64),
});

export type StartJob = z.infer<typeof startJob>;

export const walkJob = z.object({
  broadcast_id: z.string().min(1),
  account_id: z.string().min(1),
  page: z.number().int().nonnegative(),
});

export type WalkJob = z.infer<typeof walkJob>;

/** Every job the fanout consumer takes: told apart by `chunk`, `start` or `page`. */
export const broadcastJob = z.union([fanOutJob.strict(), startJob.strict(), walkJob.strict()]);

export type BroadcastJob = z.infer<typeof broadcastJob>;
