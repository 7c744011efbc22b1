// Stripe's event notifications (POST /v1/billing/webhook): verified over the raw body, then the
// subscription they are about is written as the account's state. An event is applied once (its
// id is remembered), and never over newer state (Stripe's `created`, compared in a conditional write).
import type { Logger } from '../ports/logger';
import type { ProviderEvent, ProviderSubscription, Payments } from '../ports/payments';
import { BillingRepository } from './repository';
import { configuredPayments, nowSeconds, stateOf, type BillingDeps } from './service';

/** The events that change plan state; any other verified event is acknowledged and ignored. */
export const handledEvents = [
  'checkout.session.completed',
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
  'invoice.paid',
  'invoice.payment_failed',
] as const;

/**
 * The subscription an event is about: carried by the subscription events; read from Stripe for a
 * completed checkout or an invoice, which name it only (an invoice's outcome shows in its status).
 */
async function subscriptionIn(event: ProviderEvent, payments: Payments): Promise<ProviderSubscription | undefined> {
  if (!(handledEvents as readonly string[]).includes(event.type)) return undefined;
  if (event.subscription) return event.subscription;
  return event.subscriptionId ? payments.getSubscription(event.subscriptionId) : undefined;
}

export type StripeEventOutcome = 'applied' | 'stale' | 'duplicate' | 'ignored';

export async function receiveStripeEvent(
  deps: BillingDeps & { logger: Logger },
  rawBody: Buffer,
  signature: string | undefined,
): Promise<StripeEventOutcome> {
  const payments = configuredPayments(deps);
  const event = payments.verifyEvent(rawBody, signature, deps.clock.now());
  const repository = new BillingRepository(deps.store);
  if (await repository.eventSeen(event.id)) return 'duplicate';
  let outcome: StripeEventOutcome = 'ignored';
  const subscription = await subscriptionIn(event, payments);
  if (subscription) {
    const accountId = await repository.accountOfCustomer(subscription.customerId);
    if (!accountId) {
      // Not a customer this deployment created (another product on the same Stripe account).
      deps.logger.warn('Stripe event about an unknown customer ignored', { eventId: event.id, type: event.type, customerId: subscription.customerId });
    } else {
      const written = await repository.applySubscription(accountId, stateOf(subscription, deps.config.billing?.prices ?? {}), event.created, event.id);
      outcome = written ? 'applied' : 'stale';
    }
  }
  // Remembered only once applied: a failure above leaves Stripe's retry to apply it.
  await repository.rememberEvent(event.id, nowSeconds(deps.clock));
  return outcome;
}
