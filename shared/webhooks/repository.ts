// The stored webhook entities: subscriptions (in their account's partition) and the delivery log
// (one partition per subscription, newest first by id). Keys come from shared/db/keys.ts; the
// services see items and outcomes, never keys or conditions.
import { keys, type ItemKey, keyQueries, type KeyQuery } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { isId } from '../ports/ids';
import { queryPage, type Page, type PageRequest } from '../pagination';
import type { DeliveryStatus, SubscribableType } from './model';
import type { DeliveryView, SubscriptionView } from './schemas';
import { allItems } from '../db/all-items';

export interface SubscriptionItem extends ItemKey {
  entity: 'webhook';
  id: string;
  account_id: string;
  endpoint_url: string;
  /** Empty means every subscribable type. */
  event_types: SubscribableType[];
  is_active: boolean;
  /** The signing secret sealed with shared/secret-box (context: the subscription id). */
  secret_sealed: string;
  /** Made by a test-mode caller (issue 28); absent on subscriptions made before, which count as live. */
  test_mode?: boolean;
  created_at: string;
  updated_at: string;
}

export type NewSubscription = Omit<SubscriptionItem, keyof ItemKey | 'entity'>;

/** What PUT /v1/webhooks/{id} may change. */
export type SubscriptionChanges = Partial<Pick<SubscriptionItem, 'endpoint_url' | 'event_types' | 'is_active'>>;

/** The stored delivery: its wire view plus what the view leaves out (account, body, errors). */
export interface DeliveryItem extends ItemKey, DeliveryView {
  entity: 'webhook_delivery';
  account_id: string;
  last_error?: string;
  /** The exact request body: every attempt sends the same bytes. */
  body: string;
  updated_at: string;
  /** Epoch seconds: the log entry's end of life. */
  expires_at?: number;
}

export type NewDelivery = Omit<DeliveryItem, keyof ItemKey | 'entity'>;

/** An attempt's result as recorded on its delivery. */
export interface AttemptRecord {
  status: DeliveryStatus;
  /** The attempt count after this attempt. */
  attempt_count: number;
  response_status: number;
  last_error?: string;
  /** Set only while a retry is scheduled; removed otherwise. */
  next_retry_at?: string;
  updated_at: string;
}

export const toSubscriptionView = (s: NewSubscription): SubscriptionView => ({
  id: s.id,
  account_id: s.account_id,
  endpoint_url: s.endpoint_url,
  event_types: s.event_types,
  is_active: s.is_active,
  created_at: s.created_at,
});

export function toDeliveryView(d: NewDelivery): DeliveryView {
  const view: DeliveryView = {
    id: d.id,
    subscription_id: d.subscription_id,
    event_id: d.event_id,
    event_type: d.event_type,
    status: d.status,
    attempt_count: d.attempt_count,
    response_status: d.response_status,
    created_at: d.created_at,
  };
  if (d.next_retry_at && d.status === 'failed') view.next_retry_at = d.next_retry_at;
  return view;
}

/** The write's result, or undefined when its condition did not hold. */
async function unlessConditionFailed<T>(write: Promise<T>): Promise<T | undefined> {
  let result: T | undefined;
  return (await wrote(write.then((r) => void (result = r)))) ? result : undefined;
}

const accountSubscriptions = (accountId: string): KeyQuery => keyQueries.accountItems(accountId, keys.webhookPrefix);

export class SubscriptionRepository {
  constructor(private readonly store: Store) {}

  /** Undefined when absent or another account's; a malformed id names nothing and stays out of keys. */
  get(accountId: string, subscriptionId: string): Promise<SubscriptionItem | undefined> {
    if (!isId(subscriptionId, 'whk')) return Promise.resolve(undefined);
    return this.store.get<SubscriptionItem>(keys.webhook(accountId, subscriptionId));
  }

  /** False when a subscription with this id exists already. */
  create(item: NewSubscription): Promise<boolean> {
    return wrote(this.store.create<SubscriptionItem>({ ...keys.webhook(item.account_id, item.id), entity: 'webhook', ...item }));
  }

  /** How many subscriptions the account holds, counting no further than `atMost`. */
  async count(accountId: string, atMost: number): Promise<number> {
    return (await this.store.query<SubscriptionItem>({ ...accountSubscriptions(accountId), limit: atMost })).items.length;
  }

  /** Every subscription of the account (at most a few dozen), oldest first. */
  /** `consistent: false` for a read that may miss a subscription made a moment ago (half the read units). */
  async all(accountId: string, options: { consistent?: boolean } = {}): Promise<SubscriptionItem[]> {
    return allItems<SubscriptionItem>(this.store, { ...accountSubscriptions(accountId), ...options });
  }

