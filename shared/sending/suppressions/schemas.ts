// The suppressions area's zod wire shapes: what its routes take and answer. The TypeScript types
// are inferred from them, so the answers and the OpenAPI document (functions/suppressions/contract.ts)
// cannot drift.
import * as z from 'zod';
import { channels } from '../../accounts/schemas';
import { isValidAddress, normalizeAddress } from '../../formats/address';
import { pageQuery } from '../../pagination/schemas';

export const channelSchema = z.enum(channels);
export const suppressionStateSchema = z.enum(['suppressed', 'unsubscribed']);
export type SuppressionState = z.infer<typeof suppressionStateSchema>;

export const suppressionView = z
  .object({
    channel: channelSchema,
    recipient: z.string().meta({ description: 'Normalized: an email address trimmed and lower-cased; other channels trimmed' }),
    state: suppressionStateSchema,
    reason: z.string().meta({ description: '"manual" for a manual add, "import" for an import entry without one, else the reason given or the bounce or complaint' }),
    updated_at: z.string().meta({ description: 'RFC 3339 UTC timestamp of the last add, import or bounce; the list is ordered by it, newest first' }),
  })
  .strict();

export type SuppressionView = z.infer<typeof suppressionView>;

/** More entries than this is 422 invalid_request, checked before the entries are (service.ts checkImportSize). */
export const MAX_IMPORT_ENTRIES = 10_000;

const MAX_RECIPIENT_LENGTH = 512;
const MAX_REASON_LENGTH = 200;

/** Query of GET /v1/suppressions; limit and cursor are read by the pagination module (pageOf). */
export const listSuppressionsQuery = z.object({
  channel: channelSchema.optional().meta({ description: 'Only this channel (omit for every channel); bound to the cursor' }),
  ...pageQuery.shape,
});

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
    email: z.string().meta({ description: "The recipient: an email address, or on another channel that channel's recipient" }),
    reason: z.string().trim().max(MAX_REASON_LENGTH).optional(),
    state: suppressionStateSchema.optional(),
  })
  .strict();

/** The entry-count ceiling is checked before this schema runs (422, see checkImportSize). */
export const importSuppressionsBody = z
  .object({
    channel: channelSchema.default('email'),
    entries: z
      .array(importEntry)
      .max(MAX_IMPORT_ENTRIES)
      .meta({ description: `At most ${MAX_IMPORT_ENTRIES} (more is 422 invalid_request, nothing written); an unusable address or a superseded duplicate is skipped, not an error` }),
  })
  .strict();

export type ImportSuppressionsBody = z.infer<typeof importSuppressionsBody>;

export const importResultView = z
  .object({
    imported: z.int().min(0).meta({ description: 'Distinct recipients written' }),
    skipped: z.int().min(0).meta({ description: 'Unusable addresses and superseded duplicates; imported + skipped is the number of entries sent' }),
  })
  .strict();

export type ImportResult = z.infer<typeof importResultView>;
