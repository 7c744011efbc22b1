// Webhook subscriptions and deliveries: the subscribable types, the delivery statuses and the
// matching rule. The wire forms are zod schemas in ./schemas.ts; the stored shapes live in
// ./repository.ts.

export const subscribableTypes = ['sent', 'delivered', 'opened', 'clicked', 'delivery_delayed', 'bounced', 'complained', 'failed', 'email.received', 'usage.soft_cap_reached', 'account.reputation_warning'] as const;
export type SubscribableType = (typeof subscribableTypes)[number];

export const isSubscribable = (type: string): type is SubscribableType => (subscribableTypes as readonly string[]).includes(type);

/** Whether a subscription takes this event: active, and the type listed (an empty list takes all). */
export const matches = (s: { event_types: readonly SubscribableType[]; is_active: boolean }, type: string): boolean =>
  s.is_active && (s.event_types.length === 0 || (s.event_types as readonly string[]).includes(type));

export const deliveryStatuses = ['pending', 'succeeded', 'failed', 'exhausted'] as const;
export type DeliveryStatus = (typeof deliveryStatuses)[number];
