// Billing on `npm start`: the Stripe keys, a price id and STRIPE_API_BASE from the environment
// configure it (the client talks to a Stripe stand-in on loopback); a checkout answers Stripe's
// page, and a Stripe-signed event posted over real HTTP, verified over the bytes as they arrived,
// puts the plan in force.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { admitted, api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { signedEvent, startStripeStandIn, type StripeStandIn } from '../support/stripe-stand-in';

const WEBHOOK_SECRET = 'whsec_e2e_0123456789';
let dataDir: string;
let runtime: RuntimeProcess;
let stripe: StripeStandIn;
let adminKey: string;

beforeAll(async () => {
  stripe = await startStripeStandIn();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-billing-'));
  runtime = await startRuntimeProcess({
    DATA_DIR: dataDir,
    STRIPE_SECRET_KEY: 'sk_test_e2e',
    STRIPE_WEBHOOK_SECRET: WEBHOOK_SECRET,
    STRIPE_API_BASE: stripe.url,
    STRIPE_PRICE_PRO_MONTH: 'price_pro_month',
  });
  adminKey = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).admin_key;
}, 60_000);
afterAll(async () => {
  await runtime?.stop();
  await stripe?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

it('checks out through Stripe and takes the plan from a signed event', async () => {
  // Act: a checkout, then Stripe's event about the subscription it made.
  const checkout = await api(runtime.url, 'POST', '/v1/billing/checkout', adminKey, { plan: 'pro', period: 'month' });
  const customer = [...stripe.customers.keys()][0]!;
  const now = Math.floor(Date.now() / 1000);
  const subscription = stripe.subscribe({ customer, price: 'price_pro_month', periodStart: now, periodEnd: now + 30 * 86400 });
  const { rawBody, signature } = signedEvent(WEBHOOK_SECRET, { id: 'evt_e2e_1', type: 'customer.subscription.created', created: now, object: subscription }, now);
  const post = (sig: string) => admitted(() => fetch(`${runtime.url}/v1/billing/webhook`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': sig }, body: rawBody }), 'webhook');
  const forged = await post(signature.replace(/v1=[0-9a-f]+/, `v1=${'0'.repeat(64)}`));
  const delivered = await post(signature);
  const billing = await api(runtime.url, 'GET', '/v1/billing', adminKey);

  // Assess
  expect(checkout.status).toBe(200);
  expect(checkout.body.url).toMatch(/^https:\/\/checkout\.stripe\.test\//);
  expect(forged.status).toBe(403);
  expect(((await forged.json()) as { error: { code: string } }).error.code).toBe('invalid_signature');
  expect(delivered.status).toBe(200);
  expect(billing.body).toEqual({ plan: 'pro', subscription_status: 'active', included_allotment: 50_000, recurring_interval: 'month' });
});
