// Where a message's content lives, and how large it may be. Content is written once and never
// rewritten, and status changes must not pay for it: DynamoDB charges an update by the larger of the
// item before and after it, a unit per started KB. So the content rides on the message item only
// while that item, with every attribute a status change can add, stays within one write unit
// (STATUS_ITEM_BYTES); otherwise it is gzipped, and up to INLINE_CONTENT_BYTES of gzip it is a
// content item beside the message (one write, one read); past that it is one JSON object in the
// object store, where a PUT and a GET (about $6 per million with the Lambda time around them) cost
// less than the table's write and read (about $0.66 per million per KB).
// One send's content may be at most MAX_MESSAGE_BYTES, checked before anything is claimed or stored.
import { gunzipSync, gzipSync } from 'node:zlib';
import { ApiError } from '../../errors';
import { isId } from '../../ports/ids';
import type { OutboundAttachment } from '../../ports/mailer';
import type { ObjectStore } from '../../ports/object-store';
import { type AttachmentRef, type MessageContent, type MessageItem } from './model';
import { storedItemBytes } from '../../db/item-size';
import type { MessageRepository, NewMessage } from './repository';
import type { SendRequest } from './schemas';

/** One message's content as sent (payload, destination, metadata, template_vars), in UTF-8 bytes of JSON. */
export const MAX_MESSAGE_BYTES = 5 * 1024 * 1024;
/**
 * Content whose gzip is at most this size stays in the table, on its content item; anything larger
 * goes to the object store. Break-even: the table costs 1 WRU ($0.625 per million) per started KB
 * written and 1 RRU ($0.125) per 4 KB read once; the object store $5 per million PUTs and $0.40
 * per million GETs, plus ~60 ms of Lambda time around them (~$0.66): about 9 KB.
 */
export const INLINE_CONTENT_BYTES = 8 * 1024;
/** One write unit: the most the message item may weigh with its content on it. */
export const STATUS_ITEM_BYTES = 1024;
/**
 * Room kept on the message item for what status changes add to it: status_at, dispatched_at,
 * updated_at, a longer status, provider_message_id (SES's ids are 60 characters), canceled flags,
 * and the `sent` event written with its status move (about 90 bytes: model.ts FoldedEvent), 240
 * bytes in all when it is sent. A provider's `delivered` event is not counted: its payload is
 * SES's notification, which no room short of the whole unit would hold.
 */
export const STATUS_ITEM_ROOM = 256;

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
/** `variant` (a request body's digest, hex) keeps apart what two bodies sent with one idempotency key wrote. */
export function contentKey(accountId: string, messageId: string, variant?: string): string {
  if (!isId(accountId, 'acct') || !isId(messageId, 'msg')) throw new Error(`content key needs an account and a message id; got ${accountId}, ${messageId}`);
  if (variant !== undefined && !/^[0-9a-f]{1,64}$/.test(variant)) throw new Error(`content key variant must be hex; got ${variant}`);
  return variant === undefined ? `messages/${accountId}/${messageId}.json` : `messages/${accountId}/${messageId}.${variant}.json`;
}

const contentOf = (m: Partial<MessageContent>): Partial<MessageContent> => ({
  from: m.from,
  subject: m.subject,
  body_html: m.body_html,
  body_text: m.body_text,
  data: m.data,
  template_id: m.template_id,
  template_version: m.template_version,
  destination: m.destination,
  metadata: m.metadata,
  headers: m.headers,
  attachments: m.attachments,
});

/**
 * The status item without its content. The template and its version stay on it (a few dozen bytes
 * that never change): GET /v1/messages/{id} shows them and reads only the status item and timeline.
 */
const withoutContent = (message: NewMessage): NewMessage => {
  const { from: _from, subject: _subject, body_html: _html, body_text: _text, data: _data, destination: _destination, metadata: _metadata, headers: _headers, attachments: _attachments, ...rest } = message;
  return rest;
};

/** Where one message's content went: the message item to store, and the content item's gzip to write first, if any. */
export interface Placed {
  message: NewMessage;
  contentGz?: Uint8Array;
}

/**
 * Where a message's content is kept. On the message item when the item (with `keyBytes` for its
 * keys and index attributes, and STATUS_ITEM_ROOM for what status changes add) stays within
 * STATUS_ITEM_BYTES; on a content item, gzipped, when that is at most INLINE_CONTENT_BYTES;
 * otherwise in the object store as JSON, written here first (the same key on a retry, so a
 * rewrite is harmless). Content outside the item is named by the message's body_digest too, so a
 * request reusing the key with another body writes beside the first one's, never over it.
 */
export async function placeContent(objects: ObjectStore, message: NewMessage, keyBytes = 0): Promise<Placed> {
  const content = contentOf(message);
  if (storedItemBytes(message) + keyBytes + STATUS_ITEM_ROOM <= STATUS_ITEM_BYTES) return { message };
  const json = JSON.stringify(content);
  const rest = withoutContent(message);
  const gz = gzipSync(json);
  if (gz.length <= INLINE_CONTENT_BYTES) return { message: { ...rest, content_item: message.body_digest ?? true }, contentGz: gz };
  const key = contentKey(message.account_id, message.id, message.body_digest);
  await objects.put(key, Buffer.from(json, 'utf8'), CONTENT_TYPE);
  return { message: { ...rest, content_ref: key } };
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
 * The content of a stored message, from the message item, its content item or the object store.
 * Throws ContentMissingError when it is gone or unreadable; a store or object store failure is
 * thrown as it came (worth a retry).
 */
export async function loadContent(deps: { objects: ObjectStore; messages: Pick<MessageRepository, 'getContent'> }, message: MessageItem): Promise<MessageContent> {
  const { objects } = deps;
  if (message.content_item) {
    const item = await deps.messages.getContent(message.id, message.content_item === true ? undefined : message.content_item);
    if (!item) throw new ContentMissingError('message content item is missing from the store');
    let parsed: unknown;
    try {
      parsed = JSON.parse(gunzipSync(item.content_gz).toString('utf8'));
    } catch (cause) {
      throw new ContentMissingError('message content item is not gzipped JSON', { cause });
    }
    if (!isRecord(parsed) || !complete(parsed)) throw new ContentMissingError('message content item lacks from, subject or destination');
    return parsed;
  }
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

/**
 * A message's attachments, read from the object store at send time, one at a time, in order.
 * Throws ContentMissingError when an object is gone or is not the size it was accepted with (the
 * size limit was checked on that); an object store failure is thrown as it came (worth a retry).
 */
export async function loadAttachments(objects: ObjectStore, refs: readonly AttachmentRef[] | undefined): Promise<OutboundAttachment[]> {
  const attachments: OutboundAttachment[] = [];
  for (const [i, ref] of (refs ?? []).entries()) {
    const stored = await objects.get(ref.object_key);
    if (!stored) throw new ContentMissingError(`attachment ${i} (${ref.filename}) is missing from the object store`);
    if (stored.body.length !== ref.size) {
      throw new ContentMissingError(`attachment ${i} (${ref.filename}) is ${stored.body.length} bytes in the object store, not the ${ref.size} it was accepted with`);
    }
    attachments.push({ filename: ref.filename, contentType: ref.content_type, content: stored.body });
  }
  return attachments;
}
