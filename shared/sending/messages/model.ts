// The stored shape of a message and its wire forms (whose zod schemas are in ./schemas.ts).
import type { z } from 'zod';
import type { Channel } from '../../accounts/service';
import { sha256Hex } from '../../crypto/crypto';
import { keys, type ItemKey } from '../../db/keys';
import { type MessageListKey, type OutboxKey } from '../../db/schema';
import type { MailHeader } from '../../ports/mailer';
import type { TrackingChoice } from '../tracking/choice';
import type { eventSource, eventType, messageStatus, messageSummaryView, messageView, timelineEventView } from './schemas';

export type MessageStatus = z.infer<typeof messageStatus>;
export type EventType = z.infer<typeof eventType>;
export type EventSource = z.infer<typeof eventSource>;

/**
 * What a message says, from whom and to what, as it was accepted: everything of a message that
 * can be large. Written once and never rewritten: on the message item while that stays within one
 * write unit, else on a content item beside it (`content_item`), else in the object store where
 * `content_ref` points (shared/sending/messages/content.ts owns which, and reads it back).
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
  /** Headers an internal caller set (shared/sending/messages/extras.ts: an allowlist; never from a request body). */
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
/**
 * MessageItem.reserved_by of a message stored by an attempt that found an earlier attempt's
 * schedule standing: the reservation that schedule's job carries is the one the message holds.
 */
export const SCHEDULE_HOLDS = 'schedule';

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
   * Digest of the request that created the message (shared/sending/messages/idempotency.ts bodyDigest,
   * shortened): a retry with the same idempotency key and another body is idempotency_key_reused.
   * Absent on messages accepted under separate idempotency records.
   */
  body_digest?: string;
  /** `suppressed` when the send was refused for a suppression at acceptance: a retry answers so. */
  accepted_as?: 'suppressed';
  scheduled_at?: string;
  /**
   * The broadcast whose fan-out sent it (never taken from a request body): its events are counted
   * in that broadcast's stats (shared/audiences/broadcasts/stats.ts). Not on the wire.
   */
  broadcast_id?: string;
  /**
   * What is tracked (opens, clicks or both), decided at acceptance (shared/sending/tracking/choice.ts);
   * absent when nothing is. Never changes. Not on the wire.
   */
  tracking?: TrackingChoice;
  /**
   * The accepting attempt whose spend reservation the message holds (set in its create, never
   * changed; absent in test mode, for a suppressed send and before this field existed), or
   * SCHEDULE_HOLDS: a send job carrying another attempt's reservation gives that one back
   * (shared/sending/messages/dispatch.ts). Not on the wire.
   */
  reserved_by?: string;
  provider_message_id?: string;
  dispatched_at?: string;
  created_at: string;
  updated_at: string;
  /** The `sent` event, written with its status move (FoldedEvent); not on the wire as such. */
  evt_sent?: FoldedEvent;
  /** The `delivered` event, written with its status move (FoldedEvent). */
  evt_delivered?: FoldedEvent;
}

/**
 * A `sent` or `delivered` event kept on its message item rather than an item of its own, so that
 * storing it and moving the status is one write (storeFolded in shared/sending/messages/timeline.ts). What the event shares
 * with its message (type, message and account ids) is not repeated, and the names are short: it
 * rides on every later write of the item, which DynamoDB charges by its size.
 */
export interface FoldedEvent {
  /** id */
  i: string;
  /** source; absent when it is `worker` (a handoff's always is). */
  s?: EventSource;
  /** provider_event_id; absent when it is the worker's own for the type (workerEventId). */
  p?: string;
  /** occurred_at */
  o: string;
  /** created_at */
  c: string;
  /**
   * payload; absent when it is `{ provider_message_id }` of the message item's own provider message
   * id, which the write that stored it set (a handoff's payload, about 80 bytes fewer).
   */
  d?: Record<string, unknown>;
}

