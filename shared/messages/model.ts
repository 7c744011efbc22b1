// The stored shape of a message and its wire forms (whose zod schemas are in ./schemas.ts).
import type { z } from 'zod';
import type { Channel } from '../accounts/service';
import { keys, type ItemKey } from '../db/keys';
import { type MessageListKey, type OutboxKey } from '../db/schema';
import type { MailHeader } from '../ports/mailer';
import type { TrackingChoice } from '../tracking/choice';
import type { eventSource, eventType, messageStatus, messageSummaryView, messageView, timelineEventView } from './schemas';

export type MessageStatus = z.infer<typeof messageStatus>;
export type EventType = z.infer<typeof eventType>;
export type EventSource = z.infer<typeof eventSource>;

/**
 * What a message says, from whom and to what, as it was accepted: everything of a message that
 * can be large. Written once and never rewritten: on the message item while that stays within one
 * write unit, else on a content item beside it (`content_item`), else in the object store where
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
  /** The template the email was rendered from, and its version then (a later edit never changes what was sent). */
  template_id?: string;
  template_version?: number;
  destination: Record<string, unknown>;
  metadata?: Record<string, unknown>;
  /** Headers an internal caller set (shared/messages/extras.ts: an allowlist; never from a request body). */
  headers?: MailHeader[];
  /** Files an internal caller attached, by reference to objects already in the object store (read at send time). */
  attachments?: AttachmentRef[];
}

/** A file to attach: an object already in the object store, named and typed as the mail shows it. */
export interface AttachmentRef {
  filename: string;
  content_type: string;
  object_key: string;
  /** The object's size in bytes, as accepted; the send worker refuses an object of another size. */
  size: number;
}

/**
 * The message's status item: what status changes, the dispatch lease and the provider's id
 * update. It holds its content inline only while it stays within one write unit (1 KB) with every
 * attribute a status change can add; otherwise `content_item` or `content_ref` and none of it but
 * `template_id` and `template_version`, which GET /v1/messages/{id} shows.
 */
export interface MessageItem extends ItemKey, MessageListKey, Partial<OutboxKey>, Partial<MessageContent> {
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
  /** Object store key of the content, when it was too large to keep in the table. */
  content_ref?: string;
  /**
   * The content is on the message's content item: keys.messageContent(id) when true, else
   * keys.messageContent(id, content_item) (one per request body, so a reused key never overwrites it).
   */
  content_item?: true | string;
  /**
   * Digest of the request that created the message (shared/messages/idempotency.ts bodyDigest,
   * shortened): a retry with the same idempotency key and another body is idempotency_key_reused.
   * Absent on messages accepted under separate idempotency records.
   */
  body_digest?: string;
  /** `suppressed` when the send was refused for a suppression at acceptance: a retry answers so. */
  accepted_as?: 'suppressed';
  scheduled_at?: string;
  /**
   * The broadcast whose fan-out sent it (never taken from a request body): its events are counted
   * in that broadcast's stats (shared/broadcasts/stats.ts). Not on the wire.
   */
  broadcast_id?: string;
  /**
   * What is tracked (opens, clicks or both), decided at acceptance (shared/tracking/choice.ts);
   * absent when nothing is. Never changes. Not on the wire.
   */
  tracking?: TrackingChoice;
  provider_message_id?: string;
  dispatched_at?: string;
  created_at: string;
  updated_at: string;
}

/** A message's content beside its status item, written once (keys.messageContent): its JSON, gzipped. */
export interface MessageContentItem extends ItemKey {
  entity: 'message_content';
  id: string;
  content_gz: Uint8Array;
}

/** A timeline event as the API shows it (shared/messages/schemas.ts). */
export type TimelineEvent = z.infer<typeof timelineEventView>;

export interface TimelineEventItem extends TimelineEvent, ItemKey {
  entity: 'message_event';
}

/** The wire views (shared/messages/schemas.ts): the list's summary and the full message. */
export type MessageSummary = z.infer<typeof messageSummaryView>;
export type MessageView = z.infer<typeof messageView>;

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
    // On the status item whatever became of the content (shared/messages/content.ts keeps them there).
    template_id: m.template_id ?? null,
    template_version: m.template_version ?? null,
    events: sortTimeline(events),
  };
}

