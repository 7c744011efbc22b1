// GET /v1/billing, checkout and portal through the handlers, with Stripe's own library talking to a
// local stand-in of Stripe's API (test/support/stripe-stand-in.ts): the plan and its allotment
// counting down, a new checkout against a change in place, one customer per account, and every
// failure case (400, 401, 403, 503).
import { describe, expect, it } from 'vitest';
import { StripePayments } from '../../shared/adapters/stripe-payments';
import { BillingRepository } from '../../shared/billing/repository';
import type { Channel } from '../../shared/accounts/schemas';
import { UsageRepository } from '../../shared/billing/usage/repository';
import { PRICES, useBilling } from '../support/billing';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
const billing = useBilling(bed);

const admin = () => bed.account.admin_key;
const getBilling = (key = admin()) => bed.request({ method: 'GET', path: '/v1/billing', key });
const checkout = (body: unknown, key = admin()) => bed.request({ method: 'POST', path: '/v1/billing/checkout', key, body });
const portal = (key = admin()) => bed.request({ method: 'POST', path: '/v1/billing/portal', key });
const nowSeconds = () => Math.floor(bed.c.clock.now().getTime() / 1000);
/** Live sends accepted at `at`, counted where acceptance counts them (the spend reservation). */
const accepted = (count: number, at: string, channel: Channel = 'email', kind: 'transactional' | 'broadcast' = 'transactional') =>
  new UsageRepository(bed.c.store).reserve(bed.account.account_id, at.slice(0, 7), { channel, kind, count, keyId: 'key_x', micros: channel === 'email' ? 100 * count : 0 });
const sendEmails = async (count: number, at: string = bed.c.clock.now().toISOString()) => {
  await accepted(count, at);
};

/** Checkout once so the account has its Stripe customer; its id. */
async function customerOfAccount(): Promise<string> {
  expect((await checkout({ plan: 'pro', period: 'month' })).status).toBe(200);
  const stored = await new BillingRepository(bed.c.store).get(bed.account.account_id);
  return stored!.customer_id!;
}

describe('GET /v1/billing', () => {
  it('answers the free plan for an account that never subscribed', async () => {
    const res = await getBilling();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ plan: 'free', subscription_status: 'none', included_allotment: 3000, recurring_interval: null });
  });

  it('counts the allotment down as live email is accepted this month, and other channels and months not at all', async () => {
    // Prepare
    await sendEmails(2);
    await accepted(1, bed.c.clock.now().toISOString(), 'email', 'broadcast');
    await sendEmails(5, '2026-01-10T00:00:00.000Z');
    await accepted(1, bed.c.clock.now().toISOString(), 'webhook');
    // Act
    const res = await getBilling();
    // Assess
    expect(res.body.included_allotment).toBe(2997);
  });

  it("counts a yearly plan's pool down by the sends of its annual cycle's months, not before", async () => {
    // Prepare: pro by the year, its cycle begun on 15 January (the clock is in March).
    await new BillingRepository(bed.c.store).applySubscription(
      bed.account.account_id,
      { customerId: 'cus_year', subscriptionId: 'sub_year', status: 'active', priceId: PRICES.pro_year, plan: 'pro', period: 'year', periodStart: Date.parse('2026-01-15T00:00:00Z') / 1000 },
      nowSeconds(),
      'evt_year',
    );
    await sendEmails(2, '2025-12-20T00:00:00.000Z');
    await sendEmails(3, '2026-01-20T00:00:00.000Z');
    await sendEmails(4, '2026-02-10T00:00:00.000Z');
    await sendEmails(5);
    // Act
    const res = await getBilling();
    // Assess
    expect(res.body).toEqual({ plan: 'pro', subscription_status: 'active', included_allotment: 600_000 - 12, recurring_interval: 'year' });
  });

  it('answers the free plan where billing is not configured, whatever was stored before', async () => {
    await new BillingRepository(bed.c.store).applySubscription(
      bed.account.account_id,
      { customerId: 'cus_old', subscriptionId: 'sub_old', status: 'active', priceId: PRICES.pro_month, plan: 'pro', period: 'month' },
      nowSeconds(),
      'evt_old',
    );
    bed.c.payments = undefined;
    const res = await getBilling();
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ plan: 'free', subscription_status: 'none', included_allotment: 3000, recurring_interval: null });
  });

  it('needs an admin key', async () => {
    expect((await getBilling(bed.readKey)).body.error.code).toBe('forbidden');
    expect((await getBilling(bed.sendKey)).status).toBe(403);
    const none = await bed.request({ method: 'GET', path: '/v1/billing' });
    expect(none.status).toBe(401);
    expect(none.body.error.code).toBe('unauthorized');
  });
});

