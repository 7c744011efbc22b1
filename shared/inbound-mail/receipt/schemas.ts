// Wire shapes of received mail (the spec's Inbound email resource), snake_case as the spec writes it.
import * as z from 'zod';

export const inboundAttachment = z.object({
  filename: z.string().nullable().meta({ description: 'As the sender named it; null when it had no name' }),
  content_type: z.string(),
  size: z.number().int().min(0).meta({ description: 'Decoded size in bytes' }),
});

export const inboundEmailSummary = z
  .object({
    id: z.string().meta({ description: 'inb_…' }),
    account_id: z.string(),
    domain: z.string(),
    recipient: z.string().meta({ description: 'The envelope recipient on the domain' }),
    inbox_id: z.string().nullable().meta({ description: 'The Mail app inbox whose address the recipient was when the message arrived; null when there was none then (an inbox made later does not change it)' }),
    from: z.string().nullable().meta({ description: 'The first From address; null when the message had none that could be read' }),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    subject: z.string().nullable(),
    spf_verdict: z.string().meta({ description: 'PASS, FAIL, GRAY or PROCESSING_FAILED' }),
    dkim_verdict: z.string(),
    dmarc_verdict: z.string(),
    attachments: z.array(inboundAttachment),
    size_bytes: z.number().int().min(0),
    received_at: z.string(),
    thread_id: z.string(),
  });

export const inboundEmailView = inboundEmailSummary
  .extend({
    text: z.string().nullable(),
    html: z.string().nullable().meta({ description: 'As received, never sanitized: render it only in a sandbox' }),
    headers: z.record(z.string(), z.union([z.string(), z.array(z.string())])).meta({
      description: 'By lowercased name, values as received (encoded words not decoded); a repeated header is an array in order',
    }),
    rfc_message_id: z.string().nullable(),
  });

export type InboundEmailSummary = z.infer<typeof inboundEmailSummary>;
export type InboundEmailView = z.infer<typeof inboundEmailView>;
export type InboundAttachment = z.infer<typeof inboundAttachment>;
