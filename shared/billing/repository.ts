// Stored billing state: one item per account (its Stripe customer and subscription), a reference
// from each customer to its account, and the Stripe events already applied.
import { keys, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { type BillingPeriod, type PaidPlan } from '../platform';
import { liveStatuses } from './plans';

export interface BillingItem extends ItemKey {
  entity: 'billing';
  account_id: string;
  customer_id?: string;
  subscription_id?: string;
  subscription_status?: string;
  /** Resolved from the price when the state was written; absent for a price no setting names. */
  plan?: PaidPlan;
  period?: BillingPeriod;
  price_id?: string;
  /** The current billing cycle, epoch seconds (a yearly plan's annual cycle). */
  period_start?: number;
  period_end?: number;
  /** Stripe's `created` (epoch seconds) of what last wrote the state: older news never overwrites it. */
  state_at?: number;
  state_event?: string;
}

interface CustomerRefItem extends ItemKey {
  entity: 'billing_customer';
  account_id: string;
  customer_id: string;
}

/** What a subscription event (or a change made in place) says the account's state now is. */
export interface SubscriptionState {
  customerId: string;
  subscriptionId: string;
  status: string;
  priceId?: string;
  plan?: PaidPlan;
  period?: BillingPeriod;
  periodStart?: number;
  periodEnd?: number;
}

/** Stripe redelivers an event for up to three days; its id is kept a little longer. */
const EVENT_MEMORY_SECONDS = 7 * 24 * 3600;

export class BillingRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string): Promise<BillingItem | undefined> {
    return this.store.get<BillingItem>(keys.billing(accountId));
  }

  /**
   * Records the account's customer, once: the first customer stored wins and is returned, so two
   * concurrent checkouts end up with one customer (Stripe's idempotency key makes it the same one).
   */
  async saveCustomer(accountId: string, customerId: string): Promise<string> {
    // The reference first: an event about the customer can always find its account.
    await this.store.put<CustomerRefItem>({ ...keys.billingCustomer(customerId), entity: 'billing_customer', account_id: accountId, customer_id: customerId });
    const saved = await wrote(
      this.store.update(keys.billing(accountId), {
        expression: 'SET entity = :entity, account_id = :account, customer_id = :customer',
        values: { ':entity': 'billing', ':account': accountId, ':customer': customerId },
        condition: 'attribute_not_exists(customer_id) OR customer_id = :customer',
      }),
    );
    if (saved) return customerId;
    const stored = await this.get(accountId);
    if (!stored?.customer_id) throw new Error(`billing item of ${accountId} refused customer ${customerId} but holds none`);
    return stored.customer_id;
  }

  async accountOfCustomer(customerId: string): Promise<string | undefined> {
    return (await this.store.get<CustomerRefItem>(keys.billingCustomer(customerId)))?.account_id;
  }

  /**
   * Writes the subscription state if nothing newer was written (Stripe's `created`, `at`, is not
   * older than the stored one), and never lets news of another subscription that is over replace
   * a live one. False when the stored state won.
   */
  applySubscription(accountId: string, state: SubscriptionState, at: number, source: string): Promise<boolean> {
    // Every attribute by a placeholder name: some (plan) are DynamoDB reserved words.
    const fields: Array<[string, unknown]> = [
      ['entity', 'billing'],
      ['account_id', accountId],
      ['subscription_id', state.subscriptionId],
      ['subscription_status', state.status],
      ['state_at', at],
      ['state_event', source],
      ['plan', state.plan],
      ['period', state.period],
      ['price_id', state.priceId],
      ['period_start', state.periodStart],
      ['period_end', state.periodEnd],
    ];
    const names: Record<string, string> = { '#customer_id': 'customer_id' };
    const values: Record<string, unknown> = { ':customer_id': state.customerId, ':at': at, ':subscription_id': state.subscriptionId };
    const set = ['#customer_id = if_not_exists(#customer_id, :customer_id)'];
    const remove: string[] = [];
    for (const [name, value] of fields) {
      names[`#${name}`] = name;
      if (value === undefined) remove.push(`#${name}`);
      else {
        set.push(`#${name} = :${name}`);
        values[`:${name}`] = value;
      }
    }
    let condition = '(attribute_not_exists(#state_at) OR #state_at <= :at)';
    if (!liveStatuses.includes(state.status)) {
      const live = liveStatuses.map((status, i) => {
        values[`:live${i}`] = status;
        return `:live${i}`;
      });
      condition += ` AND (attribute_not_exists(#subscription_id) OR #subscription_id = :subscription_id OR NOT (#subscription_status IN (${live.join(', ')})))`;
    }
    return wrote(
      this.store.update(keys.billing(accountId), {
        expression: `SET ${set.join(', ')}${remove.length ? ` REMOVE ${remove.join(', ')}` : ''}`,
        names,
        values,
        condition,
      }),
    );
  }

  async eventSeen(eventId: string): Promise<boolean> {
    return (await this.store.get(keys.billingEvent(eventId))) !== undefined;
  }

  async rememberEvent(eventId: string, nowSeconds: number): Promise<void> {
    await this.store.put({ ...keys.billingEvent(eventId), entity: 'billing_event', expires_at: nowSeconds + EVENT_MEMORY_SECONDS });
  }
}
