// The billing function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN, ADMIN_LIVE, PUBLIC } from '../access';

export const billing = defineFunction({
  // Plans and billing through Stripe (issue 18). Checkout and portal spend money: live admin keys
  // only (docs/api-decisions.md). The webhook is public: Stripe's signature over
  // the raw body is its credential, and it is limited per client IP like every public route.
  name: 'billing',
  entry: 'functions/billing/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/billing', access: ADMIN, summary: 'The plan in force, its subscription status and the included emails left' },
    { method: 'POST', path: '/v1/billing/checkout', access: ADMIN_LIVE, summary: 'Buy a plan (a Stripe Checkout page) or change a live subscription in place' },
    { method: 'POST', path: '/v1/billing/portal', access: ADMIN_LIVE, summary: 'A Stripe customer portal session for the account' },
    { method: 'POST', path: '/v1/billing/webhook', access: PUBLIC, body: 'raw', summary: "Stripe's signed event notifications (public; 403 invalid_signature)" },
  ],
  needs: { table: 'readwrite', secrets: ['stripe-secret-key', 'stripe-webhook-secret'], billing: true },
  memoryMb: 512,
  timeoutSeconds: 29,
});