/** The event types kept on the message item, and the attribute each is kept in. */
export const FOLDED_TYPES = { sent: 'evt_sent', delivered: 'evt_delivered' } as const satisfies Partial<Record<EventType, keyof MessageItem>>;
export type FoldedType = keyof typeof FOLDED_TYPES;
export const isFolded = (type: EventType): type is FoldedType => Object.hasOwn(FOLDED_TYPES, type);

/** The provider event id of an event the send worker (or the router) records itself: one per message and type. */
export const workerEventId = (messageId: string, type: EventType): string => `wkr_${sha256Hex(`${messageId}:${type}`)}`;

/** Whether a payload is `{ provider_message_id }` of this id, and nothing else. */
const namesProviderId = (payload: Record<string, unknown>, providerMessageId: string | undefined): boolean =>
  providerMessageId !== undefined && Object.keys(payload).length === 1 && payload.provider_message_id === providerMessageId;

/**
 * An event as kept on its message item. `setsProviderMessageId`: the provider message id the same
 * write sets on the item (a provider message id, once set, is only ever set again to the same
 * provider's id for the message), so a payload naming it need not be kept twice.
 */
export const toFolded = (e: TimelineEvent, setsProviderMessageId?: string): FoldedEvent => ({
  i: e.id,
  ...(e.source === 'worker' ? {} : { s: e.source }),
  ...(e.provider_event_id === workerEventId(e.message_id, e.type) ? {} : { p: e.provider_event_id }),
  o: e.occurred_at,
  c: e.created_at,
  ...(namesProviderId(e.payload, setsProviderMessageId) ? {} : { d: e.payload }),
});

/** The event of this type kept on the message item, as an event item of its own would hold it (its key included). */
export function unfold(m: Pick<MessageItem, 'id' | 'account_id' | 'provider_message_id' | 'evt_sent' | 'evt_delivered'>, type: FoldedType): TimelineEventItem | undefined {
  const f = m[FOLDED_TYPES[type]];
  if (!f) return undefined;
  const providerEventId = f.p ?? workerEventId(m.id, type);
  return {
    ...keys.messageEvent(m.id, providerEventId),
    entity: 'message_event',
    id: f.i,
    type,
    message_id: m.id,
    account_id: m.account_id,
    source: f.s ?? 'worker',
    provider_event_id: providerEventId,
    payload: f.d ?? { provider_message_id: m.provider_message_id },
    occurred_at: f.o,
    created_at: f.c,
  };
}

/**
 * A message's timeline from its partition: the event items and the events kept on the message
 * item, in key order (as one query of the partition lists items). An event stored both ways (an
 * item written before events were kept on the message, its signal recorded again since) is the
 * item's, once.
 */
export function timelineOf(message: MessageItem | undefined, items: readonly TimelineEventItem[]): TimelineEventItem[] {
  const stored = new Set(items.map((e) => e.sk));
  const folded = message ? (Object.keys(FOLDED_TYPES) as FoldedType[]).flatMap((type) => unfold(message, type) ?? []) : [];
  return [...items, ...folded.filter((e) => !stored.has(e.sk))].sort((a, b) => (a.sk < b.sk ? -1 : a.sk > b.sk ? 1 : 0));
}

/** A message's content beside its status item, written once (keys.messageContent): its JSON, gzipped. */
export interface MessageContentItem extends ItemKey {
  entity: 'message_content';
  id: string;
  content_gz: Uint8Array;
}

/** A timeline event as the API shows it (shared/sending/messages/schemas.ts). */
export type TimelineEvent = z.infer<typeof timelineEventView>;

export interface TimelineEventItem extends TimelineEvent, ItemKey {
  entity: 'message_event';
}

/** The wire views (shared/sending/messages/schemas.ts): the list's summary and the full message. */
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
    // On the status item whatever became of the content (shared/sending/messages/content.ts keeps them there).
    template_id: m.template_id ?? null,
    template_version: m.template_version ?? null,
    events: sortTimeline(events),
  };
}

