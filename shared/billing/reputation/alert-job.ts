// The reputation alert's job on the send queue: the ses-events function judges, the send worker
// (which already mails and publishes webhook events) mails the owner and publishes the event.
import * as z from 'zod';

export const REPUTATION_EVENT = 'account.reputation_warning';

export const reputationAlertJob = z.object({
  kind: z.literal('reputation_alert'),
  account_id: z.string().min(1),
  state: z.enum(['warned', 'paused']),
  /** The hard bounce's or complaint's message, whose event moved the account. */
  message_id: z.string().min(1),
  sends: z.number().int(),
  bounces: z.number().int(),
  complaints: z.number().int(),
  bounce_rate: z.number(),
  complaint_rate: z.number(),
  occurred_at: z.string(),
});
export type ReputationAlertJob = z.infer<typeof reputationAlertJob>;
