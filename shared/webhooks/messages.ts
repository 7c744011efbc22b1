// The webhooks queue's payloads: an event to fan out to its subscriptions, or one delivery attempt.
import * as z from 'zod';
import { routeAttemptJob } from '../inbound-routes/messages';
import { subscribableTypes } from './model';

/** The webhook request body, exactly as the spec's envelope (keys in the order they are sent). */
export const webhookEnvelope = z.object({
  event_id: z.string().min(1),
  event_type: z.enum(subscribableTypes),
  message_id: z.string().min(1),
  account_id: z.string().min(1),
  payload: z.record(z.string(), z.unknown()),
  occurred_at: z.string(),
  created_at: z.string(),
});

export type WebhookEnvelope = z.infer<typeof webhookEnvelope>;

export const eventJob = z.object({ kind: z.literal('event'), envelope: webhookEnvelope });

export const attemptJob = z.object({
  kind: z.literal('attempt'),
  account_id: z.string().min(1),
  subscription_id: z.string().min(1),
  delivery_id: z.string().min(1),
  attempt: z.number().int().positive(),
});

// route_attempt: an inbound route's webhook forward rides the same queue and retry schedule.
export const webhookJob = z.discriminatedUnion('kind', [eventJob, attemptJob, routeAttemptJob]);

export type EventJob = z.infer<typeof eventJob>;
export type AttemptJob = z.infer<typeof attemptJob>;
export type WebhookJob = z.infer<typeof webhookJob>;
