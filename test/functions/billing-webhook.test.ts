// POST /v1/billing/webhook through the handler: real Stripe-signed payloads (Stripe's own
// test-header helper), verified over the raw body; each event type updating the plan state; the
// same event twice, and events out of order, changing nothing; a bad signature refused with 403
// and nothing changed.
import { beforeEach, describe, expect, it } from 'vitest';
import { BillingRepository } from '../../shared/billing/repository';
import { PRICES, useBilling, WEBHOOK_SECRET } from '../support/billing';
import { signedEvent, type StandInSubscription } from '../support/stripe-stand-in';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
const billing = useBilling(bed);

let customerId: string;
let sequence = 0;

const nowSeconds = () => Math.floor(bed.c.clock.now().getTime() / 1000);
const getBilling = () => bed.request({ method: 'GET', path: '/v1/billing', key: bed.account.admin_key });
const stored = () => new BillingRepository(bed.c.store).get(bed.account.account_id);

/** Posts an event as Stripe does: its JSON bytes and their Stripe-Signature header. */
function post(event: { id?: string; type: string; created: number; object: unknown }, options: { secret?: string; timestamp?: number; tamper?: (raw: string) => string; signature?: string | null } = {}) {
  const signed = signedEvent(options.secret ?? WEBHOOK_SECRET, { id: event.id ?? `evt_${++sequence}`, ...event }, options.timestamp ?? nowSeconds());
  const headers: Record<string, string> = {};
  if (options.signature !== null) headers['stripe-signature'] = options.signature ?? signed.signature;
  return bed.request({ method: 'POST', path: '/v1/billing/webhook', rawBody: options.tamper ? options.tamper(signed.rawBody) : signed.rawBody, headers });
}

const subscriptionObject = (over: Partial<StandInSubscription> & { price?: string } = {}): StandInSubscription => {
  const { price, ...rest } = over;
  return {
    id: 'sub_1',
    object: 'subscription',
    customer: customerId,
    status: 'active',
    metadata: {},
    items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', price: { id: price ?? PRICES.pro_month!, object: 'price' }, current_period_start: nowSeconds() - 3600, current_period_end: nowSeconds() + 30 * 86400 }] },
    ...rest,
  };
};

beforeEach(async () => {
  // The account's customer, as its first checkout makes it.
  const res = await bed.request({ method: 'POST', path: '/v1/billing/checkout', key: bed.account.admin_key, body: { plan: 'pro', period: 'month' } });
  expect(res.status).toBe(200);
  customerId = (await stored())!.customer_id!;
});

describe('events that set the plan', () => {
  it('customer.subscription.created puts the plan in force', async () => {
    const res = await post({ type: 'customer.subscription.created', created: nowSeconds(), object: subscriptionObject({ price: PRICES.scale_year }) });
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ received: true });
    expect((await getBilling()).body).toEqual({ plan: 'scale', subscription_status: 'active', included_allotment: 3_000_000, recurring_interval: 'year' });
  });

  it('checkout.session.completed reads the subscription it made from Stripe', async () => {
    const subscription = billing.stripe.subscribe({ customer: customerId, price: PRICES.growth_month!, periodStart: nowSeconds(), periodEnd: nowSeconds() + 86400 * 30 });
    await post({ type: 'checkout.session.completed', created: nowSeconds(), object: { id: 'cs_1', object: 'checkout.session', mode: 'subscription', customer: customerId, subscription: subscription.id, client_reference_id: bed.account.account_id } });
    expect(billing.stripe.calls(`GET /v1/subscriptions/${subscription.id}`)).toHaveLength(1);
    expect((await getBilling()).body).toMatchObject({ plan: 'growth', subscription_status: 'active', recurring_interval: 'month' });
  });

  it('invoice.payment_failed shows past_due, the plan still in force; invoice.paid makes it active again', async () => {
    const subscription = billing.stripe.subscribe({ customer: customerId, price: PRICES.pro_month!, status: 'past_due', periodStart: nowSeconds(), periodEnd: nowSeconds() + 86400 * 30 });
    const invoice = { id: 'in_1', object: 'invoice', customer: customerId, parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } } };
    await post({ type: 'invoice.payment_failed', created: nowSeconds(), object: invoice });
    expect((await getBilling()).body).toMatchObject({ plan: 'pro', subscription_status: 'past_due' });
    subscription.status = 'active';
    await post({ type: 'invoice.paid', created: nowSeconds() + 1, object: invoice });
    expect((await getBilling()).body).toMatchObject({ plan: 'pro', subscription_status: 'active' });
  });

  it('customer.subscription.deleted puts the account back on the free plan', async () => {
    await post({ type: 'customer.subscription.created', created: nowSeconds(), object: subscriptionObject() });
    await post({ type: 'customer.subscription.deleted', created: nowSeconds() + 5, object: subscriptionObject({ status: 'canceled' }) });
    expect((await getBilling()).body).toEqual({ plan: 'free', subscription_status: 'canceled', included_allotment: 3000, recurring_interval: null });
  });

  it('acknowledges an event naming a subscription Stripe does not have, changing nothing', async () => {
    const res = await post({ type: 'checkout.session.completed', created: nowSeconds(), object: { id: 'cs_2', object: 'checkout.session', mode: 'subscription', customer: customerId, subscription: 'sub_gone' } });
    expect(res.status).toBe(200);
    expect(billing.stripe.calls('GET /v1/subscriptions/sub_gone')).toHaveLength(1);
    expect((await stored())?.subscription_id).toBeUndefined();
  });

  it('acknowledges events it does not handle, and events about customers it never made, changing nothing', async () => {
    expect((await post({ type: 'customer.created', created: nowSeconds(), object: { id: customerId, object: 'customer' } })).status).toBe(200);
    const stranger = await post({ type: 'customer.subscription.created', created: nowSeconds(), object: subscriptionObject({ customer: 'cus_someone_else' }) });
    expect(stranger.status).toBe(200);
    expect((await stored())?.subscription_id).toBeUndefined();
  });
});

