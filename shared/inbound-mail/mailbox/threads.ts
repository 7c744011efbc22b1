// Reading and filing Mail threads: the list (one view's pointers, newest last_message_at first),
// the detail (marks the thread read), and read state, stars, folder and labels. Another account's
// thread is not found, like one that does not exist.
import { inParallel } from '../../concurrency';
import type { Store } from '../../db/store';
import { normalizeAddress } from '../../formats/address';
import { InvalidRequestError, NotFoundError } from '../../errors';
import { isId } from '../../ports/ids';
import { readInbound } from '../receipt/read';
import { ContentMissingError, loadContent } from '../../sending/messages/content';
import { toMessageView, type MessageItem } from '../../sending/messages/model';
import { MessageRepository } from '../../sending/messages/repository';
import { mapPage, pageRequest, type Page, type PageInput } from '../../pagination';
import type { ObjectStore } from '../../ports/object-store';
import { inboxById, inboxIdsByAddress } from './inboxes';
import { isStarred, refOf, viewName, type ThreadState } from './model';
import { planSearch } from './search';
import { threadsMatching } from './search-threads';
import { MailSettingsRepository } from './settings-repository';
import { sources, type Folder, type LabelsBody, type ListFolder, type MailSource, type ThreadDetail, type ThreadListQuery, type ThreadSummary } from './schemas';
import { MailThreadRepository, type MailThreadEntryItem, type MailThreadItem } from './threads-repository';

/** A long thread's messages are read this many at a time. */
const READ_PARALLEL = 8;
const notFound = (): NotFoundError => new NotFoundError('thread');
const isSource = (value: string): value is MailSource => (sources as readonly string[]).includes(value);

/** What reading threads joins them with: the account's labels by id and inboxes by address. */
interface Names {
  labels: Map<string, string>;
  inboxes: Map<string, string>;
}

async function namesOf(store: Store, accountId: string): Promise<Names> {
  const [labels, inboxes] = await Promise.all([new MailSettingsRepository(store).labels(accountId), inboxIdsByAddress(store, accountId)]);
  return { labels: new Map(labels.map((l) => [l.id, l.name])), inboxes };
}

const labelNames = (t: ThreadState, names: Names): string[] => t.label_ids.flatMap((id) => names.labels.get(id) ?? []);

export function toThreadSummary(t: ThreadState, names: Names): ThreadSummary {
  return {
    id: t.id,
    subject: t.subject,
    snippet: t.snippet,
    participants: t.participants,
    last_message_at: t.last_message_at,
    message_count: t.message_count,
    has_unread: t.has_unread,
    is_starred: isStarred(t),
    labels: labelNames(t, names),
    folder: t.folder,
    inbox_ids: t.addresses.flatMap((a) => names.inboxes.get(a) ?? []),
  };
}

/** The address a list is narrowed to: an inbox's (404 for an unknown one) or one given as it is. */
export async function addressFilter(store: Store, accountId: string, query: Pick<ThreadListQuery, 'inbox' | 'inbox_id'>): Promise<string | undefined> {
  const given = query.inbox?.trim() ? normalizeAddress(query.inbox) : undefined;
  if (!query.inbox_id) return given;
  const inbox = await inboxById(store, accountId, query.inbox_id);
  if (given !== undefined && given !== inbox.address) throw new InvalidRequestError(`query.inbox: ${given} is not the address of inbox ${inbox.id}; give one of the two`);
  return inbox.address;
}

