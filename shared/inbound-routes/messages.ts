// The webhooks queue's job for an inbound route's forward: one signed attempt of a stored
// delivery, as a subscription's attempt job but naming the route (shared/inbound-routes/deliver.ts).
import * as z from 'zod';

export const routeAttemptJob = z.object({
  kind: z.literal('route_attempt'),
  account_id: z.string().min(1),
  route_id: z.string().min(1),
  delivery_id: z.string().min(1),
  attempt: z.number().int().positive(),
});

export type RouteAttemptJob = z.infer<typeof routeAttemptJob>;
