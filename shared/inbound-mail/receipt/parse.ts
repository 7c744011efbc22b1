// A received message, read with mailparser's streaming parser: headers and bodies as values, each
// attachment handed to `onAttachment` as a stream one at a time (the parser waits until it is
// stored), so no attachment is held beside the others. A message the parser cannot finish is
// still a message: what was read before the error is returned with `malformed` set.
import { MailParser, type AddressObject, type AttachmentStream, type HeaderValue, type MessageText } from 'mailparser';
import type { Readable } from 'node:stream';

export interface ParsedAttachment {
  filename: string | null;
  content_type: string;
  size: number;
}

export interface ParsedMessage {
  from: string | null;
  to: string[];
  cc: string[];
  subject: string | null;
  rfcMessageId: string | null;
  inReplyTo: string | null;
  references: string[];
  text: string | null;
  html: string | null;
  headers: Record<string, string | string[]>;
  attachments: ParsedAttachment[];
  /** The parser stopped on an error; the fields hold what it read before. */
  malformed: boolean;
}

/** Stores one attachment's bytes; resolves once they are kept. */
export type AttachmentSink = (index: number, attachment: { filename: string | null; contentType: string; content: Readable }) => Promise<number>;

const addresses = (value: HeaderValue | undefined): string[] => {
  if (!value || typeof value !== 'object') return [];
  const objects = (Array.isArray(value) ? value : [value]) as AddressObject[];
  const out: string[] = [];
  const walk = (entries: AddressObject['value']): void => {
    for (const entry of entries ?? []) {
      if (entry.address) out.push(entry.address);
      if (entry.group) walk(entry.group);
    }
  };
  for (const o of objects) if (o && Array.isArray(o.value)) walk(o.value);
  return out;
};

const stringOf = (value: HeaderValue | undefined): string | null => (typeof value === 'string' && value.length > 0 ? value : null);

const messageIds = (value: HeaderValue | undefined): string[] => {
  const raw = Array.isArray(value) ? value.join(' ') : typeof value === 'string' ? value : '';
  return raw.match(/<[^<>\s]+>/g) ?? [];
};

function headerObject(lines: ReadonlyArray<{ key: string; line: string }>): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const { key, line } of lines) {
    const colon = line.indexOf(':');
    const value = (colon >= 0 ? line.slice(colon + 1) : '').replace(/\r?\n[ \t]+/g, ' ').trim();
    const name = key.toLowerCase();
    const had = out[name];
    out[name] = had === undefined ? value : Array.isArray(had) ? [...had, value] : [had, value];
  }
  return out;
}

export async function parseMessage(source: Readable, storeAttachment: AttachmentSink): Promise<ParsedMessage> {
  const parsed: ParsedMessage = {
    from: null,
    to: [],
    cc: [],
    subject: null,
    rfcMessageId: null,
    inReplyTo: null,
    references: [],
    text: null,
    html: null,
    headers: {},
    attachments: [],
    malformed: false,
  };
  // html-to-text of a huge HTML part is slow and its text is a copy: the text part is what is sent.
  const parser = new MailParser({ skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
  const pending: Array<Promise<unknown>> = [];
  await new Promise<void>((resolve) => {
    let settled = false;
    const finish = (malformed: boolean): void => {
      if (settled) return;
      settled = true;
      parsed.malformed ||= malformed;
      resolve();
    };
    parser.on('headerLines', (lines: Array<{ key: string; line: string }>) => (parsed.headers = headerObject(lines)));
    parser.on('headers', (headers: Map<string, HeaderValue>) => {
      const from = addresses(headers.get('from'));
      parsed.from = from[0] ?? null;
      parsed.to = addresses(headers.get('to'));
      parsed.cc = addresses(headers.get('cc'));
      parsed.subject = stringOf(headers.get('subject'));
      parsed.rfcMessageId = messageIds(headers.get('message-id'))[0] ?? null;
      parsed.inReplyTo = messageIds(headers.get('in-reply-to'))[0] ?? null;
      parsed.references = messageIds(headers.get('references'));
    });
    parser.on('data', (data: AttachmentStream | MessageText) => {
      if (data.type === 'text') {
        parsed.text = typeof data.text === 'string' ? data.text : null;
        parsed.html = typeof data.html === 'string' ? data.html : null;
        return;
      }
      const index = parsed.attachments.length;
      const entry: ParsedAttachment = { filename: data.filename ?? null, content_type: data.contentType || 'application/octet-stream', size: 0 };
      parsed.attachments.push(entry);
      const stored = storeAttachment(index, { filename: entry.filename, contentType: entry.content_type, content: data.content as Readable })
        .then((size) => void (entry.size = size))
        .finally(() => data.release());
      pending.push(stored);
      // A failed store must fail the job (retried), not pass as a message without its attachment.
      stored.catch((error: unknown) => {
        parser.destroy(error as Error);
      });
    });
    parser.on('end', () => finish(false));
    parser.on('close', () => finish(false));
    parser.on('error', () => finish(true));
    source.on('error', () => finish(true));
    source.pipe(parser);
  });
  // The attachments read so far are stored whatever stopped the parser; a store failure throws here.
  await Promise.all(pending);
  return parsed;
}
