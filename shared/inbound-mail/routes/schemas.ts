// Inbound routes and enabling inbound on a domain, on the wire: request bodies and answers. The
// URL is only shape-checked here; whether it may be called (https, public address) is the outbound
// guard's call, in the use case, as for webhook endpoints.
import * as z from 'zod';

export const destinationTypes = ['webhook', 'email'] as const;
export type DestinationType = (typeof destinationTypes)[number];

/** The start of a recipient's local part; "" matches every recipient of the domain. Lower-cased. */
const matchPrefix = z
  .string()
  .max(64)
  .regex(/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~.-]*$/, 'letters, digits and the characters an address local part may hold')
  .transform((v) => v.toLowerCase())
  .meta({ description: 'Matched against the start of the recipient\'s local part, ignoring case; "" is the domain\'s catch-all. The longest matching prefix wins' });

const forwardUrl = z.string().trim().min(1, 'must not be empty').max(2048).meta({ description: 'webhook routes: https URL on a public address, called with the signed email.received envelope' });
const forwardAddress = z.string().trim().min(3).max(320).meta({ description: 'email routes: the address the message is forwarded to, through the send pipeline' });

export const createRouteBody = z
  .object({
    domain: z.string().min(1).max(253).meta({ description: "One of the account's domains with inbound enabled" }),
    match_prefix: matchPrefix,
    destination_type: z.enum(destinationTypes),
    forward_url: forwardUrl.optional(),
    forward_address: forwardAddress.optional(),
  })
  .strict();
export type CreateRouteBody = z.infer<typeof createRouteBody>;

/** Partial: only the fields sent change; `{}` changes nothing. */
export const updateRouteBody = z
  .object({
    match_prefix: matchPrefix.optional(),
    destination_type: z.enum(destinationTypes).optional(),
    forward_url: forwardUrl.optional(),
    forward_address: forwardAddress.optional(),
    active: z.boolean().optional(),
  })
  .strict();
export type UpdateRouteBody = z.infer<typeof updateRouteBody>;

const routeFields = {
  id: z.string().meta({ description: 'The route id, inr_…' }),
  domain: z.string(),
  match_prefix: z.string(),
  destination_type: z.enum(destinationTypes),
  forward_url: z.string().nullable().meta({ description: 'webhook routes; null on email routes' }),
  forward_address: z.string().nullable().meta({ description: 'email routes; null on webhook routes' }),
  active: z.boolean().meta({ description: 'false: the route matches nothing until set true again' }),
  created_at: z.string(),
};

/** A route as every answer but create shows it: never its secret. */
export const routeView = z.object(routeFields).strict();
export type RouteView = z.infer<typeof routeView>;

export const routeWithSecretView = z
  .object({
    ...routeFields,
    signing_secret: z.string().meta({
      description: "HMAC-SHA256 key of the Service-Signature on this route's webhook forwards: 64 hex characters used as their UTF-8 bytes. Shown once: store it now",
    }),
  })
  .strict();
export type RouteWithSecretView = z.infer<typeof routeWithSecretView>;

export const routeListView = z.object({ routes: z.array(routeView).meta({ description: 'Oldest first' }) }).strict();

export const routeParams = z.object({ id: z.string().meta({ description: 'The route id, inr_…' }) });

export const enableInboundBody = z.object({ enabled: z.boolean() }).strict();

export const inboundSettingView = z
  .object({
    enabled: z.boolean(),
    mx_record: z
      .object({
        type: z.literal('MX'),
        priority: z.literal('10'),
        value: z.string().meta({ description: "SES's inbound endpoint of the region (inbound-smtp.<region>.amazonaws.com); locally the SMTP listener's host" }),
      })
      .strict()
      .meta({ description: "The MX record to publish at the domain's apex for mail to reach the service" }),
  })
  .strict();
export type InboundSettingView = z.infer<typeof inboundSettingView>;
