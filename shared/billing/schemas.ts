// Wire shapes of the billing routes: GET /v1/billing, checkout, portal and Stripe's webhook.
import * as z from 'zod';
import { billingPeriods, paidPlans } from '../platform';

export const planIds = ['free', ...paidPlans] as const;

/** Stripe's subscription statuses, and `none` for an account that never subscribed. */
export const subscriptionStatuses = ['none', 'active', 'trialing', 'past_due', 'unpaid', 'canceled', 'incomplete', 'incomplete_expired', 'paused'] as const;
export type SubscriptionStatus = (typeof subscriptionStatuses)[number];

export const checkoutBody = z
  .object({
    plan: z.enum(paidPlans).meta({ description: 'starter, pro, growth or scale' }),
    period: z.enum(billingPeriods).meta({ description: 'month, or year for the annual promotional price (12 months of email as one pool)' }),
  })
  .strict();
export type CheckoutBody = z.infer<typeof checkoutBody>;

export const billingView = z
  .object({
    plan: z.enum(planIds).meta({ description: 'The plan in force; `free` without a live subscription (active, trialing or past_due)' }),
    subscription_status: z.enum(subscriptionStatuses).meta({ description: "Stripe's status of the account's subscription; `none` when it never had one" }),
    included_allotment: z.number().int().min(0).meta({
      description: "Live emails left in the plan's allotment this cycle: the month's volume less this month's sends, or for a yearly plan 12 months' volume less the annual cycle's sends",
    }),
    recurring_interval: z.enum(billingPeriods).nullable().meta({ description: 'month or year; null on the free plan' }),
  })
  .strict();
export type BillingView = z.infer<typeof billingView>;

export const checkoutView = z.union([
  z.object({ url: z.string().meta({ description: "Stripe Checkout's hosted page for the new subscription" }) }).strict(),
  z
    .object({
      updated: z.literal(true),
      plan: z.enum(paidPlans).meta({ description: 'The plan the active subscription now has (changed in place, prorated)' }),
    })
    .strict(),
]);
export type CheckoutView = z.infer<typeof checkoutView>;

export const portalView = z.object({ url: z.string().meta({ description: "Stripe's customer portal session for the account" }) }).strict();

/** What Stripe posts (documentation only: the route verifies and reads the raw bytes). */
export const stripeEventBody = z
  .looseObject({
    id: z.string(),
    object: z.literal('event'),
    type: z.string(),
    created: z.number().int(),
    data: z.looseObject({ object: z.record(z.string(), z.unknown()) }),
  })
  .meta({ description: 'A Stripe Event object, exactly as Stripe sent it' });

export const webhookView = z.object({ received: z.literal(true) }).strict();