describe('POST /v1/billing/checkout', () => {
  it('creates the customer once and a Checkout Session for a new subscription, with links on the public base URL', async () => {
    // Act
    const res = await checkout({ plan: 'pro', period: 'year' }, admin());
    // Assess
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ url: expect.stringMatching(/^https:\/\/checkout\.stripe\.test\/c\/pay\/cs_/) });
    const [customer] = billing.stripe.calls('POST /v1/customers');
    expect(customer!.params['metadata[account_id]']).toBe(bed.account.account_id);
    expect(customer!.params.email).toBe('owner@example.com');
    expect(customer!.idempotencyKey).toBe(`postbox-customer-${bed.account.account_id}`);
    const [session] = billing.stripe.calls('POST /v1/checkout/sessions');
    expect(session!.params).toMatchObject({
      mode: 'subscription',
      customer: [...billing.stripe.customers.keys()][0],
      'line_items[0][price]': PRICES.pro_year,
      'line_items[0][quantity]': '1',
      client_reference_id: bed.account.account_id,
      'metadata[account_id]': bed.account.account_id,
      'subscription_data[metadata][account_id]': bed.account.account_id,
      success_url: 'http://api.test/?billing=success',
      cancel_url: 'http://api.test/?billing=canceled',
    });
  });

  it('reuses the customer on the next checkout', async () => {
    await checkout({ plan: 'starter', period: 'month' });
    await checkout({ plan: 'scale', period: 'month' });
    expect(billing.stripe.calls('POST /v1/customers')).toHaveLength(1);
    const sessions = billing.stripe.calls('POST /v1/checkout/sessions');
    expect(sessions.map((s) => s.params.customer)).toEqual([sessions[0]!.params.customer, sessions[0]!.params.customer]);
  });

  it('gives two concurrent first checkouts one customer', async () => {
    const [a, b] = await Promise.all([checkout({ plan: 'pro', period: 'month' }), checkout({ plan: 'growth', period: 'month' })]);
    expect([a.status, b.status]).toEqual([200, 200]);
    expect(billing.stripe.customers.size).toBe(1);
    const customerId = [...billing.stripe.customers.keys()][0];
    expect(billing.stripe.calls('POST /v1/checkout/sessions').map((s) => s.params.customer)).toEqual([customerId, customerId]);
    expect((await new BillingRepository(bed.c.store).get(bed.account.account_id))?.customer_id).toBe(customerId);
  });

  it('changes an active subscription in place, prorated, and GET shows the new plan at once', async () => {
    // Prepare: the account's customer holds an active pro subscription by the month.
    const customerId = await customerOfAccount();
    const subscription = billing.stripe.subscribe({ customer: customerId, price: PRICES.pro_month!, periodStart: nowSeconds() - 86400, periodEnd: nowSeconds() + 30 * 86400 });
    await sendEmails(4);
    billing.stripe.reset();
    billing.stripe.subscriptions.set(subscription.id, subscription);
    // Act
    const res = await checkout({ plan: 'growth', period: 'year' });
    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ updated: true, plan: 'growth' });
    expect(billing.stripe.calls('POST /v1/checkout/sessions')).toEqual([]);
    const [update] = billing.stripe.calls(`POST /v1/subscriptions/${subscription.id}`);
    expect(update!.params).toMatchObject({ 'items[0][id]': subscription.items.data[0]!.id, 'items[0][price]': PRICES.growth_year, proration_behavior: 'create_prorations' });
    expect((await getBilling()).body).toEqual({ plan: 'growth', subscription_status: 'active', included_allotment: 1_200_000 - 4, recurring_interval: 'year' });
  });

  it('starts a new checkout when the only subscription is over', async () => {
    const customerId = await customerOfAccount();
    billing.stripe.subscribe({ customer: customerId, price: PRICES.pro_month!, status: 'incomplete_expired', periodStart: nowSeconds(), periodEnd: nowSeconds() + 86400 });
    const res = await checkout({ plan: 'pro', period: 'month' });
    expect(res.body.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
  });

  it.each([
    ['an unknown plan', { plan: 'platinum', period: 'month' }, 'body.plan'],
    ['an unknown period', { plan: 'pro', period: 'week' }, 'body.period'],
    ['the free plan', { plan: 'free', period: 'month' }, 'body.plan'],
    ['no period', { plan: 'pro' }, 'body.period'],
    ['an extra field', { plan: 'pro', period: 'month', coupon: 'x' }, 'body'],
  ])('refuses %s with 400 and calls Stripe for nothing', async (_name, body, field) => {
    const res = await checkout(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 400 });
    expect(res.body.error.message).toContain(field);
    expect(billing.stripe.requests).toEqual([]);
  });

  it('refuses a missing body with 400', async () => {
    const res = await bed.request({ method: 'POST', path: '/v1/billing/checkout', key: admin() });
    expect(res.status).toBe(400);
  });

  it('answers 503 billing_not_configured without Stripe keys, and for a plan without a configured price', async () => {
    bed.c.payments = undefined;
    const off = await checkout({ plan: 'pro', period: 'month' });
    expect(off.status).toBe(503);
    expect(off.body.error.code).toBe('billing_not_configured');
    bed.c.payments = billing.payments;
    delete bed.c.config.billing!.prices.scale_year;
    const unpriced = await checkout({ plan: 'scale', period: 'year' });
    expect(unpriced.status).toBe(503);
    expect(unpriced.body.error.code).toBe('billing_not_configured');
    expect(billing.stripe.requests).toEqual([]);
  });

  it('answers 503 service_unavailable, not a 500, when Stripe cannot be reached', async () => {
    // Loopback port 1: nothing listens, the connection is refused at once.
    bed.c.payments = new StripePayments({ secretKey: 'sk_test_standin', webhookSecret: 'whsec_x', apiBase: 'http://127.0.0.1:1', maxNetworkRetries: 0 });
    const res = await checkout({ plan: 'pro', period: 'month' });
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('service_unavailable');
    expect(res.headers['retry-after']).toBe('5');
  });

  it('needs a live admin key', async () => {
    const body = { plan: 'pro', period: 'month' };
    expect((await checkout(body, bed.readKey)).status).toBe(403);
    expect((await checkout(body, bed.sendKey)).status).toBe(403);
    const test = await checkout(body, bed.account.test_admin_key);
    expect(test.status).toBe(403);
    expect(test.body.error.code).toBe('forbidden');
    expect((await bed.request({ method: 'POST', path: '/v1/billing/checkout', body })).status).toBe(401);
    expect(billing.stripe.requests).toEqual([]);
  });
});

