// What the page holds: the folder or search it shows, its list, the open thread, the account's
// labels, and the HTML of the messages read so far. One object, reset at sign-out.
import type { Ok } from '../../client/src/index';

export type Folder = 'inbox' | 'starred' | 'sent' | 'archive' | 'spam' | 'trash';
export type Thread = Ok<'/v1/mail/threads/{id}', 'get'>;
export type MailMessage = Thread['messages'][number];
export type Label = Ok<'/v1/mail/labels', 'get'>['labels'][number];
type ThreadSummary = Ok<'/v1/mail/threads', 'get'>['threads'][number];
type SearchResult = Ok<'/v1/mail/search', 'get'>['results'][number];

export const FOLDER_NAMES: Record<Folder, string> = { inbox: 'Inbox', starred: 'Starred', sent: 'Sent', archive: 'Archive', spam: 'Spam', trash: 'Trash' };
export const isFolder = (value: string | undefined): value is Folder => value !== undefined && Object.hasOwn(FOLDER_NAMES, value);

/** A line of the list: a thread of a folder, or a thread a search found. */
export interface Item {
  id: string;
  subject: string | null;
  snippet: string | null;
  who: string;
  at: string;
  unread: boolean;
  starred: boolean;
  labels: string[];
  count: number | null;
}

/** A message's HTML as received (null: it has none), and whether its remote images are shown. */
export interface HtmlEntry {
  html: string | null;
  showImages: boolean;
}

export interface State {
  folder: Folder;
  inboxId: string;
  query: string;
  items: Item[];
  cursor: string | null;
  selected: number;
  thread: Thread | null;
  labels: Label[];
  html: Map<string, HtmlEntry>;
}

const initial = (): State => ({ folder: 'inbox', inboxId: '', query: '', items: [], cursor: null, selected: -1, thread: null, labels: [], html: new Map() });

export const state: State = initial();

export function resetState(): void {
  Object.assign(state, initial());
}

export const fromSummary = (t: ThreadSummary): Item => ({
  id: t.id,
  subject: t.subject,
  snippet: t.snippet,
  who: t.participants.join(', '),
  at: t.last_message_at,
  unread: t.has_unread,
  starred: t.is_starred,
  labels: t.labels,
  count: t.message_count,
});

export const fromResult = (r: SearchResult): Item => ({
  id: r.thread_id,
  subject: r.subject,
  snippet: r.snippet,
  who: r.from ?? '',
  at: r.occurred_at,
  unread: false,
  starred: false,
  labels: [],
  count: null,
});
