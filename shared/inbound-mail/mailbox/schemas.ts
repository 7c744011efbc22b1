// Wire shapes of the Mail app (the spec's Mail app resources), snake_case as the spec writes it.
import * as z from 'zod';
import { inboundAttachment } from '../receipt/schemas';
import { timelineEventView } from '../../sending/messages/schemas';

export const folders = ['inbox', 'archive', 'trash', 'spam'] as const;
export type Folder = (typeof folders)[number];
/** What the thread list takes: the folders a thread can be moved to, plus the two derived views. */
export const listFolders = [...folders, 'sent', 'starred'] as const;
export type ListFolder = (typeof listFolders)[number];
export const sources = ['inbound', 'outbound'] as const;
export type MailSource = (typeof sources)[number];

export const inboxView = z
  .object({
    id: z.string().meta({ description: 'mbx_…' }),
    domain_id: z.string(),
    domain: z.string(),
    local_part: z.string(),
    address: z.string().meta({ description: 'local_part@domain, lowercased; unique per account' }),
    active: z.boolean(),
    created_at: z.string(),
    updated_at: z.string(),
  })
  .strict();

export const createInboxBody = z
  .object({
    domain: z.string().min(1).max(253).meta({ description: 'A verified domain of the account, outside the sandbox, with inbound enabled' }),
    local_part: z.string().min(1).max(64).meta({ description: 'The part before the @; stored lowercased' }),
  })
  .strict();

export const threadSummary = z
  .object({
    id: z.string().meta({ description: 'thr_…, the thread_id of its inbound emails' }),
    subject: z.string().nullable(),
    snippet: z.string().meta({ description: 'The start of the newest message’s text' }),
    participants: z.array(z.string()),
    last_message_at: z.string(),
    message_count: z.number().int().min(0),
    has_unread: z.boolean(),
    is_starred: z.boolean().meta({ description: 'The thread is starred, or one of its messages is' }),
    labels: z.array(z.string()).meta({ description: 'Label names' }),
    folder: z.enum(folders),
    inbox_ids: z.array(z.string()).meta({ description: 'The inboxes whose address received mail of the thread' }),
  })
  .strict();

const entryBase = {
  id: z.string(),
  from: z.string().nullable(),
  to: z.array(z.string()),
  subject: z.string().nullable(),
  text_body: z.string().nullable(),
  occurred_at: z.string(),
  is_starred: z.boolean(),
};

export const inboundEntry = z
  .object({
    ...entryBase,
    source: z.literal('inbound'),
    cc: z.array(z.string()),
    recipient: z.string(),
    inbox_id: z.string().nullable().meta({ description: 'The inbox of the recipient address today; null when it has none' }),
    spf_verdict: z.string(),
    dkim_verdict: z.string(),
    dmarc_verdict: z.string(),
    attachments: z.array(inboundAttachment),
  })
  .strict();

export const outboundEntry = z
  .object({
    ...entryBase,
    source: z.literal('outbound'),
    status: z.string().nullable().meta({ description: 'The message’s delivery status' }),
    timeline: z.array(timelineEventView).meta({ description: 'The message’s events, oldest first' }),
  })
  .strict();

export const threadDetail = z
  .object({
    id: z.string(),
    subject: z.string().nullable(),
    participants: z.array(z.string()),
    message_count: z.number().int().min(0),
    is_starred: z.boolean(),
    labels: z.array(z.string()),
    folder: z.enum(folders),
    messages: z.array(z.discriminatedUnion('source', [inboundEntry, outboundEntry])).meta({ description: 'Oldest first' }),
  })
  .strict();

export const threadListQuery = z
  .object({
    folder: z.enum(listFolders).optional().meta({ description: 'Default inbox' }),
    inbox_id: z.string().max(64).optional().meta({ description: 'Only threads that reached this inbox’s address' }),
    inbox: z.string().max(254).optional().meta({ description: 'Only threads that reached this address (an inbox’s or a catch-all one)' }),
    q: z.string().max(1000).optional().meta({ description: 'Only threads with a message matching this search (GET /v1/mail/search’s q), at their newest match' }),
    limit: z.string().optional(),
    cursor: z.string().optional(),
  })
  .strict();

export const readBody = z.object({ read: z.boolean().optional() }).strict();
export const starBody = z.object({ starred: z.boolean().optional() }).strict();
export const folderBody = z.object({ folder: z.enum(folders).meta({ description: 'sent is not a target' }) }).strict();
const labelNames = z.array(z.string().min(1).max(100)).max(100);
export const labelsBody = z.object({ add: labelNames.optional(), remove: labelNames.optional() }).strict();

export const threadId = z.object({ id: z.string().meta({ description: 'thr_…' }) });
export const messageParams = z.object({ source: z.string().meta({ description: 'inbound or outbound' }), id: z.string() });

export const readView = z.object({ id: z.string(), read: z.boolean() }).strict();
export const starView = z.object({ id: z.string(), starred: z.boolean() }).strict();
export const messageStarView = z.object({ source: z.enum(sources), id: z.string(), starred: z.boolean() }).strict();
export const folderView = z.object({ id: z.string(), folder: z.enum(folders) }).strict();
export const idView = z.object({ id: z.string() }).strict();

export const labelView = z
  .object({
    id: z.string().meta({ description: 'lbl_…' }),
    name: z.string(),
    color: z.string().meta({ description: '#rgb or #rrggbb' }),
    created_at: z.string(),
  })
  .strict();

export const createLabelBody = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .refine((n) => !/[\u0000-\u001f\u007f]/.test(n), 'no control characters'),
    color: z.string().regex(/^#([0-9a-fA-F]{3}|[0-9a-fA-F]{6})$/, 'a hex colour, #rgb or #rrggbb'),
  })
  .strict();

export type InboxView = z.infer<typeof inboxView>;
export type CreateInboxBody = z.infer<typeof createInboxBody>;
export type ThreadSummary = z.infer<typeof threadSummary>;
export type ThreadDetail = z.infer<typeof threadDetail>;
export type InboundEntry = z.infer<typeof inboundEntry>;
export type ThreadListQuery = z.infer<typeof threadListQuery>;
export type LabelView = z.infer<typeof labelView>;
export type CreateLabelBody = z.infer<typeof createLabelBody>;
export type LabelsBody = z.infer<typeof labelsBody>;