describe('POST /v1/billing/portal', () => {
  it("opens a portal session for the account's customer, returning to the public base URL", async () => {
    const customerId = await customerOfAccount();
    const res = await portal();
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ url: expect.stringMatching(/^https:\/\/billing\.stripe\.test\/p\/session\/bps_/) });
    const [session] = billing.stripe.calls('POST /v1/billing_portal/sessions');
    expect(session!.params).toEqual({ customer: customerId, return_url: 'http://api.test/' });
    expect(billing.stripe.calls('POST /v1/customers')).toHaveLength(1);
  });

  it('creates the customer of an account that has none yet', async () => {
    const res = await portal();
    expect(res.status).toBe(200);
    expect(billing.stripe.calls('POST /v1/customers')).toHaveLength(1);
    expect((await new BillingRepository(bed.c.store).get(bed.account.account_id))?.customer_id).toBe([...billing.stripe.customers.keys()][0]);
  });

  it('answers 503 without Stripe keys, 403 to other scopes and test-mode keys, 401 without a key', async () => {
    bed.c.payments = undefined;
    expect((await portal()).body.error).toMatchObject({ code: 'billing_not_configured', status: 503 });
    expect((await portal(bed.readKey)).status).toBe(403);
    expect((await portal(bed.account.test_admin_key)).status).toBe(403);
    expect((await bed.request({ method: 'POST', path: '/v1/billing/portal' })).status).toBe(401);
  });
});
