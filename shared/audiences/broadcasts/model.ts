// The stored broadcast, its recipient chunks, and how they become the wire forms (Broadcast,
// BroadcastStats), whose zod schemas are in ./schemas.ts.
import type { TrackingRequest } from '../../sending/tracking/choice';
import type { ItemKey } from '../../db/keys';
import type { PinnedTemplate } from '../../sending/templates/render';
import type { BroadcastStats, BroadcastView } from './schemas';
import type { BroadcastCounts } from './stats';

export { broadcastStatuses, messageTypes, type BroadcastStatus, type MessageType } from './schemas';
import type { BroadcastStatus, MessageType } from './schemas';

export interface BroadcastItem extends ItemKey {
  entity: 'broadcast';
  id: string;
  account_id: string;
  name: string;
  status: BroadcastStatus;
  /** As the request gave it; each send resolves it again, so a domain's default name applies. */
  from_email: string;
  message_type: MessageType;
  /** The request's tracking override, handed to every message's send; absent: the domain decides. */
  tracking?: TrackingRequest;
  audience_list_id: string | null;
  scheduled_at: string | null;
  /**
   * `messages`: a bulk send's scheduled_at, handed to every message's send (the broadcast fans out
   * at once). Absent: a broadcast's scheduled_at is when the broadcast itself starts (the scheduler).
   */
  schedule_mode?: 'messages';
  /**
   * Legacy: content stored on the broadcast item by earlier versions. New broadcasts keep it on
   * their content item (BroadcastContentItem), so the counts written per chunk never rewrite it.
   */
  subject?: string;
  body_html?: string;
  body_text?: string;
  template?: PinnedTemplate;
  /** Unique normalized recipients, invalid addresses and unsubscribed contacts included. */
  total_recipients: number;
  sent_count: number;
  failed_count: number;
  /** Suppressed and unsubscribed recipients and invalid addresses: never sent, never failed. Not on the wire. */
  skipped_count: number;
  /** Chunks to count before the broadcast is done; for a list audience, known once walk_done. */
  chunk_count: number;
  /** Which content item holds what it sends (absent: 0); an edit of a draft writes the next one. */
  content_version?: number;
  /** The number of this version's first chunk: an edit of a draft writes its chunks after the old ones. */
  chunk_base?: number;
  /** Chunks whose counts were added; added in the same conditional write as the counts. */
  chunks_done?: Set<number>;
  /** A list audience: pages walked so far, where the next page starts (a store key), and whether the walk ended. */
  pages_walked?: number;
  walk_cursor?: Record<string, unknown> | null;
  walk_done?: boolean;
  /** Which start moved it to sending (a random token, or `scheduled` for the scheduler's), and whether its hand-on is done. */
  start_token?: string;
  handed_on?: boolean;
  /** The key that created the broadcast: its sends are made as that key (and its mode). */
  key_id: string;
  test_mode: boolean;
  created_at: string;
  updated_at: string;
  started_at?: string;
  /** When it became sent, failed or cancelled. */
  completed_at?: string;
  failure_reason?: string;
}

/** What a broadcast sends, written at creation (and by an edit of a draft), never by the fan-out. */
export interface BroadcastContent {
  /** Inline content; absent when the broadcast sends a template. */
  subject?: string;
  body_html?: string;
  body_text?: string;
  /**
   * The template version the broadcast sends, copied at creation: every recipient is rendered from
   * it with their own `data`, whatever happens to the template during the fan-out.
   */
  template?: PinnedTemplate;
}

export interface BroadcastContentItem extends ItemKey, BroadcastContent {
  entity: 'broadcast_content';
  broadcast_id: string;
  account_id: string;
}

export interface RecipientChunkItem extends ItemKey {
  entity: 'broadcast_recipients';
  broadcast_id: string;
  account_id: string;
  chunk: number;
  /** Normalized, valid, unique across the broadcast. */
  recipients: string[];
  /** Template broadcasts only: each recipient's `data` (their template variables), by position; null for none. */
  data?: Array<Record<string, unknown> | null>;
  /** A list audience's page: where the next page starts (null at the end), so a re-run of the page continues where the first run did. */
  next_key?: Record<string, unknown> | null;
  /** A list audience's page: unsubscribed contacts it skipped. */
  unsubscribed?: number;
}

export type { BroadcastStats, BroadcastView } from './schemas';

export const toBroadcastView = (item: BroadcastItem): BroadcastView => ({
  id: item.id,
  name: item.name,
  status: item.status,
  from_email: item.from_email,
  message_type: item.message_type,
  audience_list_id: item.audience_list_id,
  scheduled_at: item.scheduled_at,
  total_recipients: item.total_recipients,
  sent_count: item.sent_count,
  failed_count: item.failed_count,
  created_at: item.created_at,
  completed_at: item.completed_at ?? null,
  failure_reason: item.failure_reason ?? null,
});

/**
 * The stats: `total` from the fan-out (every unique recipient, invalid ones included); the rest from
 * the timeline, counted once per message (shared/audiences/broadcasts/stats.ts). `failed` adds the recipients
 * the fan-out refused (failed_count), who got no message and so no timeline. Recorded in
 * docs/api-decisions.md.
 */
export const toBroadcastStats = (item: Pick<BroadcastItem, 'total_recipients' | 'failed_count'>, counts: BroadcastCounts): BroadcastStats => ({
  total: item.total_recipients,
  sent: counts.sent,
  delivered: counts.delivered,
  bounced: counts.bounced,
  complained: counts.complained,
  opened: counts.opened,
  failed: item.failed_count + counts.failed,
});
