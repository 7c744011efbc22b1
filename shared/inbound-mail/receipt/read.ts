// Reading received mail: the list (newest first), the full form, the raw message and one
// attachment. Another account's email is not found, like one that does not exist.
import type { Store } from '../../db/store';
import { NotFoundError } from '../../errors';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { ObjectStore } from '../../ports/object-store';
import { attachmentKey } from './object-keys';
import { InboundRepository, type InboundContent, type InboundEmailItem } from './repository';
import type { InboundEmailSummary, InboundEmailView } from './schemas';

/** The inbound routes exist only where inbound is enabled (the spec's deployment-gated routes). */
export function requireInbound(config: { inboundEnabled?: boolean }): void {
  if (config.inboundEnabled !== true) throw new NotFoundError('route');
}

export function toSummary(item: InboundEmailItem): InboundEmailSummary {
  return {
    id: item.id,
    account_id: item.account_id,
    domain: item.domain,
    recipient: item.recipient,
    inbox_id: item.inbox_id ?? null,
    from: item.from,
    to: item.to,
    cc: item.cc,
    subject: item.subject,
    spf_verdict: item.spf_verdict,
    dkim_verdict: item.dkim_verdict,
    dmarc_verdict: item.dmarc_verdict,
    attachments: item.attachments,
    size_bytes: item.size_bytes,
    received_at: item.received_at,
    thread_id: item.thread_id,
  };
}

export async function listInbound(deps: { store: Store; cursorSecret: string }, accountId: string, page: PageInput): Promise<Page<InboundEmailSummary>> {
  const out = await new InboundRepository(deps.store).list(accountId, pageRequest(deps, { accountId, collection: 'inbound' }, page));
  return mapPage(out, toSummary);
}

async function owned(store: Store, accountId: string, id: string): Promise<InboundEmailItem> {
  const item = await new InboundRepository(store).get(accountId, id);
  if (!item) throw new NotFoundError('inbound email');
  return item;
}

export async function readInbound(deps: { store: Store; objects: ObjectStore }, accountId: string, id: string): Promise<InboundEmailView> {
  const item = await owned(deps.store, accountId, id);
  const stored = await new InboundRepository(deps.store).getContent(accountId, id);
  let content: InboundContent | undefined = stored?.content;
  if (!content && stored?.content_key) {
    const object = await deps.objects.get(stored.content_key);
    if (object) content = JSON.parse(object.body.toString('utf8')) as InboundContent;
  }
  return { ...toSummary(item), text: content?.text ?? null, html: content?.html ?? null, headers: content?.headers ?? {}, rfc_message_id: content?.rfc_message_id ?? null };
}

/**
 * Files larger than this are answered with a link to the object store instead of their bytes: a
 * Lambda answer is capped at 6 MB, and API Gateway sends binary bodies base64-encoded (4/3 larger).
 */
export const INLINE_FILE_MAX_BYTES = 4 * 1024 * 1024;
/** How long such a link works. */
export const DOWNLOAD_LINK_TTL_S = 300;

/** A stored file as the API serves it: its bytes, or a short-lived link when it is too large to answer inline. */
export type ServedFile =
  | { kind: 'bytes'; body: Buffer; contentType: string; contentDisposition: string }
  | { kind: 'link'; url: string };

async function serve(
  objects: ObjectStore,
  key: string,
  file: { size: number; contentType: string; contentDisposition: string; what: string },
): Promise<ServedFile> {
  if (file.size > INLINE_FILE_MAX_BYTES) {
    return { kind: 'link', url: await objects.downloadUrl(key, { expiresInS: DOWNLOAD_LINK_TTL_S, contentType: file.contentType, contentDisposition: file.contentDisposition }) };
  }
  const object = await objects.get(key);
  if (!object) throw new NotFoundError(file.what);
  return { kind: 'bytes', body: object.body, contentType: file.contentType, contentDisposition: file.contentDisposition };
}

/** The message exactly as it was received (message/rfc822). */
export async function rawOf(deps: { store: Store; objects: ObjectStore }, accountId: string, id: string): Promise<ServedFile> {
  const item = await owned(deps.store, accountId, id);
  return serve(deps.objects, item.raw_key, { size: item.size_bytes, contentType: 'message/rfc822', contentDisposition: contentDisposition(null, `${item.id}.eml`), what: 'raw message' });
}

/** One attachment (0-based index in the email's attachments), decoded, with the type and name the sender gave it. */
export async function attachmentOf(deps: { store: Store; objects: ObjectStore }, accountId: string, id: string, index: number): Promise<ServedFile> {
  const item = await owned(deps.store, accountId, id);
  const entry = Number.isSafeInteger(index) && index >= 0 ? item.attachments[index] : undefined;
  if (!entry) throw new NotFoundError('attachment');
  return serve(deps.objects, attachmentKey(item.raw_key, index), {
    size: entry.size,
    contentType: entry.content_type,
    contentDisposition: contentDisposition(entry.filename, `attachment-${index}`),
    what: 'attachment',
  });
}

/**
 * Content-Disposition of a file we serve: an ASCII fallback name (quotes, backslashes, controls and
 * non-ASCII replaced) and the exact name as RFC 6266 / RFC 5987 `filename*=UTF-8''…`.
 */
export function contentDisposition(filename: string | null, fallback: string): string {
  const name = filename && filename.trim() ? filename : fallback;
  const ascii = name.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const encoded = encodeURIComponent(name).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
