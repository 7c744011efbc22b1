// The stored shape of a message and its wire forms.
import type { Channel } from '../accounts/service';
import { keys, type IndexKey, type ItemKey } from '../db/keys';

export type MessageStatus =
  | 'queued'
  | 'scheduled'
  | 'canceled'
  | 'sent'
  | 'delivered'
  | 'opened'
  | 'clicked'
  | 'delivery_delayed'
  | 'bounced'
  | 'complained'
  | 'failed'
  | 'suppressed'
  | 'unsubscribed';

export type EventType = Exclude<MessageStatus, 'queued' | 'scheduled' | 'canceled'>;
export type EventSource = 'worker' | 'router' | 'ses' | 'sns';

/**
 * What a message says, from whom and to what, as it was accepted: everything of a message that
 * can be large. On the message item while small; otherwise in the object store, where
 * `content_ref` points (shared/messages/content.ts owns which, and reads it back).
 */
export interface MessageContent {
  /** Rendered RFC 5322 sender. */
  from: string;
  subject: string;
  body_html?: string;
  body_text?: string;
  /** The webhook channel's payload.data. */
  data?: unknown;
  destination: Record<string, unknown>;
  metadata?: Record<string, unknown>;
}

/** A message item holds its content inline, or `content_ref` and none of it. */
export interface MessageItem extends ItemKey, IndexKey, Partial<MessageContent> {
  entity: 'message';
  id: string;
  account_id: string;
  channel: Channel;
  status: MessageStatus;
  /** occurred_at of the event the status was taken from. */
  status_at?: string;
  message_type: 'transactional' | 'marketing';
  idempotency_key: string;
  test_mode: boolean;
  key_id: string;
  /** Normalized recipient address (at most 254 characters) or webhook URL (at most 2048). */
  recipient: string;
  /** Object store key of the content, when it was too large to keep on the item. */
  content_ref?: string;
  scheduled_at?: string;
  provider_message_id?: string;
  dispatched_at?: string;
  created_at: string;
  updated_at: string;
}

export interface TimelineEvent {
  id: string;
  type: EventType;
  message_id: string;
  account_id: string;
  source: EventSource;
  provider_event_id: string;
  payload: Record<string, unknown>;
  occurred_at: string;
  created_at: string;
}

export interface TimelineEventItem extends TimelineEvent, ItemKey {
  entity: 'message_event';
}

export interface MessageSummary {
  id: string;
  channel: Channel;
  status: MessageStatus;
  message_type: string;
  created_at: string;
}

export interface MessageView extends MessageSummary {
  idempotency_key: string;
  provider_message_id: string;
  updated_at: string;
  test_mode: boolean;
  scheduled_at: string | null;
  events: TimelineEvent[];
}


export const toSummary = (m: Pick<MessageItem, keyof MessageSummary>): MessageSummary => ({
  id: m.id,
  channel: m.channel,
  status: m.status,
  message_type: m.message_type,
  created_at: m.created_at,
});

export const toEvent = (e: TimelineEventItem): TimelineEvent => ({
  id: e.id,
  type: e.type,
  message_id: e.message_id,
  account_id: e.account_id,
  source: e.source,
  provider_event_id: e.provider_event_id,
  payload: e.payload,
  occurred_at: e.occurred_at,
  created_at: e.created_at,
});

/** Oldest first by occurred_at; recording order breaks ties. */
export function sortTimeline(events: TimelineEventItem[]): TimelineEvent[] {
  return [...events]
    .sort((a, b) => a.occurred_at.localeCompare(b.occurred_at) || a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id))
    .map(toEvent);
}

export function toMessageView(m: MessageItem, events: TimelineEventItem[]): MessageView {
  return {
    ...toSummary(m),
    idempotency_key: m.idempotency_key,
    provider_message_id: m.provider_message_id ?? '',
    updated_at: m.updated_at,
    test_mode: m.test_mode,
    scheduled_at: m.scheduled_at ?? null,
    events: sortTimeline(events),
  };
}

/** Lookup from the provider's message id back to ours, written when the provider accepts a message. */
export interface ProviderRefItem extends ItemKey {
  entity: 'provider_ref';
  account_id: string;
  message_id: string;
}

export const providerRefItem = (providerMessageId: string, accountId: string, messageId: string): ProviderRefItem => ({
  ...keys.providerRef(providerMessageId),
  entity: 'provider_ref',
  account_id: accountId,
  message_id: messageId,
});
