// Billing configured in a handler test's container: Stripe's library pointed at a local stand-in
// of Stripe's API (./stripe-stand-in.ts), the price ids in settings; restored before each test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { StripePayments } from '../../shared/adapters/stripe-payments';
import type { BillingSettings } from '../../shared/runtime/config';
import { startStripeStandIn, type StripeStandIn } from './stripe-stand-in';
import type { Testbed } from './testbed';

export const PRICES: BillingSettings['prices'] = {
  starter_month: 'price_starter_month',
  starter_year: 'price_starter_year',
  pro_month: 'price_pro_month',
  pro_year: 'price_pro_year',
  growth_month: 'price_growth_month',
  growth_year: 'price_growth_year',
  scale_month: 'price_scale_month',
  scale_year: 'price_scale_year',
};

export const WEBHOOK_SECRET = 'whsec_standin_0123456789';

export interface BillingBed {
  stripe: StripeStandIn;
  payments: StripePayments;
}

/** Call after useTestbed: its container is built first. */
export function useBilling(bed: Testbed): BillingBed {
  const billing = {} as BillingBed;
  const configure = () => {
    bed.c.config.billing = { prices: { ...PRICES }, apiBase: billing.stripe.url };
    bed.c.payments = billing.payments;
  };
  beforeAll(async () => {
    billing.stripe = await startStripeStandIn();
    billing.payments = new StripePayments({ secretKey: 'sk_test_standin', webhookSecret: WEBHOOK_SECRET, apiBase: billing.stripe.url, maxNetworkRetries: 0 });
    configure();
  });
  afterAll(async () => billing.stripe.close());
  beforeEach(() => {
    billing.stripe.reset();
    configure();
  });
  return billing;
}
