// Wire shapes of the webhook subscription routes, requests and answers. The URL is only
// shape-checked here; whether it may be called at all (https, public address) is the outbound
// guard's call, in the use case.
import * as z from 'zod';
import { deliveryStatuses, subscribableTypes } from './model';

export const MAX_ENDPOINT_URL_LENGTH = 2048;

const endpointUrl = z.string().trim().min(1, 'must not be empty').max(MAX_ENDPOINT_URL_LENGTH);

/** Unknown types are refused by position (body.event_types.N); repeats collapse, order kept. */
const eventTypes = z
  .array(z.enum(subscribableTypes))
  .transform((types) => [...new Set(types)])
  .meta({ description: 'The event types to deliver; empty or omitted means every type' });

export const createWebhookBody = z
  .object({
    endpoint_url: endpointUrl,
    event_types: eventTypes.optional(),
  })
  .strict();

export type CreateWebhookBody = z.infer<typeof createWebhookBody>;

/** Partial: only the fields sent change; `{}` changes nothing and answers the subscription. */
export const updateWebhookBody = z
  .object({
    endpoint_url: endpointUrl.optional(),
    event_types: eventTypes.optional(),
    is_active: z.boolean().optional(),
  })
  .strict();

export type UpdateWebhookBody = z.infer<typeof updateWebhookBody>;

const subscriptionFields = {
  id: z.string().meta({ description: 'The subscription id, whk_…' }),
  account_id: z.string(),
  endpoint_url: z.string(),
  event_types: z.array(z.enum(subscribableTypes)).meta({ description: 'The event types delivered; empty means every type' }),
  is_active: z.boolean().meta({ description: 'false pauses delivery: no new deliveries, and due retries wait' }),
  created_at: z.string(),
};

/** A subscription as every answer but create and rotate shows it: never its secret. */
export const subscriptionView = z.object(subscriptionFields).strict();
export type SubscriptionView = z.infer<typeof subscriptionView>;

/** Create and rotate only: the one place a plaintext signing secret leaves the service. */
export const subscriptionWithSecretView = z
  .object({
    ...subscriptionFields,
    signing_secret: z.string().meta({
      description:
        'The HMAC-SHA256 key of Service-Signature: 64 hex characters (32 random bytes), used as the 64 characters\' UTF-8 bytes, not hex-decoded. Shown once: store it now',
    }),
  })
  .strict();
export type SubscriptionWithSecretView = z.infer<typeof subscriptionWithSecretView>;

/** DELETE /v1/webhooks/{id}. */
export const webhookDeletedView = z.object({ message: z.string() }).strict();

/** The wire form of a delivery: the record without its body, account and internal fields. */
export const deliveryView = z
  .object({
    id: z.string().meta({ description: 'The delivery id, dlv_…: one per subscription and event' }),
    subscription_id: z.string(),
    event_id: z.string().meta({ description: 'The event delivered: the Service-Event-Id header and the envelope\'s event_id' }),
    event_type: z.enum([...subscribableTypes, 'webhook.test']).meta({ description: 'The event type delivered; webhook.test for a test event (POST /v1/webhooks/{id}/test)' }),
    status: z.enum(deliveryStatuses).meta({
      description: 'pending until the first attempt ends; succeeded on a 2xx; failed while a retry is scheduled; exhausted after 12 attempts or 24 hours',
    }),
    attempt_count: z.number().int(),
    response_status: z.number().int().meta({ description: "HTTP status of the receiver's last answer; 0 when it gave none (timeout, connection error, refused address)" }),
    next_retry_at: z.string().optional().meta({ description: 'When the next attempt is due; present only while the status is failed' }),
    created_at: z.string(),
  })
  .strict();
export type DeliveryView = z.infer<typeof deliveryView>;

/** POST /v1/webhooks/{id}/replay-failed. */
export const replayFailedView = z
  .object({
    replayed: z.array(deliveryView).meta({ description: 'The new deliveries, one per exhausted event, oldest event first' }),
    has_more: z.boolean().meta({ description: 'More exhausted events wait: call again' }),
  })
  .strict();
