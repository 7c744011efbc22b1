// Wire shapes of the bulk send request (BulkSendRequest in the spec) and of the broadcast answers
// (Broadcast, BroadcastStats).
import * as z from 'zod';
import { parseMailbox } from '../../formats/address';
import { messageTypes, type MessageType } from '../../sending/messages/schemas';
import { trackingRequest } from '../../sending/tracking/schemas';

export const broadcastStatuses = ['draft', 'scheduled', 'sending', 'sent', 'cancelled', 'failed'] as const;
export type BroadcastStatus = (typeof broadcastStatuses)[number];
export { messageTypes, type MessageType };

/** The spec leaves the maximum open; recorded in docs/api-decisions.md. Counted before de-duplication. */
export const MAX_BULK_RECIPIENTS = 10_000;

const recipient = z
  .object({
    email: z.string().max(320),
    data: z
      .record(z.string(), z.unknown())
      .optional()
      .meta({ description: "This recipient's template variables (with template_id; ignored with inline content), at most 16 KiB as JSON" }),
  })
  .strict();

export const bulkSendBody = z
  .object({
    from_email: z
      .string()
      .max(512)
      .refine((value) => parseMailbox(value) !== undefined, 'expected an address or "Name <address>"'),
    name: z.string().trim().min(1).max(200).optional(),
    subject: z.string().max(998).optional(),
    body_html: z.string().optional(),
    body_text: z.string().optional(),
    template_id: z
      .string()
      .min(1)
      .max(256)
      .optional()
      .meta({
        description:
          "Instead of inline content: the account's template, its current version pinned for the whole fan-out, rendered per recipient with their `data`; 404 template_not_found, 422 template_error when inactive",
      }),
    message_type: z.enum(messageTypes).optional(),
    tracking: trackingRequest.optional().meta({ description: 'Open and click tracking of every message; unset, the sending domain\'s open_tracking and click_tracking decide' }),
    audience_list_id: z.string().min(1).max(256).optional(),
    recipients: z
      .array(recipient)
      .min(1, 'a bulk send needs at least 1 recipient')
      .max(MAX_BULK_RECIPIENTS, `a bulk send holds at most ${MAX_BULK_RECIPIENTS} recipients`)
      .optional(),
    scheduled_at: z.iso.datetime({ offset: true }).optional(),
    /** Meaningful only on POST /v1/broadcasts; a bulk send always fans out at once. */
    send_now: z.boolean().optional(),
  })
  .strict();

export type BulkSendBody = z.infer<typeof bulkSendBody>;

/**
 * PATCH /v1/broadcasts/{id}: a draft's fields; the ones sent replace the stored ones, and null
 * clears an optional one (so content or audience can switch kind). scheduled_at and send_now are
 * not edits of a draft: POST /v1/broadcasts/{id}/send sends it (docs/api-decisions.md).
 */
export const updateBroadcastBody = z
  .object({
    from_email: bulkSendBody.shape.from_email.optional(),
    name: bulkSendBody.shape.name.unwrap().nullable().optional(),
    subject: z.string().max(998).nullable().optional(),
    body_html: z.string().nullable().optional(),
    body_text: z.string().nullable().optional(),
    template_id: z.string().min(1).max(256).nullable().optional(),
    message_type: z.enum(messageTypes).optional(),
    tracking: trackingRequest.optional().meta({ description: 'Replaces the draft\'s tracking override; {} leaves it to the sending domain' }),
    audience_list_id: z.string().min(1).max(256).nullable().optional(),
    recipients: bulkSendBody.shape.recipients.unwrap().nullable().optional(),
  })
  .strict();

export type UpdateBroadcastBody = z.infer<typeof updateBroadcastBody>;

/** The spec's Broadcast: the stored item without its content, keys and bookkeeping. */
export const broadcastView = z
  .object({
    id: z.string().meta({ description: 'The broadcast id, bcast_…' }),
    name: z.string().meta({ description: "As given, or the subject (the template's name with template_id)" }),
    status: z.enum(broadcastStatuses).meta({
      description:
        'draft, scheduled (sends at scheduled_at) or sending on creation; sending becomes sent once every recipient was handed to the send pipeline or skipped, or failed when the fan-out cannot finish (list deleted, account suspended) or nothing was accepted and something failed; draft and scheduled can be cancelled',
    }),
    from_email: z.string().meta({ description: 'As the request gave it' }),
    message_type: z.enum(messageTypes),
    audience_list_id: z.string().nullable(),
    scheduled_at: z.string().nullable(),
    total_recipients: z.number().int().meta({ description: 'Unique normalized recipients, invalid addresses included' }),
    sent_count: z.number().int().meta({ description: 'Recipients whose send was accepted' }),
    failed_count: z.number().int().meta({ description: 'Recipients whose send was refused; suppressed and invalid recipients are skipped, not failed' }),
    created_at: z.string(),
    completed_at: z.string().nullable().meta({ description: 'When it became sent, failed or cancelled; null before' }),
    failure_reason: z.string().nullable().meta({ description: 'Why the fan-out could not finish (failed only), e.g. the audience list was deleted' }),
  })
  .strict();
export type BroadcastView = z.infer<typeof broadcastView>;

const once = (what: string): string => `Messages of this broadcast with ${what} on their timeline, each counted once however often the signal came`;

export const broadcastStats = z
  .object({
    total: z.number().int().meta({ description: 'Unique normalized recipients, invalid addresses included: the fan-out\'s total_recipients' }),
    sent: z.number().int().meta({ description: `${once('a `sent` event (the provider accepted the handoff)')}; Broadcast.sent_count counts the sends the fan-out accepted` }),
    delivered: z.number().int().meta({ description: once('a `delivered` event') }),
    bounced: z.number().int().meta({ description: `${once('a `bounced` event')}, hard or soft` }),
    complained: z.number().int().meta({ description: once('a `complained` event') }),
    opened: z.number().int().meta({ description: `${once('an `opened` event')}: unique opens` }),
    failed: z.number().int().meta({
      description: `${once('a `failed` event')}, plus the recipients the fan-out refused (Broadcast.failed_count), who got no message`,
    }),
  })
  .strict();
export type BroadcastStats = z.infer<typeof broadcastStats>;

/** GET /v1/broadcasts/{id}. */
export const broadcastDetailView = z.object({ broadcast: broadcastView, stats: broadcastStats }).strict();
export type BroadcastDetailView = z.infer<typeof broadcastDetailView>;