export async function listThreads(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  query: ThreadListQuery,
  page: PageInput,
): Promise<Page<ThreadSummary>> {
  const folder: ListFolder = query.folder ?? 'inbox';
  const q = query.q?.trim();
  const plan = q ? planSearch(accountId, q) : undefined;
  const address = await addressFilter(deps.store, accountId, query);
  if (plan) {
    // The threads of the matching messages (shared/inbound-mail/mailbox/search-threads.ts), in the same view.
    const scope = { accountId, collection: 'mail-threads-search', filters: { folder, address, q } };
    const [found, names] = await Promise.all([threadsMatching(deps.store, plan, viewName(folder, address), pageRequest(deps, scope, page)), namesOf(deps.store, accountId)]);
    return mapPage(found, (t) => toThreadSummary(t, names));
  }
  const [hits, names] = await Promise.all([
    new MailThreadRepository(deps.store).viewPage(accountId, viewName(folder, address), pageRequest(deps, { accountId, collection: 'mail-threads', filters: { folder, address } }, page)),
    namesOf(deps.store, accountId),
  ]);
  return mapPage(hits, (hit) => toThreadSummary(hit.thread, names));
}

async function owned(store: Store, accountId: string, id: string): Promise<MailThreadItem> {
  const thread = await new MailThreadRepository(store).get(accountId, id);
  if (!thread) throw notFound();
  return thread;
}

type Entry = ThreadDetail['messages'][number];

/** A thread entry whose message is gone is left out of the detail. */
const unlessGone = <T>(read: Promise<T>): Promise<T | undefined> =>
  read.catch((error: unknown) => {
    if (error instanceof NotFoundError) return undefined;
    throw error;
  });

async function inboundEntry(deps: { store: Store; objects: ObjectStore }, thread: MailThreadItem, e: MailThreadEntryItem, names: Names): Promise<Entry | undefined> {
  const email = await unlessGone(readInbound(deps, thread.account_id, e.id));
  if (!email) return undefined;
  return {
    id: email.id,
    source: 'inbound',
    from: email.from,
    to: email.to,
    cc: email.cc,
    subject: email.subject,
    text_body: email.text,
    recipient: email.recipient,
    inbox_id: names.inboxes.get(email.recipient.toLowerCase()) ?? null,
    spf_verdict: email.spf_verdict,
    dkim_verdict: email.dkim_verdict,
    dmarc_verdict: email.dmarc_verdict,
    attachments: email.attachments,
    occurred_at: e.occurred_at,
    is_starred: thread.starred_refs.includes(refOf('inbound', e.id)),
  };
}

/** A sent message as the thread shows it: status and timeline from its item, text from its stored content. */
async function outboundEntry(deps: { store: Store; objects: ObjectStore }, thread: MailThreadItem, e: MailThreadEntryItem): Promise<Entry | undefined> {
  const messages = new MessageRepository(deps.store);
  const { message, events } = await messages.getWithTimeline(e.id);
  if (!message || message.account_id !== thread.account_id) return undefined;
  const view = toMessageView(message, events);
  return {
    id: e.id,
    source: 'outbound',
    from: e.from,
    to: e.to,
    subject: e.subject,
    text_body: await sentText(deps.objects, messages, message),
    status: view.status,
    timeline: view.events,
    occurred_at: e.occurred_at,
    is_starred: thread.starred_refs.includes(refOf('outbound', e.id)),
  };
}

/** The text part as sent; null when it had none or its content is gone. */
async function sentText(objects: ObjectStore, messages: MessageRepository, message: MessageItem): Promise<string | null> {
  try {
    return (await loadContent({ objects, messages }, message)).body_text ?? null;
  } catch (error) {
    if (error instanceof ContentMissingError) return null;
    throw error;
  }
}

/** The thread with its messages, oldest first; marks it read. */
export async function readThread(deps: { store: Store; objects: ObjectStore }, accountId: string, id: string): Promise<ThreadDetail> {
  const threads = new MailThreadRepository(deps.store);
  let thread = await owned(deps.store, accountId, id);
  const [entries, names] = await Promise.all([threads.entries(accountId, id), namesOf(deps.store, accountId)]);
  const messages = await inParallel(entries, READ_PARALLEL, (e) => (e.source === 'inbound' ? inboundEntry(deps, thread, e, names) : outboundEntry(deps, thread, e)));
  if (thread.has_unread) thread = (await threads.change(accountId, id, (t) => (t?.has_unread ? { ...t, has_unread: false } : undefined))) ?? thread;
  return {
    id: thread.id,
    subject: thread.subject,
    participants: thread.participants,
    message_count: thread.message_count,
    is_starred: isStarred(thread),
    labels: labelNames(thread, names),
    folder: thread.folder,
    messages: messages.filter((m): m is Entry => m !== undefined),
  };
}

