// What internal callers (inbound route forwards; later the Mail app's replies and forwards) may add
// to an email beyond the public send request: a few headers from an allowlist, and files attached
// by reference to objects already in the object store. Never part of SendRequest: acceptSends takes
// them as an option (`extras`), content.ts keeps them with the message's content, and the send
// worker reads the objects at send time. Checked here, before anything is claimed or stored.
import * as z from 'zod';
import { ApiError } from '../../errors';
import type { MailHeader } from '../../ports/mailer';
import type { AttachmentRef } from './model';

/**
 * The headers an internal caller may set. Threading (In-Reply-To, References: RFC 5322 §3.6.4),
 * forwarding provenance (X-Forwarded-For, X-Forwarded-To, X-Original-From) and Auto-Submitted
 * (RFC 3834, so auto-responders do not answer machine-sent mail). Anything the provider or the
 * worker sets (From, To, Subject, Message-ID, List-Unsubscribe, X-Postbox-Message-Id) is not here.
 */
export const HEADER_NAMES = ['In-Reply-To', 'References', 'X-Forwarded-For', 'X-Forwarded-To', 'X-Original-From', 'Auto-Submitted'] as const;
/** SES's bound on a header: its name and value together at most 996 characters. */
export const MAX_HEADER_CHARS = 996;
/** Attachments on one message; their references ride with its content, so they stay small. */
export const MAX_ATTACHMENTS = 25;
/**
 * SES's limit on one message as it is sent, attachments included and after encoding ("40 MB",
 * read as decimal megabytes to stay on the safe side of it).
 */
export const MAX_SENT_MESSAGE_BYTES = 40_000_000;
/** Kept for what the estimate leaves out: SES's own headers, MIME boundaries and part headers. */
export const MESSAGE_OVERHEAD_BYTES = 64 * 1024;

export interface MessageExtras {
  headers?: MailHeader[];
  attachments?: AttachmentRef[];
}

const CANONICAL = new Map<string, string>(HEADER_NAMES.map((name) => [name.toLowerCase(), name]));
/** Printable ASCII on one line, no leading or trailing space: what SES takes in a header value, and no CR or LF to inject with. */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?$/;
/** No control characters (C0, DEL, C1): nothing that could end a MIME header line. */
const NO_CONTROLS = /^[^\u0000-\u001f\u007f-\u009f]+$/;
/** type/subtype, RFC 6838 token characters, no parameters (SES: at most 78 characters). */
const CONTENT_TYPE = /^[a-z0-9][a-z0-9!#$&^_.+-]*\/[a-z0-9][a-z0-9!#$&^_.+-]*$/i;

const mailHeader = z.object({
  name: z.string().transform((name, ctx) => {
    const canonical = CANONICAL.get(name.toLowerCase());
    if (canonical) return canonical;
    ctx.addIssue({ code: 'custom', message: `is not one of the headers an internal sender may set (${HEADER_NAMES.join(', ')})` });
    return z.NEVER;
  }),
  value: z.string().regex(HEADER_VALUE, 'must be printable ASCII on one line (no CR or LF), without leading or trailing spaces'),
});

const attachmentRef = z.object({
  filename: z.string().trim().min(1).max(255).regex(NO_CONTROLS, 'must hold no control characters'),
  content_type: z.string().max(78).regex(CONTENT_TYPE, 'must be a MIME type, type/subtype without parameters'),
  object_key: z.string().min(1).max(1024).regex(NO_CONTROLS, 'must hold no control characters'),
  size: z.number().int().min(0).max(MAX_SENT_MESSAGE_BYTES),
});

const messageExtras = z.object({
  headers: z
    .array(mailHeader)
    .max(HEADER_NAMES.length)
    .superRefine((headers, ctx) => {
      const seen = new Set<string>();
      headers.forEach((h, i) => {
        if (seen.has(h.name)) ctx.addIssue({ code: 'custom', path: [i, 'name'], message: `${h.name} is set twice` });
        seen.add(h.name);
        if (!isHeaderValue(h.name, h.value)) ctx.addIssue({ code: 'custom', path: [i, 'value'], message: `${h.name} and its value may be at most ${MAX_HEADER_CHARS} characters` });
      });
    })
    .optional(),
  attachments: z.array(attachmentRef).max(MAX_ATTACHMENTS).optional(),
});

/** A value SES and the allowlist take for this header: one line of printable ASCII, within the length bound. */
export const isHeaderValue = (name: string, value: string): boolean => HEADER_VALUE.test(value) && name.length + value.length <= MAX_HEADER_CHARS;

/** Bytes of `n` bytes in base64 with a CRLF every 76 characters, as MIME carries them. */
export function base64Bytes(n: number): number {
  const chars = 4 * Math.ceil(n / 3);
  return chars + 2 * Math.ceil(chars / 76);
}

/** A text part as sent: the larger of quoted-printable (a non-ASCII byte takes three) and base64, whichever SES picks. */
function textPartBytes(part: string | undefined): number {
  if (!part) return 0;
  const utf8 = Buffer.byteLength(part, 'utf8');
  let ascii = 0;
  for (let i = 0; i < part.length; i++) if (part.charCodeAt(i) < 0x80) ascii++;
  const quotedPrintable = Math.ceil(((ascii + 3 * (utf8 - ascii)) * 78) / 76);
  return Math.max(quotedPrintable, base64Bytes(utf8));
}

/**
 * An estimate, from above, of the message as SES sends it: its text parts and subject encoded,
 * the extra headers, each attachment in base64 (a third larger, plus line breaks), and
 * MESSAGE_OVERHEAD_BYTES for the rest. A message fits when this is at most MAX_SENT_MESSAGE_BYTES.
 */
export function sentMessageBytes(message: { subject: string; html?: string; text?: string; headers?: readonly MailHeader[]; attachmentSizes?: readonly number[] }): number {
  const headers = (message.headers ?? []).reduce((n, h) => n + h.name.length + h.value.length + 4, 0);
  const attachments = (message.attachmentSizes ?? []).reduce((n, size) => n + base64Bytes(size), 0);
  return MESSAGE_OVERHEAD_BYTES + textPartBytes(message.subject) + textPartBytes(message.html) + textPartBytes(message.text) + headers + attachments;
}

/**
 * The extras of one email, checked and normalized (header names in their canonical case). 400
 * invalid_request naming the field for a header off the allowlist, a value that could inject a
 * header (CR, LF, any control) or is too long, a malformed attachment; 413 payload_too_large when
 * the message with its attachments would be over SES's limit once encoded.
 */
export function checkExtras(extras: MessageExtras, channel: string, content: { subject: string; html?: string; text?: string }): MessageExtras {
  if (channel !== 'email') throw new ApiError('invalid_request', 'extras: headers and attachments are for the email channel only');
  const parsed = messageExtras.safeParse(extras);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new ApiError('invalid_request', `extras.${(issue?.path ?? []).map(String).join('.')}: ${issue?.message ?? 'invalid'}`);
  }
  const checked: MessageExtras = {};
  if (parsed.data.headers?.length) checked.headers = parsed.data.headers;
  if (parsed.data.attachments?.length) checked.attachments = parsed.data.attachments;
  const bytes = sentMessageBytes({ ...content, headers: checked.headers, attachmentSizes: checked.attachments?.map((a) => a.size) });
  if (bytes > MAX_SENT_MESSAGE_BYTES) {
    throw new ApiError('payload_too_large', `the message with its attachments would be about ${bytes} bytes once encoded; SES sends at most ${MAX_SENT_MESSAGE_BYTES}`);
  }
  return checked;
}
