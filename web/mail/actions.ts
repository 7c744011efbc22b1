// What the person can do: each action calls the API (api.ts), updates the state and draws it
// again (render.ts). A failure is said in the status line, never thrown (`attempt`).
import { api, attempt } from './api';
import { byId, count, el, say } from './dom';
import { renderHtml, renderInboxes, renderLabels, renderList, renderThread, type ListHandlers, type ThreadHandlers } from './render';
import { FOLDER_NAMES, fromResult, fromSummary, state, type Folder } from './state';

const onList: ListHandlers = {
  open(index, id) {
    state.selected = index;
    void openThread(id, true);
  },
};
const onThread: ThreadHandlers = {
  removeLabel: (name) => void changeLabels({ remove: [name] }),
  showHtml: (box, id, text) => void showHtml(box, id, text),
};
export const drawList = (): void => renderList(onList);
const drawThread = (): void => renderThread(onThread);

/** The open thread; the actions on a thread need one (the page shows their buttons only then). */
function openOne() {
  if (!state.thread) throw new Error('no thread is open');
  return state.thread;
}

export const loadList = attempt(async (more: boolean) => {
  const query = { folder: state.folder, limit: 25, ...(state.inboxId ? { inbox_id: state.inboxId } : {}), ...(more && state.cursor ? { cursor: state.cursor } : {}) };
  const page = await api((c) => c.mail.threads.list(query));
  state.items = (more ? state.items : []).concat(page.threads.map(fromSummary));
  state.cursor = page.next_cursor ?? null;
  if (!more) state.selected = state.items.length ? 0 : -1;
  drawList();
  say(more ? '' : `${count(state.items.length, 'thread')} in ${FOLDER_NAMES[state.folder]}.`);
});

/** GET /v1/mail/search: newest matching messages, shown as their threads (one line per thread). */
export const search = attempt(async (q: string) => {
  state.query = q;
  const found = await api((c) => c.mail.search({ q, ...(state.inboxId ? { inbox_id: state.inboxId } : {}) }));
  const seen = new Set<string>();
  state.items = found.results.map(fromResult).filter((r) => !seen.has(r.id) && seen.add(r.id));
  state.cursor = null;
  state.selected = state.items.length ? 0 : -1;
  drawList();
  say(`${count(state.items.length, 'thread')} match ${q}.`);
});

export function closeThread(): void {
  state.thread = null;
  byId('thread').hidden = true;
}

export function showFolder(folder: Folder): Promise<void> {
  state.folder = folder;
  state.query = '';
  byId<HTMLInputElement>('search').value = '';
  closeThread();
  return loadList(false);
}

export const openThread = attempt(async (id: string, focusTitle: boolean) => {
  state.thread = await api((c) => c.mail.threads.get(id));
  byId('compose').hidden = true;
  const item = state.items.find((t) => t.id === id);
  if (item) item.unread = false;
  drawList();
  drawThread();
  byId('thread').hidden = false;
  if (focusTitle) byId('thread-title').focus();
});

/** The list's line of the open thread, after a change to the thread. */
function syncItem(): void {
  const t = state.thread;
  const item = t && state.items.find((i) => i.id === t.id);
  if (t && item) Object.assign(item, { starred: t.is_starred, labels: t.labels.slice() });
  drawList();
}

/** The full inbound email (GET /v1/inbound/{id}); its HTML, when it has some, in a sandboxed frame. */
const showHtml = attempt(async (box: HTMLElement, id: string, text: HTMLElement) => {
  let entry = state.html.get(id);
  if (!entry) {
    const email = await api((c) => c.inbound.get(id));
    entry = { html: email.html ?? null, showImages: false };
    state.html.set(id, entry);
  }
  const { html } = entry;
  if (html === null || !box.isConnected) return;
  const holder = el('div', { class: 'html-body' });
  const plain = el('details', {}, el('summary', {}, 'Plain text'));
  text.replaceWith(plain);
  plain.append(text);
  plain.before(holder);
  renderHtml(holder, html, entry);
});

export const toggleStar = attempt(async () => {
  const t = openOne();
  const res = await api((c) => c.mail.threads.setStarred(t.id, { starred: !t.is_starred }));
  t.is_starred = res.starred;
  drawThread();
  syncItem();
  say(res.starred ? 'Starred.' : 'Star removed.');
});

export const moveTo = attempt(async (folder: 'inbox' | 'archive' | 'spam' | 'trash') => {
  const t = openOne();
  const res = await api((c) => c.mail.threads.move(t.id, { folder }));
  t.folder = res.folder;
  if (!state.query && state.folder !== 'starred' && res.folder !== state.folder) {
    const at = state.items.findIndex((i) => i.id === t.id);
    if (at >= 0) state.items.splice(at, 1);
    state.selected = Math.min(Math.max(at, 0), state.items.length - 1);
    closeThread();
  } else drawThread();
  drawList();
  say(`Moved to ${FOLDER_NAMES[res.folder]}.`);
});

export const changeLabels = attempt(async (change: { add?: string[]; remove?: string[] }) => {
  const t = openOne();
  await api((c) => c.mail.threads.setLabels(t.id, change));
  const drop = new Set((change.remove ?? []).map((n) => n.toLowerCase()));
  const added = (change.add ?? []).filter((n) => !t.labels.some((l) => l.toLowerCase() === n.toLowerCase()));
  t.labels = t.labels.filter((n) => !drop.has(n.toLowerCase())).concat(added);
  drawThread();
  syncItem();
  say(change.add ? `Label ${change.add[0]} added.` : `Label ${change.remove?.[0]} removed.`);
});

export const reply = attempt(async (bodyText: string) => {
  const t = openOne();
  const sent = await api((c) => c.mail.reply(t.id, { body_text: bodyText }));
  byId<HTMLTextAreaElement>('reply-body').value = '';
  say(`Reply sent (${sent.status}).`);
  await openThread(t.id, false);
});

export const forward = attempt(async (to: string, subject: string, bodyText: string) => {
  const t = openOne();
  const sent = await api((c) => c.mail.forward(t.id, { to, body_text: bodyText, ...(subject ? { subject } : {}) }));
  byId<HTMLFormElement>('forward-form').reset();
  say(`Forwarded to ${to} (${sent.status}).`);
});

export const compose = attempt(async (fields: { to: string; from: string; subject: string; body: string }) => {
  const sent = await api((c) => c.mail.compose({ to: fields.to, subject: fields.subject, body_text: fields.body, ...(fields.from ? { from: fields.from } : {}) }));
  byId<HTMLFormElement>('compose-form').reset();
  byId('compose').hidden = true;
  say(`Message sent to ${fields.to} (${sent.status}).`);
});

export const loadLabels = attempt(async () => {
  state.labels = (await api((c) => c.mail.labels.list())).labels;
  renderLabels(state.labels);
  if (state.thread) drawThread();
});

/** The account's inboxes, to narrow the list (and a search) to one address. */
export const loadInboxes = attempt(async () => {
  renderInboxes((await api((c) => c.mail.inboxes.list())).inboxes);
});

export const createLabel = attempt(async (name: string, color: string) => {
  await api((c) => c.mail.labels.create({ name, color }));
  byId<HTMLFormElement>('label-form').reset();
  say(`Label ${name} created.`);
  await loadLabels();
});
