// The send queue's payload: ids only; the worker reads the message, so a job never carries content.
import * as z from 'zod';

export const sendJob = z.object({
  message_id: z.string().min(1),
  account_id: z.string().min(1),
  /**
   * When the accepting request handed the job on (epoch ms). It does so before it stores the
   * message (shared/messages/send.ts), so a job may arrive before its message, or for one that was
   * never stored (the request died or failed between): the worker waits for it until
   * HANDOFF_WINDOW_MS after this, then drops the job.
   */
  handed_at: z.number().int().nonnegative().optional(),
});

export type SendJob = z.infer<typeof sendJob>;

/** The longest a send request may run (a Lambda's limit) between handing a job on and storing its message. */
export const HANDOFF_WINDOW_MS = 15 * 60_000;
