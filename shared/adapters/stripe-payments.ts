// The payments port over Stripe's own library. Only the billing function's bundle carries it
// (the `billing` need; lib/bundling.ts). Signatures are verified by Stripe's constructEvent over
// the exact bytes received.
import Stripe from 'stripe';
import { ApiError } from '../errors';
import { InvalidSignatureError, type Payments, type ProviderEvent, type ProviderSubscription } from '../ports/payments';

export interface StripePaymentsOptions {
  secretKey: string;
  webhookSecret: string;
  /** Another host for the client (STRIPE_API_BASE): tests and local stand-ins only. */
  apiBase?: string;
  /** Retries of the library's own (idempotent requests, 409 and 5xx); the tests' stand-in takes 0. */
  maxNetworkRetries?: number;
}

/** How long a signature stays acceptable after it was made: Stripe's own default. */
const SIGNATURE_TOLERANCE_SECONDS = 300;

function clientOptions(options: StripePaymentsOptions): ConstructorParameters<typeof Stripe>[1] {
  const base = options.apiBase ? new URL(options.apiBase) : undefined;
  return {
    maxNetworkRetries: options.maxNetworkRetries ?? 2,
    timeout: 20_000,
    ...(base ? { host: base.hostname, port: base.port || (base.protocol === 'http:' ? 80 : 443), protocol: base.protocol === 'http:' ? 'http' : 'https' } : {}),
  };
}

const idOf = (value: string | { id: string } | null | undefined): string | undefined => (typeof value === 'string' ? value : (value?.id ?? undefined));

export function subscriptionOf(subscription: Stripe.Subscription): ProviderSubscription {
  const item = subscription.items?.data?.[0];
  return {
    id: subscription.id,
    customerId: idOf(subscription.customer) ?? '',
    status: subscription.status,
    ...(item ? { priceId: item.price?.id, itemId: item.id, currentPeriodStart: item.current_period_start, currentPeriodEnd: item.current_period_end } : {}),
    metadata: { ...(subscription.metadata ?? {}) },
  };
}

/** What an event's object says about a subscription: the subscription itself, or its id. */
function about(object: { object?: string }): Pick<ProviderEvent, 'subscription' | 'subscriptionId'> {
  switch (object.object) {
    case 'subscription':
      return { subscription: subscriptionOf(object as Stripe.Subscription) };
    case 'checkout.session': {
      const id = idOf((object as Stripe.Checkout.Session).subscription);
      return id ? { subscriptionId: id } : {};
    }
    case 'invoice': {
      const invoice = object as Stripe.Invoice & { subscription?: string | { id: string } | null };
      // Where API versions since 2025-03 put it, or where older ones did.
      const id = idOf(invoice.parent?.subscription_details?.subscription) ?? idOf(invoice.subscription);
      return id ? { subscriptionId: id } : {};
    }
    default:
      return {};
  }
}

/** Stripe unreachable, busy or failing on its side: the caller may try again (503), never a 500. */
async function call<T>(what: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof Stripe.errors.StripeConnectionError || error instanceof Stripe.errors.StripeAPIError || error instanceof Stripe.errors.StripeRateLimitError) {
      throw new ApiError('service_unavailable', `the payment provider did not complete ${what}; try again`, { cause: error, headers: { 'retry-after': '5' } });
    }
    throw error;
  }
}

export class StripePayments implements Payments {
  private readonly stripe: Stripe;

  constructor(private readonly options: StripePaymentsOptions) {
    this.stripe = new Stripe(options.secretKey, clientOptions(options));
  }

  async createCustomer(input: { accountId: string; email?: string }, idempotencyKey: string): Promise<string> {
    const customer = await call('creating the customer', () =>
      this.stripe.customers.create({ metadata: { account_id: input.accountId }, ...(input.email ? { email: input.email } : {}) }, { idempotencyKey }),
    );
    return customer.id;
  }

  async createCheckout(input: { customerId: string; priceId: string; accountId: string; successUrl: string; cancelUrl: string }): Promise<string> {
    const session = await call('creating the checkout session', () =>
      this.stripe.checkout.sessions.create({
        mode: 'subscription',
        customer: input.customerId,
        line_items: [{ price: input.priceId, quantity: 1 }],
        success_url: input.successUrl,
        cancel_url: input.cancelUrl,
        client_reference_id: input.accountId,
        metadata: { account_id: input.accountId },
        subscription_data: { metadata: { account_id: input.accountId } },
      }),
    );
    if (!session.url) throw new Error(`Stripe answered checkout session ${session.id} without a url`);
    return session.url;
  }

  async subscriptionsOf(customerId: string): Promise<ProviderSubscription[]> {
    const list = await call('listing subscriptions', () => this.stripe.subscriptions.list({ customer: customerId, limit: 10 }));
    return list.data.map(subscriptionOf);
  }

  async getSubscription(subscriptionId: string): Promise<ProviderSubscription | undefined> {
    try {
      return subscriptionOf(await call('reading the subscription', () => this.stripe.subscriptions.retrieve(subscriptionId)));
    } catch (error) {
      if (error instanceof Stripe.errors.StripeInvalidRequestError && error.code === 'resource_missing') return undefined;
      throw error;
    }
  }

  async changePrice(subscription: ProviderSubscription, priceId: string): Promise<ProviderSubscription> {
    if (!subscription.itemId) throw new Error(`subscription ${subscription.id} has no item to change`);
    const updated = await call('changing the subscription', () =>
      this.stripe.subscriptions.update(subscription.id, {
        items: [{ id: subscription.itemId!, price: priceId }],
        proration_behavior: 'create_prorations',
      }),
    );
    return subscriptionOf(updated);
  }

  async createPortal(input: { customerId: string; returnUrl: string }): Promise<string> {
    const session = await call('creating the portal session', () => this.stripe.billingPortal.sessions.create({ customer: input.customerId, return_url: input.returnUrl }));
    return session.url;
  }

  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined, now: Date): ProviderEvent {
    if (!signatureHeader) throw new InvalidSignatureError();
    let event: Stripe.Event;
    try {
      // The signature's age is taken at `now` (Stripe's `receivedAt`, in milliseconds), the clock port's time.
      event = this.stripe.webhooks.constructEvent(rawBody, signatureHeader, this.options.webhookSecret, SIGNATURE_TOLERANCE_SECONDS, undefined, now.getTime());
    } catch (error) {
      throw new InvalidSignatureError({ cause: error });
    }
    return { id: event.id, type: event.type, created: event.created, ...about(event.data.object as { object?: string }) };
  }
}
