// Billing use cases: the plan in force with what is left of its allotment, a checkout (new, or a
// change in place of a live subscription), the customer portal. Stripe is the payments port;
// where it is not configured, checkout and portal answer 503 and the plan is `free`.
import { channels } from '../accounts/schemas';
import { ApiError } from '../errors';
import { type BillingPeriod, type PaidPlan } from '../platform';
import type { Payments, ProviderSubscription } from '../ports/payments';
import type { Clock } from '../ports/clock';
import type { Container } from '../runtime/container';
import { UsageRepository } from './usage/repository';
import { periodOf } from './usage/service';
import { allotmentOf, liveStatuses, type Plan } from './plans';
import { BillingRepository, type BillingItem, type SubscriptionState } from './repository';
import { subscriptionStatuses, type BillingView, type CheckoutBody, type CheckoutView, type SubscriptionStatus } from './schemas';

export type BillingDeps = Pick<Container, 'store' | 'clock' | 'config' | 'payments'>;
/** Stripe price ids by plan and period (`pro_year`), as configured. */
type Prices = NonNullable<Container['config']['billing']>['prices'];
type PriceSlot = keyof Prices;

export const nowSeconds = (clock: Clock): number => Math.floor(clock.now().getTime() / 1000);

/** The payments port, or 503 billing_not_configured where the deployment has no Stripe keys. */
export function configuredPayments(deps: Pick<Container, 'payments'>): Payments {
  if (!deps.payments) throw new ApiError('billing_not_configured', 'billing is not configured in this deployment (STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET)');
  return deps.payments;
}

const pricesOf = (deps: Pick<Container, 'config'>): Prices => deps.config.billing?.prices ?? {};

/** The plan and period a Stripe price id stands for, by the configured price ids. */
function termsOfPrice(prices: Prices, priceId: string | undefined): { plan: PaidPlan; period: BillingPeriod } | undefined {
  const slot = (Object.keys(prices) as PriceSlot[]).find((s) => priceId !== undefined && prices[s] === priceId);
  if (!slot) return undefined;
  const [plan, period] = slot.split('_') as [PaidPlan, BillingPeriod];
  return { plan, period };
}

/** A provider subscription as the state to store; a price no setting names leaves plan and period out. */
export function stateOf(subscription: ProviderSubscription, prices: Prices): SubscriptionState {
  return {
    customerId: subscription.customerId,
    subscriptionId: subscription.id,
    status: subscription.status,
    priceId: subscription.priceId,
    ...termsOfPrice(prices, subscription.priceId),
    periodStart: subscription.currentPeriodStart,
    periodEnd: subscription.currentPeriodEnd,
  };
}

const statusOf = (stored: string | undefined): SubscriptionStatus =>
  stored === undefined ? 'none' : ((subscriptionStatuses as readonly string[]).includes(stored) ? (stored as SubscriptionStatus) : 'incomplete');

/** The calendar months (YYYY-MM, UTC) from `from`'s through `to`'s, at most 12: a yearly plan's annual cycle. */
function monthsBetween(from: Date, to: Date): string[] {
  const months: string[] = [];
  const cursor = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth(), 1));
  while (cursor <= to && months.length < 12) {
    months.push(periodOf(cursor));
    cursor.setUTCMonth(cursor.getUTCMonth() + 1);
  }
  return months.length ? months : [periodOf(to)];
}

/**
 * Live emails sent in the cycle, from the usage counters, which count by calendar month: this
 * month's, or for a yearly plan the months of its annual cycle so far.
 */
async function emailsSent(deps: BillingDeps, accountId: string, period: BillingPeriod | null, cycleStart: number | undefined): Promise<number> {
  const now = deps.clock.now();
  const months = period === 'year' && cycleStart !== undefined ? monthsBetween(new Date(cycleStart * 1000), now) : [periodOf(now)];
  const usage = new UsageRepository(deps.store);
  const rows = await Promise.all(months.map((month) => usage.byChannel(accountId, month)));
  const email = channels.indexOf('email');
  // Every live email counts against the plan, broadcast as well as transactional.
  return rows.reduce((sum, row) => sum + (row[email]?.send_count ?? 0) + (row[email]?.broadcast_send_count ?? 0), 0);
}

/** GET /v1/billing: the plan in force, the subscription's status, what is left of the allotment. */
export async function getBilling(deps: BillingDeps, accountId: string): Promise<BillingView> {
  // Without Stripe every account is on the free plan, whatever an earlier configuration stored.
  const item: BillingItem | undefined = deps.payments ? await new BillingRepository(deps.store).get(accountId) : undefined;
  const inForce = item?.plan !== undefined && item.subscription_status !== undefined && liveStatuses.includes(item.subscription_status);
  const plan: Plan = inForce ? item!.plan! : 'free';
  const period: BillingPeriod | null = inForce ? (item!.period ?? 'month') : null;
  const sent = await emailsSent(deps, accountId, period, item?.period_start);
  return {
    plan,
    subscription_status: statusOf(item?.subscription_status),
    included_allotment: Math.max(0, allotmentOf(plan, period) - sent),
    recurring_interval: period,
  };
}

/**
 * The account's Stripe customer, created on first need. Two concurrent first needs ask Stripe with
 * the same idempotency key (one customer), and the conditional write keeps the first stored.
 */
async function customerOf(deps: BillingDeps, payments: Payments, account: { id: string; email: string | null }): Promise<string> {
  const repository = new BillingRepository(deps.store);
  const stored = (await repository.get(account.id))?.customer_id;
  if (stored) return stored;
  const created = await payments.createCustomer({ accountId: account.id, ...(account.email ? { email: account.email } : {}) }, `postbox-customer-${account.id}`);
  return repository.saveCustomer(account.id, created);
}

/**
 * POST /v1/billing/checkout: a live subscription (active, trialing, past_due) moves to the new price
 * in place, prorated; otherwise a Stripe Checkout page for a new one.
 */
export async function checkout(deps: BillingDeps, account: { id: string; email: string | null }, body: CheckoutBody, baseUrl: string): Promise<CheckoutView> {
  const payments = configuredPayments(deps);
  const prices = pricesOf(deps);
  const priceId = prices[`${body.plan}_${body.period}`];
  if (!priceId) throw new ApiError('billing_not_configured', `no Stripe price is configured for ${body.plan} by the ${body.period} in this deployment`);
  const customerId = await customerOf(deps, payments, account);
  const live = (await payments.subscriptionsOf(customerId)).find((s) => liveStatuses.includes(s.status));
  if (live) {
    const changed = live.priceId === priceId ? live : await payments.changePrice(live, priceId);
    // Written now, so GET shows it at once; Stripe's own event about the change follows and agrees.
    await new BillingRepository(deps.store).applySubscription(account.id, stateOf(changed, prices), nowSeconds(deps.clock), 'checkout');
    return { updated: true, plan: body.plan };
  }
  const url = await payments.createCheckout({
    customerId,
    priceId,
    accountId: account.id,
    successUrl: `${baseUrl}/?billing=success`,
    cancelUrl: `${baseUrl}/?billing=canceled`,
  });
  return { url };
}

/** POST /v1/billing/portal: Stripe's customer portal; an account without a customer yet gets one. */
export async function openPortal(deps: BillingDeps, account: { id: string; email: string | null }, baseUrl: string): Promise<{ url: string }> {
  const payments = configuredPayments(deps);
  const customerId = await customerOf(deps, payments, account);
  return { url: await payments.createPortal({ customerId, returnUrl: `${baseUrl}/` }) };
}
