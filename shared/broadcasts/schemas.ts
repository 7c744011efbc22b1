// Wire shapes of the bulk send request (BulkSendRequest in the spec).
import * as z from 'zod';
import { parseMailbox } from '../email/address';

/** The spec leaves the maximum open; recorded in docs/api-decisions.md. Counted before de-duplication. */
export const MAX_BULK_RECIPIENTS = 10_000;

const recipient = z
  .object({
    email: z.string().max(320),
    /** Per-recipient template variables; unused until templates exist. */
    data: z.record(z.string(), z.unknown()).optional(),
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
    template_id: z.string().min(1).max(256).optional(),
    message_type: z.enum(['transactional', 'marketing']).optional(),
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