describe('idempotency and order', () => {
  it('applies an event once: its redelivery reads nothing and changes nothing', async () => {
    // Prepare: an invoice.paid applied while the subscription was active.
    const subscription = billing.stripe.subscribe({ customer: customerId, price: PRICES.pro_month!, periodStart: nowSeconds(), periodEnd: nowSeconds() + 86400 * 30 });
    const event = { id: 'evt_paid_once', type: 'invoice.paid', created: nowSeconds(), object: { id: 'in_2', object: 'invoice', customer: customerId, parent: { subscription_details: { subscription: subscription.id } } } };
    expect((await post(event)).status).toBe(200);
    const before = await stored();
    subscription.status = 'unpaid';
    billing.stripe.requests.length = 0;
    // Act: Stripe delivers the same event again.
    const again = await post(event);
    // Assess
    expect(again.status).toBe(200);
    expect(billing.stripe.requests).toEqual([]);
    expect(await stored()).toEqual(before);
  });

  it('never moves the state back for an event older than the one applied', async () => {
    const t = nowSeconds();
    await post({ type: 'customer.subscription.updated', created: t + 10, object: subscriptionObject({ status: 'past_due' }) });
    await post({ type: 'customer.subscription.updated', created: t, object: subscriptionObject({ status: 'active', price: PRICES.starter_month }) });
    expect((await stored())).toMatchObject({ subscription_status: 'past_due', plan: 'pro', state_at: t + 10 });
  });

  it('keeps a live subscription when late news says an earlier one ended', async () => {
    const t = nowSeconds();
    await post({ type: 'customer.subscription.created', created: t, object: subscriptionObject({ id: 'sub_new', price: PRICES.growth_month }) });
    await post({ type: 'customer.subscription.deleted', created: t + 30, object: subscriptionObject({ id: 'sub_old', status: 'canceled' }) });
    expect((await getBilling()).body).toMatchObject({ plan: 'growth', subscription_status: 'active' });
  });
});

describe('signatures', () => {
  const created = () => nowSeconds();
  const event = () => ({ type: 'customer.subscription.created', created: created(), object: subscriptionObject() });

  it.each([
    ['no Stripe-Signature header', { signature: null }],
    ['a header that is not a signature', { signature: 'nonsense' }],
    ['another endpoint secret', { secret: 'whsec_someone_else' }],
    ['a body changed after signing', { tamper: (raw: string) => raw.replace('"active"', '"trialing"') }],
    ['a signature older than five minutes', { timestamp: Math.floor(Date.parse('2026-03-01T11:00:00.000Z') / 1000) }],
  ] as const)('refuses %s with 403 invalid_signature and changes nothing', async (_name, options) => {
    const res = await post(event(), options as Parameters<typeof post>[1]);
    expect(res.status).toBe(403);
    expect(res.body.error).toMatchObject({ code: 'invalid_signature', status: 403 });
    expect((await stored())?.subscription_id).toBeUndefined();
    expect((await getBilling()).body.plan).toBe('free');
  });

  it('answers 503 billing_not_configured where there are no Stripe keys', async () => {
    bed.c.payments = undefined;
    const res = await post(event());
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('billing_not_configured');
  });
});
