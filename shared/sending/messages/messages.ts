// The send queue's payload: ids and the recipient; the worker reads the message, so a job never
// carries content.
import * as z from 'zod';
import { channels } from '../../accounts/schemas';
import { sendKinds } from '../../billing/usage/repository';
import type { HeldReservation } from '../../billing/spend-caps/reserve';

/** One attempt's reservation for one send, as its job carries it: shared/billing/spend-caps/reserve.ts HeldReservation. */
const jobReservation = z.object({
  attempt: z.string().min(1).max(64),
  period: z.string().regex(/^\d{4}-\d{2}$/),
  channel: z.enum(channels),
  kind: z.enum(sendKinds),
  key_id: z.string().min(1).max(100),
  micros: z.number().int().nonnegative(),
}) satisfies z.ZodType<HeldReservation>;

export const sendJob = z.object({
  message_id: z.string().min(1),
  account_id: z.string().min(1),
  /**
   * When the accepting request handed the job on (epoch ms). It does so before it stores the
   * message (shared/sending/messages/send.ts), so a job may arrive before its message, or for one that was
   * never stored (the request died or failed between): the worker waits for it until
   * HANDOFF_WINDOW_MS after this, then drops the job.
   */
  handed_at: z.number().int().nonnegative().optional(),
  /** How often the worker has put the job back because its message was not stored yet. */
  handoff_tries: z.number().int().nonnegative().optional(),
  /**
   * The message's channel and recipient, as the job was made: the worker reads the suppressions of
   * a batch's recipients at once (functions/send/send-message.ts). Only a hint: a message whose own
   * recipient differs, or a job without them, has its suppression read on its own.
   */
  channel: z.enum(channels).optional(),
  recipient: z.string().min(1).max(1000).optional(),
  /**
   * What the accepting attempt reserved for this send (shared/billing/spend-caps/reserve.ts), so
   * the worker can give it back once when that attempt did not store the message: another did
   * (MessageItem.reserved_by differs), or none did within HANDOFF_WINDOW_MS. Absent on jobs of
   * test mode, of the acceptance sweep, and of versions before it.
   */
  reservation: jobReservation.optional(),
});

export type SendJob = z.infer<typeof sendJob>;

/** The longest a send request may run (a Lambda's limit) between handing a job on and storing its message. */
export const HANDOFF_WINDOW_MS = 15 * 60_000;

/**
 * How long a job that arrived before its message waits before the worker looks again: 1 s, then
 * doubling to a minute. A request stores its messages within a second or two of handing them on
 * (a 1000-item batch's puts included), so the wait follows it closely; the queue's own redelivery
 * would come after its visibility timeout (minutes).
 */
export function handoffDelaySeconds(tries: number): number {
  return Math.min(60, 2 ** Math.max(0, tries - 1));
}
