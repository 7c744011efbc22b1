// One Mail message as an export holds it: the Export document's entry (json) and, for mbox, its
// bytes: the raw message as received where it is kept and fits a page, else one composed from
// what is stored. Text is read from the message's own storage (an inbound email's content, an
// outbound message's content), not from the search index, which keeps only its start.
import type { Store } from '../../db/store';
import { NotFoundError } from '../../errors';
import { readInbound } from '../receipt/read';
import { InboundRepository } from '../receipt/repository';
import { ContentMissingError, loadContent } from '../../sending/messages/content';
import { MessageRepository } from '../../sending/messages/repository';
import type { ObjectStore } from '../../ports/object-store';
import { composeMessage } from './export-mbox';
import type { MailMessageEntry } from './model';
import type { ExportMessage } from './search-schemas';

/** A page of an export holds at most this many bytes of messages (a Lambda answer is at most 6 MB). */
export const EXPORT_PAGE_BYTES = 4 * 1024 * 1024;
/** An exported text_body (and a composed mbox body) is cut here, so one message always fits a page. */
export const EXPORT_TEXT_CHARS = 1_000_000;

/** What the thread (or the index) knows of the message: from, to and subject serve outbound mail. */
export type ExportRef = Pick<MailMessageEntry, 'source' | 'id' | 'thread_id' | 'occurred_at' | 'from' | 'to' | 'subject'>;

export interface Exported {
  message: ExportMessage;
  /** The message's bytes, for mbox. */
  bytes?: Buffer;
}

export type ExportDeps = { store: Store; objects: ObjectStore };

const cut = (text: string | null): string | null => (text === null ? null : text.slice(0, EXPORT_TEXT_CHARS));
const orMissing = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((error: unknown) => {
    if (error instanceof NotFoundError || error instanceof ContentMissingError) return undefined;
    throw error;
  });

async function inbound(deps: ExportDeps, accountId: string, ref: ExportRef, mbox: boolean): Promise<Exported | undefined> {
  const item = await new InboundRepository(deps.store).get(accountId, ref.id);
  if (!item) return undefined;
  const raw = mbox && item.size_bytes <= EXPORT_PAGE_BYTES ? await deps.objects.get(item.raw_key) : undefined;
  const full = mbox && raw ? undefined : await orMissing(readInbound(deps, accountId, ref.id));
  const text = cut(full?.text ?? null);
  const message: ExportMessage = {
    id: item.id,
    thread_id: item.thread_id,
    source: 'inbound',
    from: item.from,
    to: item.to,
    subject: item.subject,
    text_body: mbox ? null : text,
    occurred_at: ref.occurred_at,
    attachments: item.attachments,
  };
  if (!mbox) return { message };
  const note = `the raw message (${item.size_bytes} bytes) is at GET /v1/inbound/${item.id}/raw`;
  return { message, bytes: raw?.body ?? composeMessage({ ...message, text, note }) };
}

async function outbound(deps: ExportDeps, accountId: string, ref: ExportRef, mbox: boolean): Promise<Exported | undefined> {
  const messages = new MessageRepository(deps.store);
  const item = await messages.get(ref.id);
  if (!item || item.account_id !== accountId) return undefined;
  const content = await orMissing(loadContent({ objects: deps.objects, messages }, item));
  const message: ExportMessage = {
    id: ref.id,
    thread_id: ref.thread_id,
    source: 'outbound',
    from: ref.from,
    to: [...ref.to],
    subject: ref.subject,
    text_body: mbox ? null : cut(content?.body_text ?? null),
    occurred_at: ref.occurred_at,
    attachments: [],
  };
  return mbox ? { message, bytes: composeMessage({ ...message, text: cut(content?.body_text ?? null) }) } : { message };
}

/** The message as exported; undefined when it is gone (its email or message deleted since). */
export function exportMessage(deps: ExportDeps, accountId: string, ref: ExportRef, mbox: boolean): Promise<Exported | undefined> {
  return ref.source === 'inbound' ? inbound(deps, accountId, ref, mbox) : outbound(deps, accountId, ref, mbox);
}
