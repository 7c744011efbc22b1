// The fanout queue's payload: one job per stored recipient chunk of a broadcast.
import * as z from 'zod';

export const fanOutJob = z.object({
  broadcast_id: z.string().min(1),
  account_id: z.string().min(1),
  chunk: z.number().int().nonnegative(),
});

export type FanOutJob = z.infer<typeof fanOutJob>;