  /** A page of the account's subscriptions, newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<SubscriptionItem>> {
    return queryPage<SubscriptionItem>(this.store, accountSubscriptions(accountId), page);
  }

  /** The updated subscription; undefined when it is gone. */
  update(accountId: string, subscriptionId: string, changes: SubscriptionChanges, updatedAt: string): Promise<SubscriptionItem | undefined> {
    const fields = Object.fromEntries(Object.entries({ ...changes, updated_at: updatedAt }).filter(([, v]) => v !== undefined));
    const names = Object.keys(fields);
    return unlessConditionFailed(
      this.store.update<SubscriptionItem>(keys.webhook(accountId, subscriptionId), {
        expression: `SET ${names.map((n) => `#${n} = :${n}`).join(', ')}`,
        condition: 'attribute_exists(pk)',
        names: Object.fromEntries(names.map((n) => [`#${n}`, n])),
        values: Object.fromEntries(Object.entries(fields).map(([n, v]) => [`:${n}`, v])),
      }),
    );
  }

  /**
   * Swaps the sealed secret only if it is still `from`: of two racing rotations one wins.
   * Undefined when the secret changed meanwhile or the subscription is gone.
   */
  replaceSecret(accountId: string, subscriptionId: string, change: { from: string; to: string; updatedAt: string }): Promise<SubscriptionItem | undefined> {
    return unlessConditionFailed(
      this.store.update<SubscriptionItem>(keys.webhook(accountId, subscriptionId), {
        expression: 'SET secret_sealed = :new, updated_at = :now',
        condition: 'secret_sealed = :old',
        values: { ':new': change.to, ':old': change.from, ':now': change.updatedAt },
      }),
    );
  }

  /** False when there was no such subscription. */
  remove(accountId: string, subscriptionId: string): Promise<boolean> {
    if (!isId(subscriptionId, 'whk')) return Promise.resolve(false);
    return wrote(this.store.delete(keys.webhook(accountId, subscriptionId), { expression: 'attribute_exists(pk)' }));
  }
}

export class DeliveryRepository {
  constructor(private readonly store: Store) {}

  get(subscriptionId: string, deliveryId: string): Promise<DeliveryItem | undefined> {
    return this.store.get<DeliveryItem>(keys.webhookDelivery(subscriptionId, deliveryId));
  }

  /** False when this delivery exists already. */
  create(item: NewDelivery): Promise<boolean> {
    return wrote(this.store.create<DeliveryItem>({ ...keys.webhookDelivery(item.subscription_id, item.id), entity: 'webhook_delivery', ...item }));
  }

  /** A page of the subscription's delivery log, most recent first (delivery ids sort by time). */
  /** The subscription's whole delivery log (30 days), oldest first. */
  wholeLog(subscriptionId: string): Promise<DeliveryItem[]> {
    return allItems<DeliveryItem>(this.store, keyQueries.partition(keys.deliveriesPartition(subscriptionId)));
  }

  list(subscriptionId: string, page: PageRequest): Promise<Page<DeliveryItem>> {
    return queryPage<DeliveryItem>(this.store, keyQueries.partition(keys.deliveriesPartition(subscriptionId)), page);
  }

  /**
   * Records an attempt unless another worker recorded one first: the write holds only while the
   * stored attempt count is still `delivery`'s. False when it was not written.
   */
  recordAttempt(delivery: Pick<DeliveryItem, 'subscription_id' | 'id' | 'attempt_count'>, result: AttemptRecord): Promise<boolean> {
    const set = ['#status = :status', 'attempt_count = :count', 'response_status = :code', 'updated_at = :now'];
    const values: Record<string, unknown> = {
      ':status': result.status,
      ':count': result.attempt_count,
      ':code': result.response_status,
      ':now': result.updated_at,
      ':expected': delivery.attempt_count,
    };
    if (result.last_error !== undefined) {
      set.push('last_error = :error');
      values[':error'] = result.last_error.slice(0, 500);
    }
    if (result.next_retry_at) {
      set.push('next_retry_at = :next');
      values[':next'] = result.next_retry_at;
    }
    return wrote(
      this.store.update(keys.webhookDelivery(delivery.subscription_id, delivery.id), {
        expression: `SET ${set.join(', ')}${result.next_retry_at ? '' : ' REMOVE next_retry_at'}`,
        condition: 'attempt_count = :expected',
        names: { '#status': 'status' },
        values,
      }),
    );
  }
}
