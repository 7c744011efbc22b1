// The webhooks queue's payloads: an event to fan out to its subscriptions, or one delivery attempt.
import * as z from 'zod';
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

/**
 * An event to fan out. `subscription_ids`: the account's subscriptions that took it when it was
 * published (publishEvent's read), so the fan-out reads them no second time; a job without them
 * (queued before they were carried) has its subscriptions read by the fan-out.
 */
export const eventJob = z.object({
  kind: z.literal('event'),
  envelope: webhookEnvelope,
  subscription_ids: z.array(z.string().min(1)).optional(),
});

export const attemptJob = z.object({
  kind: z.literal('attempt'),
  account_id: z.string().min(1),
  subscription_id: z.string().min(1),
  delivery_id: z.string().min(1),
  attempt: z.number().int().positive(),
});

/**
 * An inbound route's webhook forward rides the same queue and retry schedule: one signed attempt
 * of a stored delivery, as a subscription's attempt job but naming the route
 * (shared/inbound-mail/routes/deliver.ts). Declared with the queue's other jobs, so the queue's owner
 * knows every job it carries without importing the areas that send them.
 */
export const routeAttemptJob = z.object({
  kind: z.literal('route_attempt'),
  account_id: z.string().min(1),
  route_id: z.string().min(1),
  delivery_id: z.string().min(1),
  attempt: z.number().int().positive(),
});

export const webhookJob = z.discriminatedUnion('kind', [eventJob, attemptJob, routeAttemptJob]);

export type EventJob = z.infer<typeof eventJob>;
export type AttemptJob = z.infer<typeof attemptJob>;
export type RouteAttemptJob = z.infer<typeof routeAttemptJob>;
export type WebhookJob = z.infer<typeof webhookJob>;
