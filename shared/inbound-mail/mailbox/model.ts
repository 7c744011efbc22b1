// A Mail thread's state and how a message changes it: pure functions, no I/O. The thread item
// (shared/inbound-mail/mailbox/threads-repository.ts) stores what this computes; its list pointers are `viewsOf`.
import type { Folder, ListFolder, MailSource } from './schemas';

/** What one message brings to its thread: the one input of recordMailMessage, inbound or outbound. */
export interface MailMessageEntry {
  account_id: string;
  source: MailSource;
  id: string;
  thread_id: string;
  occurred_at: string;
  from: string | null;
  to: readonly string[];
  cc: readonly string[];
  subject: string | null;
  /** The message's text, or null; only its start is kept (the snippet, and the search index's first 4,000 characters). */
  text: string | null;
  /** The account's own address on the message: the recipient of inbound mail, the sender of outbound. */
  address: string;
  /** How many attachments the message has (the search index's `has:attachment`); none when absent. */
  attachment_count?: number;
}

export interface ThreadState {
  id: string;
  account_id: string;
  subject: string | null;
  snippet: string;
  participants: string[];
  first_message_at: string;
  last_message_at: string;
  message_count: number;
  has_unread: boolean;
  /** The thread itself is starred (PUT …/threads/{id}/star). */
  starred: boolean;
  /** Starred messages of the thread, as `<source>:<id>` (PUT …/messages/{source}/{id}/star). */
  starred_refs: string[];
  /** Label ids; a deleted label's id stays until the thread's labels are next written, and is never shown. */
  label_ids: string[];
  folder: Folder;
  /** The thread holds mail the account sent (the `sent` view). */
  has_outbound: boolean;
  /** The account's addresses the thread's mail went to or came from, lowercased. */
  addresses: string[];
  /** The latest messages counted, as `<source>:<id>`: a message recorded twice is counted once. */
  recent_refs: string[];
}

export const SNIPPET_CHARS = 140;
export const MAX_PARTICIPANTS = 20;
/** How many counted message refs the thread remembers (see recordMailMessage on why this suffices). */
export const RECENT_REFS = 20;

export const refOf = (source: MailSource, id: string): string => `${source}:${id}`;

export function snippetOf(text: string | null): string {
  return (text ?? '').replace(/\s+/g, ' ').trim().slice(0, SNIPPET_CHARS);
}

function union(have: readonly string[], add: readonly string[], max = Infinity): string[] {
  const out = [...have];
  const seen = new Set(have.map((v) => v.toLowerCase()));
  for (const value of add) {
    if (out.length >= max) break;
    if (value && !seen.has(value.toLowerCase())) {
      seen.add(value.toLowerCase());
      out.push(value);
    }
  }
  return out;
}

/**
 * The thread after `entry` joins it; undefined when the thread has counted it already. New inbound
 * mail marks the thread unread and brings an archived thread back to the inbox (trash and spam keep
 * it); outbound mail puts the thread in `sent` and leaves its read state alone.
 */
export function applyEntry(current: ThreadState | undefined, entry: MailMessageEntry): ThreadState | undefined {
  const ref = refOf(entry.source, entry.id);
  if (current?.recent_refs.includes(ref)) return undefined;
  const participants = [...(entry.from ? [entry.from] : []), ...entry.to, ...entry.cc];
  const inbound = entry.source === 'inbound';
  if (!current) {
    return {
      id: entry.thread_id,
      account_id: entry.account_id,
      subject: entry.subject,
      snippet: snippetOf(entry.text),
      participants: union([], participants, MAX_PARTICIPANTS),
      first_message_at: entry.occurred_at,
      last_message_at: entry.occurred_at,
      message_count: 1,
      has_unread: inbound,
      starred: false,
      starred_refs: [],
      label_ids: [],
      folder: 'inbox',
      has_outbound: !inbound,
      addresses: [entry.address.toLowerCase()],
      recent_refs: [ref],
    };
  }
  const newest = entry.occurred_at >= current.last_message_at;
  const oldest = entry.occurred_at < current.first_message_at;
  return {
    ...current,
    subject: oldest || current.subject === null ? (entry.subject ?? current.subject) : current.subject,
    snippet: newest ? snippetOf(entry.text) : current.snippet,
    participants: union(current.participants, participants, MAX_PARTICIPANTS),
    first_message_at: oldest ? entry.occurred_at : current.first_message_at,
    last_message_at: newest ? entry.occurred_at : current.last_message_at,
    message_count: current.message_count + 1,
    has_unread: current.has_unread || inbound,
    folder: inbound && current.folder === 'archive' ? 'inbox' : current.folder,
    has_outbound: current.has_outbound || !inbound,
    addresses: union(current.addresses, [entry.address.toLowerCase()]),
    recent_refs: [...current.recent_refs, ref].slice(-RECENT_REFS),
  };
}

export const isStarred = (t: Pick<ThreadState, 'starred' | 'starred_refs'>): boolean => t.starred || t.starred_refs.length > 0;

/** A list view's name: a folder (or starred, sent), optionally narrowed to one address. */
export const viewName = (folder: ListFolder, address?: string): string => (address ? `${folder}@${address}` : folder);

/**
 * The list views a thread appears in: its folder, `starred` when starred, `sent` when it holds
 * outbound mail (neither while in trash or spam); each also per address it touched, so the
 * `inbox_id`/`inbox` filters are one Query.
 */
export function viewsOf(t: ThreadState): string[] {
  const away = t.folder === 'trash' || t.folder === 'spam';
  const base: ListFolder[] = [t.folder, ...(!away && isStarred(t) ? (['starred'] as const) : []), ...(!away && t.has_outbound ? (['sent'] as const) : [])];
  return base.flatMap((folder) => [viewName(folder), ...t.addresses.map((a) => viewName(folder, a))]);
}
