// Where a message's content lives, and how large it may be. A message item holds its content
// (MessageContent) inline while that is small, as it always has; past INLINE_CONTENT_BYTES the
// content goes to the object store as one JSON object and the item keeps only `content_ref`, so no
// accepted send brings its item near DynamoDB's 400 KB item limit. One send's content may be at
// most MAX_MESSAGE_BYTES, checked before anything is claimed or stored.
import { ApiError } from '../errors';
import { isId } from '../ids';
import type { ObjectStore } from '../ports/object-store';
import type { MessageContent, MessageItem } from './model';
import type { NewMessage } from './repository';
import type { SendRequest } from './schemas';

/** One message's content as sent (payload, destination, metadata, template_vars), in UTF-8 bytes of JSON. */
export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;
/** Content up to this size stays on the message item; anything larger goes to the object store. */
export const INLINE_CONTENT_BYTES = 16 * 1024;

const CONTENT_TYPE = 'application/json';

/** Bytes of a value as compact JSON (JSON.stringify), 0 when absent. */
const jsonBytes = (value: unknown): number => (value === undefined ? 0 : Buffer.byteLength(JSON.stringify(value), 'utf8'));

/** The size the message limit is measured on: the content fields of the request, each as compact JSON. */
export function requestContentBytes(request: Pick<SendRequest, 'payload' | 'destination' | 'metadata' | 'template_vars'>): number {
  return jsonBytes(request.payload) + jsonBytes(request.destination) + jsonBytes(request.metadata) + jsonBytes(request.template_vars);
}

/** 413 payload_too_large when one send's content is over the limit. */
export function checkMessageSize(request: Pick<SendRequest, 'payload' | 'destination' | 'metadata' | 'template_vars'>): void {
  const bytes = requestContentBytes(request);
  if (bytes > MAX_MESSAGE_BYTES) {
    throw new ApiError(
      'payload_too_large',
      `message content (payload, destination, metadata and template_vars as JSON) is ${bytes} bytes; one message may hold at most ${MAX_MESSAGE_BYTES} bytes (5 MiB)`,
    );
  }
}

/** The object key of a message's content: from our ids only, never from anything the client sent. */
export function contentKey(accountId: string, messageId: string): string {
  if (!isId(accountId, 'acct') || !isId(messageId, 'msg')) throw new Error(`content key needs an account and a message id; got ${accountId}, ${messageId}`);
  return `messages/${accountId}/${messageId}.json`;
}

const contentOf = (m: Partial<MessageContent>): Partial<MessageContent> => ({
  from: m.from,
  subject: m.subject,
  body_html: m.body_html,
  body_text: m.body_text,
  data: m.data,
  destination: m.destination,
  metadata: m.metadata,
});

/**
 * The message as it is to be stored: unchanged while its content is small; otherwise the content
 * is written to the object store first (the same key on a retry, so a rewrite is harmless) and the
 * item keeps `content_ref` instead of it.
 */
export async function placeContent(objects: ObjectStore, message: NewMessage): Promise<NewMessage> {
  const json = JSON.stringify(contentOf(message));
  if (Buffer.byteLength(json, 'utf8') <= INLINE_CONTENT_BYTES) return message;
  const key = contentKey(message.account_id, message.id);
  await objects.put(key, Buffer.from(json, 'utf8'), CONTENT_TYPE);
  const { from: _from, subject: _subject, body_html: _html, body_text: _text, data: _data, destination: _destination, metadata: _metadata, ...rest } = message;
  return { ...rest, content_ref: key };
}

/** The content of a message cannot be had: sending it can never succeed. */
export class ContentMissingError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'ContentMissingError';
  }
}

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function complete(content: Partial<Record<keyof MessageContent, unknown>>): content is MessageContent {
  return typeof content.from === 'string' && typeof content.subject === 'string' && isRecord(content.destination);
}

/**
 * The content of a stored message, from the item or the object store. Throws ContentMissingError
 * when it is gone or unreadable; an object store failure is thrown as it came (worth a retry).
 */
export async function loadContent(objects: ObjectStore, message: MessageItem): Promise<MessageContent> {
  if (message.content_ref === undefined) {
    const inline = contentOf(message);
    if (!complete(inline)) throw new ContentMissingError('message content is missing from the stored message');
    return inline;
  }
  const stored = await objects.get(message.content_ref);
  if (!stored) throw new ContentMissingError('message content is missing from the object store');
  let parsed: unknown;
  try {
    parsed = JSON.parse(stored.body.toString('utf8'));
  } catch (cause) {
    throw new ContentMissingError('message content in the object store is not valid JSON', { cause });
  }
  if (!isRecord(parsed) || !complete(parsed)) throw new ContentMissingError('message content in the object store lacks from, subject or destination');
  return parsed;
}
