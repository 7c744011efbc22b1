// The plans, in one place: each one's monthly email volume and list prices. Stripe's prices (their
// ids in settings, STRIPE_PRICE_<PLAN>_<PERIOD>) are what is charged; the amounts here document
// them and must match. A yearly plan is the annual promotional price, and grants 12 times the
// monthly volume as one pool for its annual cycle (docs/api-decisions.md, "Plans and billing").
import { type BillingPeriod, type PaidPlan } from '../platform';

export type Plan = 'free' | PaidPlan;

interface PlanTerms {
  /** Live emails included per month. */
  monthlyEmails: number;
  /** US cents per month on a monthly subscription. */
  monthlyPriceCents: number;
  /** US cents per year on a yearly subscription (the annual promotional price). */
  annualPriceCents: number;
}

export const plans: Readonly<Record<Plan, PlanTerms>> = {
  free: { monthlyEmails: 3_000, monthlyPriceCents: 0, annualPriceCents: 0 },
  starter: { monthlyEmails: 10_000, monthlyPriceCents: 1_000, annualPriceCents: 5_900 },
  pro: { monthlyEmails: 50_000, monthlyPriceCents: 2_000, annualPriceCents: 16_000 },
  growth: { monthlyEmails: 100_000, monthlyPriceCents: 4_000, annualPriceCents: 34_000 },
  scale: { monthlyEmails: 250_000, monthlyPriceCents: 9_000, annualPriceCents: 79_000 },
};

/** The emails a plan includes per billing cycle: a month's volume, or twelve months' as one pool for a year. */
export function allotmentOf(plan: Plan, period: BillingPeriod | null): number {
  return plans[plan].monthlyEmails * (period === 'year' ? 12 : 1);
}

/** Subscription statuses under which the plan is in force; any other leaves the account on `free`. */
export const liveStatuses: readonly string[] = ['active', 'trialing', 'past_due'];
