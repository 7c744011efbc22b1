// Webhook subscriptions and deliveries: the subscribable types, the matching rule and the wire
// forms. The stored shapes live in ./repository.ts.

export const subscribableTypes = ['sent', 'delivered', 'opened', 'clicked', 'delivery_delayed', 'bounced', 'complained', 'failed', 'email.received'] as const;
export type SubscribableType = (typeof subscribableTypes)[number];

export const isSubscribable = (type: string): type is SubscribableType => (subscribableTypes as readonly string[]).includes(type);

export interface SubscriptionView {
  id: string;
  account_id: string;
  endpoint_url: string;
  event_types: SubscribableType[];
  is_active: boolean;
  created_at: string;
}

/** Whether a subscription takes this event: active, and the type listed (an empty list takes all). */
export const matches = (s: { event_types: readonly SubscribableType[]; is_active: boolean }, type: string): boolean =>
  s.is_active && (s.event_types.length === 0 || (s.event_types as readonly string[]).includes(type));

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed' | 'exhausted';

/** The wire form of a delivery: the record without its body, account and internal fields. */
export interface DeliveryView {
  id: string;
  subscription_id: string;
  event_id: string;
  event_type: SubscribableType;
  status: DeliveryStatus;
  attempt_count: number;
  /** HTTP status of the receiver's last answer; 0 when it gave none. */
  response_status: number;
  /** Only while a retry is scheduled. */
  next_retry_at?: string;
  created_at: string;
}
