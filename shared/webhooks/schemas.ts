// Wire shapes of the webhook subscription routes. The URL is only shape-checked here; whether it
// may be called at all (https, public address) is the outbound guard's call, in the use case.
import * as z from 'zod';
import { subscribableTypes, type SubscriptionView } from './model';

export const MAX_ENDPOINT_URL_LENGTH = 2048;

const endpointUrl = z.string().trim().min(1, 'must not be empty').max(MAX_ENDPOINT_URL_LENGTH);

/** Unknown types are refused by position (body.event_types.N); repeats collapse, order kept. */
const eventTypes = z.array(z.enum(subscribableTypes)).transform((types) => [...new Set(types)]);

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

/** Create and rotate only: the one place a plaintext signing secret leaves the service. */
export interface SubscriptionWithSecretView extends SubscriptionView {
  signing_secret: string;
}
