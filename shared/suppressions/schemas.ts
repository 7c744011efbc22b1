import * as z from 'zod';
import { channels, type Channel } from '../accounts/schemas';
import { isValidAddress, normalizeAddress } from '../email/address';

export const channelSchema = z.enum(channels);
export const suppressionStateSchema = z.enum(['suppressed', 'unsubscribed']);
export type SuppressionState = z.infer<typeof suppressionStateSchema>;

export interface SuppressionView {
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  updated_at: string;
}

const MAX_RECIPIENT_LENGTH = 512;
const MAX_REASON_LENGTH = 200;

/** Query of GET /v1/suppressions; limit and cursor are read by the pagination module. */
export const listSuppressionsQuery = z.object({ channel: channelSchema.optional() });

/** An email recipient must be an address once normalized; other channels take any non-blank string. */
function recipientOfChannel<T extends { channel: z.infer<typeof channelSchema>; recipient: string }>(value: T, ctx: z.RefinementCtx): void {
  if (value.channel === 'email' && !isValidAddress(normalizeAddress(value.recipient))) {
    ctx.addIssue({ code: 'custom', path: ['recipient'], message: 'not a valid email address' });
  }
}

export const createSuppressionBody = z
  .object({
    channel: channelSchema,
    recipient: z.string().trim().min(1).max(MAX_RECIPIENT_LENGTH),
    reason: z.string().trim().min(1).max(MAX_REASON_LENGTH).optional(),
  })
  .strict()
  .superRefine(recipientOfChannel);

export type CreateSuppressionBody = z.infer<typeof createSuppressionBody>;

export const removeSuppressionQuery = z.object({
  channel: channelSchema,
  recipient: z.string().trim().min(1).max(MAX_RECIPIENT_LENGTH),
});

export type RemoveSuppressionQuery = z.infer<typeof removeSuppressionQuery>;

// An entry's address is only checked for being a string here: an unusable address is skipped and
// counted, not a reason to refuse the whole file. A blank reason (an empty CSV column) means "none".
const importEntry = z
  .object({
    email: z.string(),
    reason: z.string().trim().max(MAX_REASON_LENGTH).optional(),
    state: suppressionStateSchema.optional(),
  })
  .strict();

/** The entry-count ceiling is checked before this schema runs (422, see checkImportSize). */
export const importSuppressionsBody = z
  .object({
    channel: channelSchema.default('email'),
    entries: z.array(importEntry),
  })
  .strict();

export type ImportSuppressionsBody = z.infer<typeof importSuppressionsBody>;

export interface ImportResult {
  imported: number;
  skipped: number;
}
