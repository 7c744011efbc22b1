// Wire shapes of the Mail search and export (the spec's Search result and Export document).
import * as z from 'zod';
import { inboundAttachment } from '../receipt/schemas';
import { listFolders, sources } from './schemas';

const Q_DESCRIPTION =
  'Words (all must appear, in the subject or the first 4,000 characters of the text), "quoted phrases", and the operators from:, to: (To and Cc), subject:, ' +
  'has:attachment, after:YYYY-MM-DD (on or after, UTC) and before:YYYY-MM-DD (before); operators alone are valid. At most 500 characters and 12 words or operators.';

export const searchQuery = z
  .object({
    q: z.string().max(1000).meta({ description: Q_DESCRIPTION }),
    inbox_id: z.string().max(64).optional().meta({ description: 'Only mail of this inbox’s address' }),
    inbox: z.string().max(254).optional().meta({ description: 'Only mail of this address (an inbox’s or a catch-all one)' }),
    limit: z.string().optional().meta({ description: 'Results, 1 to 100 (default 50; larger values are capped, others ignored)' }),
  })
  .strict();

export const searchResult = z
  .object({
    thread_id: z.string(),
    source: z.enum(sources),
    message_ref: z.string().meta({ description: 'The message’s id: inb_… (inbound) or msg_… (outbound)' }),
    from: z.string().nullable(),
    subject: z.string().nullable(),
    snippet: z.string().meta({ description: 'The start of the message’s text' }),
    occurred_at: z.string(),
  })
  .strict();

export const searchAnswer = z.object({ results: z.array(searchResult).meta({ description: 'Newest first' }) }).strict();

export const exportFormats = ['json', 'mbox'] as const;

export const exportQuery = z
  .object({
    format: z.enum(exportFormats).optional().meta({ description: 'Default json' }),
    folder: z.enum(listFolders).optional().meta({ description: 'Default inbox' }),
    inbox_id: z.string().max(64).optional(),
    inbox: z.string().max(254).optional(),
    q: z.string().max(1000).optional().meta({ description: `Only matching messages. ${Q_DESCRIPTION}` }),
    cursor: z.string().optional().meta({ description: 'The next_cursor of the page before (json: the document’s field; mbox: the Postbox-Next-Cursor header)' }),
  })
  .strict();

export const exportMessage = z
  .object({
    id: z.string(),
    thread_id: z.string(),
    source: z.enum(sources),
    from: z.string().nullable(),
    to: z.array(z.string()),
    subject: z.string().nullable(),
    text_body: z.string().nullable(),
    occurred_at: z.string(),
    attachments: z.array(inboundAttachment),
  })
  .strict();

export const exportDocument = z
  .object({
    exported_at: z.string(),
    count: z.number().int().min(0).meta({ description: 'Messages in this document' }),
    messages: z.array(exportMessage),
    next_cursor: z.string().nullable().meta({ description: 'Pass as cursor for the next part of the export; null on the last' }),
  })
  .strict();

export type SearchQueryInput = z.infer<typeof searchQuery>;
export type SearchResult = z.infer<typeof searchResult>;
export type ExportQuery = z.infer<typeof exportQuery>;
export type ExportMessage = z.infer<typeof exportMessage>;
export type ExportDocument = z.infer<typeof exportDocument>;
