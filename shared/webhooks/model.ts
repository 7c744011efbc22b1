// Webhook subscriptions and deliveries: stored shapes, wire forms and the subscribable types.

export const subscribableTypes = ['sent', 'delivered', 'opened', 'clicked', 'delivery_delayed', 'bounced', 'complained', 'failed', 'email.received'] as const;
export type SubscribableType = (typeof subscribableTypes)[number];

export const isSubscribable = (type: string): type is SubscribableType => (subscribableTypes as readonly string[]).includes(type);

export interface SubscriptionItem {
  pk: string;
  sk: string;
  entity: 'webhook';
  id: string;
  account_id: string;
  endpoint_url: string;
  /** Empty means every subscribable type. */
  event_types: SubscribableType[];
  is_active: boolean;
  /** The signing secret sealed with shared/secret-box (context: the subscription id). */
  secret_sealed: string;
  created_at: string;
  updated_at: string;
}

export interface SubscriptionView {
  id: string;
  account_id: string;
  endpoint_url: string;
  event_types: SubscribableType[];
  is_active: boolean;
  created_at: string;
}

export const toSubscriptionView = (s: SubscriptionItem): SubscriptionView => ({
  id: s.id,
  account_id: s.account_id,
  endpoint_url: s.endpoint_url,
  event_types: s.event_types,
  is_active: s.is_active,
  created_at: s.created_at,
});

export const matches = (s: Pick<SubscriptionItem, 'event_types' | 'is_active'>, type: string): boolean =>
  s.is_active && (s.event_types.length === 0 || (s.event_types as string[]).includes(type));

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

export interface DeliveryItem {
  pk: string;
  sk: string;
  entity: 'webhook_delivery';
  id: string;
  subscription_id: string;
  account_id: string;
  event_id: string;
  event_type: SubscribableType;
  status: DeliveryStatus;
  attempt_count: number;
  /** HTTP status of the last attempt; 0 when it got no HTTP answer (timeout, refused). */
  response_status: number;
  next_retry_at?: string;
  last_error?: string;
  /** The exact request body: every attempt sends the same bytes. */
  body: string;
  created_at: string;
  updated_at: string;
  /** Epoch seconds: the log entry's end of life. */
  expires_at?: number;
}

/** The wire form: the record without its body, account and internal fields. */
export type DeliveryView = Pick<
  DeliveryItem,
  'id' | 'subscription_id' | 'event_id' | 'event_type' | 'status' | 'attempt_count' | 'response_status' | 'next_retry_at' | 'created_at'
>;

export function toDeliveryView(d: DeliveryItem): DeliveryView {
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
