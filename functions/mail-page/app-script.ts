// The Mail app's script (inline in GET /mail): plain browser JavaScript, an ES module, no framework.
// Everything from mail enters the document as text (textContent); a message's HTML goes only into
// a sandboxed frame, sanitized first (sanitize-script.ts). Signed in to the console, the page uses
// that session (its HttpOnly cookie, and X-CSRF-Token on every non-GET); otherwise the API key lives
// in sessionStorage and travels only as `Authorization: Bearer`. Written as a raw string: no
// backquote, no dollar-brace.
import { browserHelpers } from './browser-helpers';
import { sanitizeScript } from './sanitize-script';

const app = String.raw`
const KEY = 'postbox.mail.key';
const FOLDER_NAMES = { inbox: 'Inbox', starred: 'Starred', sent: 'Sent', archive: 'Archive', spam: 'Spam', trash: 'Trash' };
const $ = (id) => document.getElementById(id);
/** The console's session (GET /v1/auth/session) when the browser has one; null when the page runs on a key. */
let session = null;
const state = { folder: 'inbox', inboxId: '', query: '', items: [], cursor: null, selected: -1, thread: null, labels: [], html: new Map() };

/** One call of the API with the signed-in key; waits out 429/503 as their Retry-After asks, three times at most. */
async function api(method, path, body) {
  const key = session ? null : sessionStorage.getItem(KEY);
  if (!session && !key) throw new ApiFailure('Not signed in.', 401, 'unauthorized');
  const headers = { accept: 'application/json' };
  if (key) headers.authorization = 'Bearer ' + key;
  else if (method !== 'GET') headers['x-csrf-token'] = session.csrf_token;
  if (body !== undefined) headers['content-type'] = 'application/json';
  for (let attempt = 1; ; attempt += 1) {
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: key ? 'omit' : 'same-origin', referrerPolicy: 'no-referrer' });
    const data = await bodyOf(res);
    if ((res.status === 429 || res.status === 503) && attempt < 3) {
      await pause(Math.min(5, Number(res.headers.get('retry-after')) || 1) * 1000);
      continue;
    }
    if (res.status === 401) {
      signOut(session ? 'Your session ended. Sign in again.' : 'The key was refused. Sign in again.', true);
      throw new ApiFailure('The key was refused.', 401, 'unauthorized');
    }
    if (!res.ok) {
      const error = (data && data.error) || {};
      throw new ApiFailure(error.message || 'HTTP ' + res.status, res.status, error.code);
    }
    return data;
  }
}

/** Runs an action, saying its failure in the status line instead of throwing. */
const attempt = (action) => async (...args) => {
  try {
    await action(...args);
  } catch (error) {
    if (!(error instanceof ApiFailure && error.status === 401)) say(error instanceof ApiFailure ? error.message + (error.code ? ' (' + error.code + ')' : '') : 'Something went wrong: ' + error, true);
  }
};

// ---- the list ---------------------------------------------------------------------------------

const fromSummary = (t) => ({ id: t.id, subject: t.subject, snippet: t.snippet, who: (t.participants || []).join(', '), at: t.last_message_at, unread: t.has_unread, starred: t.is_starred, labels: t.labels || [], count: t.message_count });
const fromResult = (r) => ({ id: r.thread_id, subject: r.subject, snippet: r.snippet, who: r.from || '', at: r.occurred_at, unread: false, starred: false, labels: [], count: null });

function renderList() {
  const list = $('threads');
  list.replaceChildren();
  $('list-title').textContent = state.query ? 'Search: ' + state.query : FOLDER_NAMES[state.folder];
  for (const button of document.querySelectorAll('#folders button')) button.setAttribute('aria-current', String(!state.query && button.dataset.folder === state.folder));
  state.items.forEach((t, i) => {
    const open = el('button', { type: 'button', 'aria-current': state.thread && state.thread.id === t.id ? 'true' : undefined },
      t.unread ? el('span', { class: 'visually-hidden' }, 'Unread. ') : null,
      el('span', { class: 'meta' }, (t.starred ? '\u2605 ' : '') + t.who + ' \u00b7 ' + when(t.at) + (t.count > 1 ? ' \u00b7 ' + t.count : '')),
      el('br'),
      el('span', { class: 'subject' }, t.subject || '(no subject)'),
      ' ',
      ...t.labels.map((name) => el('span', { class: 'chip' }, name)),
      el('span', { class: 'snippet' }, t.snippet || ''));
    open.addEventListener('click', () => {
      state.selected = i;
      void openThread(t.id, true);
    });
    list.append(el('li', { class: [t.unread ? 'unread' : '', i === state.selected ? 'selected' : ''].join(' ').trim(), 'data-thread': t.id }, open));
  });
  if (!state.items.length) list.append(el('li', { class: 'empty' }, state.query ? 'No mail matches.' : 'No threads here.'));
  $('more').hidden = !state.cursor;
}

const loadList = attempt(async (more) => {
  const params = new URLSearchParams({ folder: state.folder, limit: '25' });
  if (state.inboxId) params.set('inbox_id', state.inboxId);
  if (more && state.cursor) params.set('cursor', state.cursor);
  const page = await api('GET', '/v1/mail/threads?' + params);
  state.items = (more ? state.items : []).concat(page.threads.map(fromSummary));
  state.cursor = page.next_cursor || null;
  if (!more) state.selected = state.items.length ? 0 : -1;
  renderList();
  say(more ? '' : state.items.length + ' thread' + (state.items.length === 1 ? '' : 's') + ' in ' + FOLDER_NAMES[state.folder] + '.');
});

/** GET /v1/mail/search: newest matching messages, shown as their threads (one line per thread). */
const search = attempt(async (q) => {
  state.query = q;
  const params = new URLSearchParams({ q });
  if (state.inboxId) params.set('inbox_id', state.inboxId);
  const found = await api('GET', '/v1/mail/search?' + params);
  const seen = new Set();
  state.items = found.results.map(fromResult).filter((r) => !seen.has(r.id) && seen.add(r.id));
  state.cursor = null;
  state.selected = state.items.length ? 0 : -1;
  renderList();
  say(state.items.length + ' thread' + (state.items.length === 1 ? '' : 's') + ' match ' + q + '.');
});

function showFolder(folder) {
  state.folder = folder;
  state.query = '';
  $('search').value = '';
  closeThread();
  return loadList(false);
}

// ---- a thread -------------------------------------------------------------------------------------

function closeThread() {
  state.thread = null;
  $('thread').hidden = true;
}

const openThread = attempt(async (id, focusTitle) => {
  const thread = await api('GET', '/v1/mail/threads/' + encodeURIComponent(id));
  state.thread = thread;
  $('compose').hidden = true;
  const item = state.items.find((t) => t.id === id);
  if (item) item.unread = false;
  renderList();
  renderThread();
  $('thread').hidden = false;
  if (focusTitle) $('thread-title').focus();
});

function syncItem() {
  const t = state.thread;
  const item = t && state.items.find((i) => i.id === t.id);
  if (item) Object.assign(item, { starred: t.is_starred, labels: t.labels.slice() });
  renderList();
}

function renderThread() {
  const t = state.thread;
  $('thread-title').textContent = t.subject || '(no subject)';
  const star = $('star');
  star.setAttribute('aria-pressed', String(t.is_starred));
  star.textContent = t.is_starred ? 'Starred' : 'Star';
  $('move-to').value = t.folder;
  const own = new Set(t.labels.map((l) => l.toLowerCase()));
  $('thread-labels').replaceChildren(...t.labels.map((name) => {
    const remove = el('button', { type: 'button', 'aria-label': 'Remove label ' + name }, name + ' \u00d7');
    remove.addEventListener('click', () => void changeLabels({ remove: [name] }));
    return el('li', {}, remove);
  }));
  $('add-label').replaceChildren(...state.labels.filter((l) => !own.has(l.name.toLowerCase())).map((l) => el('option', { value: l.name }, l.name)));
  $('label-add').disabled = !$('add-label').options.length;
  $('messages').replaceChildren(...t.messages.map(renderMessage));
}

function renderMessage(m) {
  const box = el('section', { class: 'message', 'data-source': m.source, 'data-id': m.id, 'aria-label': 'Message from ' + (m.from || 'unknown') });
  const facts = m.source === 'inbound'
    ? 'SPF ' + m.spf_verdict + ', DKIM ' + m.dkim_verdict + ', DMARC ' + m.dmarc_verdict
    : 'Sent' + (m.status ? ', ' + m.status : '');
  box.append(
    el('p', { class: 'meta' }, el('strong', {}, m.from || '(unknown sender)'), ' to ' + (m.to || []).join(', ') + ' \u00b7 ' + when(m.occurred_at)),
    el('p', { class: 'meta' }, facts),
  );
  const text = el('pre', { class: 'text' });
  text.textContent = m.text_body == null ? '(no text part)' : m.text_body;
  box.append(text);
  if (m.source === 'inbound') void showHtml(box, m.id, text);
  return box;
}

/** The full inbound email (GET /v1/inbound/{id}); its HTML, when it has some, in a sandboxed frame. */
const showHtml = attempt(async (box, id, text) => {
  if (!state.html.has(id)) state.html.set(id, { html: (await api('GET', '/v1/inbound/' + encodeURIComponent(id))).html || null, showImages: false });
  const entry = state.html.get(id);
  if (!entry.html || !box.isConnected) return;
  const holder = el('div', { class: 'html-body' });
  const plain = el('details', {}, el('summary', {}, 'Plain text'));
  text.replaceWith(plain);
  plain.append(text);
  plain.before(holder);
  renderHtml(holder, entry);
});

function renderHtml(holder, entry) {
  const { srcdoc, blocked } = sanitizeMail(entry.html, entry.showImages);
  const frame = el('iframe', { class: 'html', sandbox: 'allow-popups allow-popups-to-escape-sandbox', referrerpolicy: 'no-referrer', title: 'The message as HTML' });
  frame.srcdoc = srcdoc;
  holder.replaceChildren();
  if (blocked) {
    const show = el('button', { type: 'button', class: 'show-images' }, 'Show ' + blocked + ' remote image' + (blocked === 1 ? '' : 's'));
    show.addEventListener('click', () => {
      entry.showImages = true;
      renderHtml(holder, entry);
      holder.querySelector('iframe').focus();
    });
    holder.append(el('p', { class: 'hint' }, 'Remote images are blocked: loading them tells the sender you read this. '), show);
  }
  holder.append(frame);
}

const toggleStar = attempt(async () => {
  const t = state.thread;
  const res = await api('PUT', '/v1/mail/threads/' + encodeURIComponent(t.id) + '/star', { starred: !t.is_starred });
  t.is_starred = res.starred;
  renderThread();
  syncItem();
  say(res.starred ? 'Starred.' : 'Star removed.');
});

const moveTo = attempt(async (folder) => {
  const t = state.thread;
  const res = await api('PUT', '/v1/mail/threads/' + encodeURIComponent(t.id) + '/folder', { folder });
  t.folder = res.folder;
  if (!state.query && state.folder !== 'starred' && res.folder !== state.folder) {
    const at = state.items.findIndex((i) => i.id === t.id);
    if (at >= 0) state.items.splice(at, 1);
    state.selected = Math.min(Math.max(at, 0), state.items.length - 1);
    closeThread();
  } else renderThread();
  renderList();
  say('Moved to ' + FOLDER_NAMES[res.folder] + '.');
});

const changeLabels = attempt(async (change) => {
  const t = state.thread;
  await api('PUT', '/v1/mail/threads/' + encodeURIComponent(t.id) + '/labels', change);
  const drop = new Set((change.remove || []).map((n) => n.toLowerCase()));
  t.labels = t.labels.filter((n) => !drop.has(n.toLowerCase())).concat((change.add || []).filter((n) => !t.labels.some((l) => l.toLowerCase() === n.toLowerCase())));
  renderThread();
  syncItem();
  say(change.add ? 'Label ' + change.add[0] + ' added.' : 'Label ' + change.remove[0] + ' removed.');
});

const reply = attempt(async (bodyText) => {
  const t = state.thread;
  const sent = await api('POST', '/v1/mail/threads/' + encodeURIComponent(t.id) + '/reply', { body_text: bodyText });
  $('reply-body').value = '';
  say('Reply sent (' + sent.status + ').');
  await openThread(t.id, false);
});

const forward = attempt(async (to, subject, bodyText) => {
  const t = state.thread;
  const sent = await api('POST', '/v1/mail/threads/' + encodeURIComponent(t.id) + '/forward', { to, body_text: bodyText, ...(subject ? { subject } : {}) });
  $('forward-form').reset();
  say('Forwarded to ' + to + ' (' + sent.status + ').');
});

const compose = attempt(async (fields) => {
  const sent = await api('POST', '/v1/mail/compose', { to: fields.to, subject: fields.subject, body_text: fields.body, ...(fields.from ? { from: fields.from } : {}) });
  $('compose-form').reset();
  $('compose').hidden = true;
  say('Message sent to ' + fields.to + ' (' + sent.status + ').');
});

// ---- labels ---------------------------------------------------------------------------------------

const loadLabels = attempt(async () => {
  state.labels = (await api('GET', '/v1/mail/labels')).labels;
  $('labels').replaceChildren(...state.labels.map((l) => el('li', {}, el('span', { class: 'swatch', 'data-color': l.color }), l.name)));
  for (const swatch of document.querySelectorAll('#labels .swatch')) swatch.style.background = swatch.dataset.color;
  if (state.thread) renderThread();
});

/** The account's inboxes, to narrow the list (and a search) to one address. */
const loadInboxes = attempt(async () => {
  const { inboxes } = await api('GET', '/v1/mail/inboxes');
  $('inbox-filter').replaceChildren(el('option', { value: '' }, 'All addresses'), ...inboxes.map((i) => el('option', { value: i.id }, i.address)));
  $('inbox-filter').value = state.inboxId;
});

const createLabel = attempt(async (name, color) => {
  await api('POST', '/v1/mail/labels', { name, color });
  $('label-form').reset();
  say('Label ' + name + ' created.');
  await loadLabels();
});

// ---- keys, sign-in ---------------------------------------------------------------------------------

function step(by) {
  if (!state.items.length) return;
  state.selected = Math.max(0, Math.min(state.items.length - 1, state.selected + by));
  renderList();
  const chosen = document.querySelector('#threads li.selected button');
  if (chosen) chosen.focus();
  if (state.thread) void openThread(state.items[state.selected].id, false);
}

function onKey(event) {
  if ($('app').hidden || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  const selected = state.items[state.selected];
  if (event.key === 'j') step(1);
  else if (event.key === 'k') step(-1);
  else if (event.key === 'o' && selected) void openThread(selected.id, true);
  else if (event.key === 'r' && state.thread) $('reply-body').focus();
  else if (event.key === 'e' && state.thread) void moveTo('archive');
  else if (event.key === '/') $('search').focus();
  else return;
  event.preventDefault();
}

function signOut(message, isError) {
  sessionStorage.removeItem(KEY);
  // Signing out here ends the console's session too; the cookie is the server's to clear.
  if (session && !isError) void fetch('/v1/auth/logout', { method: 'POST', headers: { 'x-csrf-token': session.csrf_token }, credentials: 'same-origin', cache: 'no-store' }).catch(() => undefined);
  session = null;
  Object.assign(state, { folder: 'inbox', inboxId: '', query: '', items: [], cursor: null, selected: -1, thread: null, labels: [], html: new Map() });
  $('threads').replaceChildren();
  $('labels').replaceChildren();
  closeThread();
  $('app').hidden = true;
  $('signin').hidden = false;
  say(message || 'Signed out.', isError);
  $('key').focus();
}

async function start() {
  $('signin').hidden = true;
  $('app').hidden = false;
  say('Loading\u2026');
  await Promise.all([loadLabels(), loadInboxes(), loadList(false)]);
  const first = document.querySelector('#threads button');
  if (first && (session || sessionStorage.getItem(KEY))) first.focus();
}

function wire() {
  const form = (id, handle) => $(id).addEventListener('submit', (event) => {
    event.preventDefault();
    handle(new FormData(event.target));
  });
  // The key field has no name: even a submit the script did not catch would carry no key.
  form('signin-form', () => {
    const key = $('key').value.trim();
    $('key').value = '';
    if (!key) return;
    sessionStorage.setItem(KEY, key);
    void start();
  });
  form('search-form', (data) => {
    const q = String(data.get('q') || '').trim();
    closeThread();
    if (q) void search(q);
    else void showFolder(state.folder);
  });
  form('label-form', (data) => void createLabel(String(data.get('name')).trim(), String(data.get('color'))));
  form('reply-form', (data) => void reply(String(data.get('body'))));
  form('forward-form', (data) => void forward(String(data.get('to')).trim(), String(data.get('subject') || '').trim(), String(data.get('body'))));
  form('compose-form', (data) => void compose({ to: String(data.get('to')).trim(), from: String(data.get('from') || '').trim(), subject: String(data.get('subject')), body: String(data.get('body')) }));
  for (const button of document.querySelectorAll('#folders button')) button.addEventListener('click', () => void showFolder(button.dataset.folder));
  $('signout').addEventListener('click', () => signOut());
  $('inbox-filter').addEventListener('change', () => {
    state.inboxId = $('inbox-filter').value;
    void (state.query ? search(state.query) : showFolder(state.folder));
  });
  $('more').addEventListener('click', () => void loadList(true));
  $('star').addEventListener('click', () => void toggleStar());
  $('move').addEventListener('click', () => void moveTo($('move-to').value));
  $('label-add').addEventListener('click', () => $('add-label').value && void changeLabels({ add: [$('add-label').value] }));
  $('compose-open').addEventListener('click', () => {
    closeThread();
    $('compose').hidden = false;
    $('compose-to').focus();
  });
  $('compose-cancel').addEventListener('click', () => {
    $('compose').hidden = true;
  });
  document.addEventListener('keydown', onKey);
}

/** The console's session, when the browser is signed in to it: GET /v1/auth/session answers 200. */
async function findSession() {
  try {
    const res = await fetch('/v1/auth/session', { headers: { accept: 'application/json' }, credentials: 'same-origin', cache: 'no-store' });
    const found = res.ok ? await res.json() : null;
    return found && typeof found.csrf_token === 'string' ? found : null;
  } catch (_) {
    return null;
  }
}

wire();
if (sessionStorage.getItem(KEY)) void start();
else
  void findSession().then((found) => {
    if (sessionStorage.getItem(KEY)) return; // a key was given meanwhile
    session = found;
    if (session) void start();
    else $('key').focus();
  });
`;

export const appScript = sanitizeScript + browserHelpers + app;
