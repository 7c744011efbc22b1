// The stored broadcast, its recipient chunks, and how they become the wire forms (Broadcast,
// BroadcastStats), whose zod schemas are in ./schemas.ts.
import type { ItemKey } from '../db/keys';
import type { PinnedTemplate } from '../templates/render';
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
  audience_list_id: string | null;
  scheduled_at: string | null;
  /** Inline content; absent when the broadcast sends a template. */
  subject?: string;
  body_html?: string;
  body_text?: string;
  /**
   * The template version the broadcast sends, copied at creation: every recipient is rendered from
   * it with their own `data`, whatever happens to the template during the fan-out.
   */
  template?: PinnedTemplate;
  /** Unique normalized recipients, invalid addresses included. */
  total_recipients: number;
  sent_count: number;
  failed_count: number;
  /** Suppressed recipients and invalid addresses: never sent, never failed. Not on the wire. */
  skipped_count: number;
  chunk_count: number;
  /** Chunks whose counts were added; added in the same conditional write as the counts. */
  chunks_done?: Set<number>;
  /** The key that created the broadcast: its sends are made as that key (and its mode). */
  key_id: string;
  test_mode: boolean;
  created_at: string;
  updated_at: string;
  completed_at?: string;
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
}

export type { BroadcastStats, BroadcastView } from './schemas';

export const toBroadcastView = (item: Pick<BroadcastItem, keyof BroadcastView>): BroadcastView => ({
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
});

/**
 * The stats: `total` from the fan-out (every unique recipient, invalid ones included); the rest from
 * the timeline, counted once per message (shared/broadcasts/stats.ts). `failed` adds the recipients
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