/** Applies `change` to the caller's thread; 404 when there is none. */
async function changeOwned(store: Store, accountId: string, id: string, change: (t: MailThreadItem) => ThreadState | undefined): Promise<MailThreadItem> {
  const saved = await new MailThreadRepository(store).change(accountId, id, (t) => (t ? change(t) : undefined));
  if (!saved) throw notFound();
  return saved;
}

export async function setRead(store: Store, accountId: string, id: string, read: boolean): Promise<{ id: string; read: boolean }> {
  await changeOwned(store, accountId, id, (t) => (t.has_unread === !read ? undefined : { ...t, has_unread: !read }));
  return { id, read };
}

/** Unstarring a thread unstars its messages too; starring it stars the thread itself. */
export async function setThreadStarred(store: Store, accountId: string, id: string, starred: boolean): Promise<{ id: string; starred: boolean }> {
  await changeOwned(store, accountId, id, (t) => {
    if (starred) return t.starred ? undefined : { ...t, starred: true };
    return isStarred(t) ? { ...t, starred: false, starred_refs: [] } : undefined;
  });
  return { id, starred };
}

/** `source` as the path gives it: inbound or outbound (400 otherwise). */
export async function setMessageStarred(
  store: Store,
  accountId: string,
  source: string,
  id: string,
  starred: boolean,
): Promise<{ source: MailSource; id: string; starred: boolean }> {
  if (!isSource(source)) throw new InvalidRequestError('path.source: expected inbound or outbound');
  const ref = isId(id, source === 'inbound' ? 'inb' : 'msg') ? await new MailThreadRepository(store).getRef(accountId, source, id) : undefined;
  if (!ref) throw new NotFoundError('message');
  const key = refOf(source, id);
  await changeOwned(store, accountId, ref.thread_id, (t) => {
    if (t.starred_refs.includes(key) === starred) return undefined;
    return { ...t, starred_refs: starred ? [...t.starred_refs, key] : t.starred_refs.filter((r) => r !== key) };
  });
  return { source, id, starred };
}

export async function setFolder(store: Store, accountId: string, id: string, folder: Folder): Promise<{ id: string; folder: Folder }> {
  await changeOwned(store, accountId, id, (t) => (t.folder === folder ? undefined : { ...t, folder }));
  return { id, folder };
}

/**
 * Adds and removes labels by name, without regard to case; names of no label are ignored. The
 * thread keeps only ids of labels that exist: a deleted label's id leaves it here.
 */
export async function setLabels(store: Store, accountId: string, id: string, body: LabelsBody): Promise<{ id: string }> {
  const labels = await new MailSettingsRepository(store).labels(accountId);
  const byName = new Map(labels.map((l) => [l.name.toLowerCase(), l.id]));
  const idsOf = (names: readonly string[] | undefined): Set<string> => new Set((names ?? []).flatMap((n) => byName.get(n.trim().toLowerCase()) ?? []));
  const add = idsOf(body.add);
  const remove = idsOf(body.remove);
  const live = new Set(labels.map((l) => l.id));
  await changeOwned(store, accountId, id, (t) => {
    const next = [...t.label_ids.filter((l) => live.has(l) && !remove.has(l)), ...[...add].filter((l) => !t.label_ids.includes(l) && !remove.has(l))];
    return next.length === t.label_ids.length && next.every((l, i) => l === t.label_ids[i]) ? undefined : { ...t, label_ids: next };
  });
  return { id };
}
