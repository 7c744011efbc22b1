// The payment provider (Stripe): customers, hosted checkout and portal pages, subscriptions, and
// its signed event notifications. Provider-neutral shapes; shared/adapters/stripe-payments.ts
// implements it over Stripe's own library.
import { ApiError } from '../errors';

/** A subscription as the provider holds it now. Times are epoch seconds. */
export interface ProviderSubscription {
  id: string;
  customerId: string;
  /** The provider's status: active, trialing, past_due, canceled, unpaid, incomplete, … */
  status: string;
  /** The one item's price and id (a plan is one price); absent on a subscription without items. */
  priceId?: string;
  itemId?: string;
  currentPeriodStart?: number;
  currentPeriodEnd?: number;
  metadata: Record<string, string>;
}

/** A verified event notification. `created` is the provider's epoch seconds. */
export interface ProviderEvent {
  id: string;
  type: string;
  created: number;
  /** The subscription, when the event's object is one (customer.subscription.*). */
  subscription?: ProviderSubscription;
  /** The subscription a checkout session or an invoice is about, by id. */
  subscriptionId?: string;
}

export interface Payments {
  /** A customer for the account; the same idempotency key gives the same customer. */
  createCustomer(input: { accountId: string; email?: string }, idempotencyKey: string): Promise<string>;
  /** A hosted checkout page for a new subscription to one price; its URL. */
  createCheckout(input: { customerId: string; priceId: string; accountId: string; successUrl: string; cancelUrl: string }): Promise<string>;
  /** The customer's subscriptions that are not canceled. */
  subscriptionsOf(customerId: string): Promise<ProviderSubscription[]>;
  /** Undefined when Stripe has no such subscription. */
  getSubscription(subscriptionId: string): Promise<ProviderSubscription | undefined>;
  /** Moves the subscription's item to another price, prorated. */
  changePrice(subscription: ProviderSubscription, priceId: string): Promise<ProviderSubscription>;
  /** A hosted customer portal session; its URL. */
  createPortal(input: { customerId: string; returnUrl: string }): Promise<string>;
  /** The event the raw body holds, if its signature header verifies at `now`; InvalidSignatureError otherwise. */
  verifyEvent(rawBody: Buffer, signatureHeader: string | undefined, now: Date): ProviderEvent;
}

export class InvalidSignatureError extends ApiError {
  constructor(options: { cause?: unknown } = {}) {
    super('invalid_signature', 'the Stripe-Signature header does not verify over this body', options);
    this.name = 'InvalidSignatureError';
  }
}
