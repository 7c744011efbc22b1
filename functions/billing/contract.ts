import type { ContractsOf } from '../../shared/http/contract';
import type { billing } from './definition';
import { billingView, checkoutBody, checkoutView, portalView, stripeEventBody, webhookView } from '../../shared/billing/schemas';

const NOT_CONFIGURED = 'Where the deployment has no Stripe keys (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET), 503 `billing_not_configured`.';

export const contracts: ContractsOf<typeof billing> = {
  'GET /v1/billing': {
    operationId: 'getBilling',
    description:
      'The plan in force and what is left of its included email allotment this cycle. Plans (docs/api-decisions.md, "Plans and billing"): ' +
      '`free` 3,000 emails a month; `starter` 10,000, `pro` 50,000, `growth` 100,000, `scale` 250,000 a month; by the year (59, 160, 340 and 790 dollars) ' +
      '12 months\' volume as one pool for the annual cycle. The allotment counts down as live email is sent (the usage counters, by calendar month, UTC). ' +
      'Without a live subscription (active, trialing, past_due), or where billing is not configured, the plan is `free`.',
    responses: { 200: { description: "The account's plan and allotment", schema: billingView } },
    errors: [],
    examples: [
      { name: 'the plan', status: 200 },
      { name: 'a read key', status: 403, as: 'read' },
      { name: 'no key', status: 401, as: 'none' },
    ],
  },
  'POST /v1/billing/checkout': {
    operationId: 'createBillingCheckout',
    description:
      'Buys or changes a plan (a live admin key: a test-mode key spends no money). An account whose subscription is live (active, trialing, past_due) has it changed in place to the new price, prorated: `{updated: true, plan}`. ' +
      'Otherwise the answer is the `url` of a Stripe Checkout page for a new subscription; the plan changes when Stripe reports the payment (POST /v1/billing/webhook). ' +
      'The account\'s Stripe customer is created on first use and reused. ' +
      NOT_CONFIGURED +
      ' A plan and period without a configured Stripe price is 503 `billing_not_configured` too.',
    body: checkoutBody,
    responses: { 200: { description: 'A checkout page, or the subscription changed in place', schema: checkoutView, secret: true } },
    errors: ['billing_not_configured'],
    examples: [
      { name: 'pro by the year', body: { plan: 'pro', period: 'year' }, status: 503 },
      { name: 'an unknown plan', body: { plan: 'platinum', period: 'month' }, status: 400 },
      { name: 'an unknown period', body: { plan: 'pro', period: 'week' }, status: 400 },
      { name: 'a send key', body: { plan: 'pro', period: 'month' }, status: 403, as: 'send' },
      { name: 'a test-mode key', body: { plan: 'pro', period: 'month' }, status: 403, as: 'test' },
    ],
  },
  'POST /v1/billing/portal': {
    operationId: 'createBillingPortal',
    description:
      "The `url` of a Stripe customer portal session for the account (payment methods, invoices, cancelling). An account without a Stripe customer yet gets one. " +
      NOT_CONFIGURED,
    responses: { 200: { description: 'The portal session', schema: portalView, secret: true } },
    errors: ['billing_not_configured'],
    examples: [
      { name: 'the portal', status: 503 },
      { name: 'a read key', status: 403, as: 'read' },
    ],
  },
  'POST /v1/billing/webhook': {
    operationId: 'receiveStripeEvent',
    description:
      "Stripe's event notifications; point a Stripe webhook endpoint here. No API key: the `Stripe-Signature` header, verified with Stripe's library over the exact body, " +
      'is the credential; a missing, wrong or stale (over 5 minutes) signature is 403 `invalid_signature` and changes nothing. ' +
      '`checkout.session.completed`, `customer.subscription.created|updated|deleted`, `invoice.paid` and `invoice.payment_failed` update the account\'s plan state; ' +
      'an event already applied, or older than the state it would replace (by Stripe\'s `created`), changes nothing. Any verified event is answered 200. ' +
      NOT_CONFIGURED +
      ' Limited per client IP, as every public route.',
    body: stripeEventBody,
    responses: { 200: { description: 'Received', schema: webhookView } },
    errors: ['invalid_signature', 'billing_not_configured'],
    examples: [{ name: 'an event', body: { id: 'evt_1', object: 'event', type: 'invoice.paid', created: 1767225600, data: { object: {} } }, status: 503, as: 'none' }],
  },
};
