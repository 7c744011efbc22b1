// The console's core script: DOM building (text only, never markup from the API), the status line,
// the one API call (same-origin cookie, `X-CSRF-Token` on every non-GET), the hash router that
// shows one view at a time and moves focus to its heading. The sections' scripts (sections/*.ts)
// register their views in `views` and use these helpers. Plain browser JavaScript in a raw string:
// no backquote and no dollar-brace in it.
import { browserHelpers } from '../mail-page/browser-helpers';

export const coreScript = browserHelpers + String.raw`
const $ = (id) => document.getElementById(id);
const state = { session: null, view: '' };
const views = {};

/** One call of the API on this origin with the session cookie; waits out 429/503 as Retry-After asks, three times at most. */
async function api(method, path, body, raw) {
  const headers = { accept: 'application/json' };
  if (body !== undefined) headers['content-type'] = 'application/json';
  if (method !== 'GET' && state.session) headers['x-csrf-token'] = state.session.csrf_token;
  for (let attempt = 1; ; attempt += 1) {
    const res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });
    if (raw && res.ok) return res;
    const data = await bodyOf(res);
    if ((res.status === 429 || res.status === 503) && attempt < 3 && !(data && data.error && /not_configured$/.test(data.error.code || ''))) {
      await pause(Math.min(5, Number(res.headers.get('retry-after')) || 1) * 1000);
      continue;
    }
    if (!res.ok) {
      const error = (data && data.error) || {};
      if (error.code === 'account_suspended') $('suspended').hidden = false;
      if (res.status === 401 && state.session && !path.startsWith('/v1/auth/')) {
        signedOut('', true);
        throw new ApiFailure('Your session ended. Sign in again.', 401, error.code);
      }
      throw new ApiFailure(error.message || 'HTTP ' + res.status, res.status, error.code);
    }
    return data;
  }
}

const describeFailure = (error) => (error instanceof ApiFailure ? error.message + (error.code ? ' (' + error.code + ')' : '') : 'Something went wrong: ' + error);

/** Runs an action, saying its failure in the status line instead of throwing. */
const attempt = (action) => async (...args) => {
  try {
    return await action(...args);
  } catch (error) {
    say(describeFailure(error), true);
    return undefined;
  }
};

/** A form's submit, handled by the script with its fields as an object of trimmed strings. */
function onSubmit(form, handle) {
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const fields = {};
    for (const [k, v] of new FormData(form)) fields[k] = typeof v === 'string' ? v.trim() : v;
    void attempt(handle)(fields, form);
  });
}

function button(label, onClick, attrs) {
  const b = el('button', Object.assign({ type: 'button' }, attrs || {}), label);
  b.addEventListener('click', () => void attempt(onClick)());
  return b;
}

function copyButton(text, what) {
  const b = el('button', { type: 'button', class: 'copy', 'aria-label': 'Copy ' + what }, 'Copy');
  b.addEventListener('click', async () => {
    try {
      await navigator.clipboard.writeText(text);
      say('Copied ' + what + '.');
    } catch (_) {
      say('Copy is not allowed here: select the text and copy it.', true);
    }
  });
  return b;
}

/** A table in a horizontally scrolling region (phone width), its header cells scoped. */
function table(caption, headers, rows, emptyText) {
  if (!rows.length) return el('p', { class: 'empty' }, emptyText || 'Nothing yet.');
  const head = el('tr', {}, ...headers.map((h) => el('th', { scope: 'col' }, h)));
  const body = rows.map((cells) => el('tr', {}, ...cells.map((c) => el('td', {}, c == null ? '' : c))));
  return el('div', { class: 'scroll', role: 'region', 'aria-label': caption, tabindex: '0' }, el('table', {}, el('caption', {}, caption), el('thead', {}, head), el('tbody', {}, ...body)));
}

/** A secret shown once: its value, a copy button, and the warning that it is never shown again. */
function showSecret(holder, label, secret) {
  holder.replaceChildren(el('div', { class: 'secret', role: 'alert' },
    el('p', {}, el('strong', {}, label), ' \u2014 shown once: copy it now, it is never shown again.'),
    el('code', {}, secret), ' ', copyButton(secret, label)));
}

/** A domain's state in words: the built-in sandbox domain (its \`sandbox\` flag), or one of the account's, verified once DKIM, SPF and DMARC all are. */
const isVerified = (d) => !d.sandbox && d.dkim_status === 'verified' && d.spf_status === 'verified' && d.dmarc_status === 'verified';
const domainState = (d) => (d.sandbox ? 'the built-in sandbox sender' : isVerified(d) ? 'verified' : 'not verified yet');

const query = (params) => {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') q.set(k, String(v));
  const s = q.toString();
  return s ? '?' + s : '';
};

/** "Load more" under a list: cursor pagination of any list route. */
function pager(holder, load) {
  let cursor = null;
  const more = el('button', { type: 'button', class: 'more', hidden: true }, 'Load more');
  const run = attempt(async (next) => {
    const page = await load(next ? cursor : null, !next);
    cursor = page.next_cursor || null;
    more.hidden = !cursor;
  });
  more.addEventListener('click', () => void run(true));
  holder.after(more);
  return () => run(false);
}

// ---- the router ---------------------------------------------------------------------------------

const SIGNED_OUT = new Set(['signin', 'signup', 'code', 'forgot', 'reset-password', 'verify-email']);
/** The mailed links' views: they work signed in as well as signed out. */
const LINKS = new Set(['reset-password', 'verify-email']);

/** params: the query after a view's fragment ('#/sign-in?error=…', the OAuth callback's), handed to the view's load. */
function show(name, arg, params) {
  const signedIn = Boolean(state.session);
  if (!views[name] || (signedIn && SIGNED_OUT.has(name) && !LINKS.has(name)) || (!signedIn && !SIGNED_OUT.has(name)) || (views[name].staff && (!signedIn || state.session.user.role !== 'staff'))) {
    name = signedIn ? 'overview' : 'signin';
    arg = undefined;
    params = undefined;
  }
  state.view = name;
  // A mailed link's view stands alone, signed in or not: one main landmark, no shell around it.
  $('app').hidden = !signedIn || LINKS.has(name);
  $('signed-out').hidden = signedIn && !LINKS.has(name);
  for (const section of document.querySelectorAll('[data-view]')) section.hidden = section.dataset.view !== name;
  for (const link of document.querySelectorAll('nav a[data-nav]')) {
    if (link.dataset.nav === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  $('nav-list').classList.remove('open');
  $('nav-toggle').setAttribute('aria-expanded', 'false');
  const heading = document.querySelector('[data-view="' + name + '"] h2, [data-view="' + name + '"] h1');
  if (heading) {
    document.title = heading.textContent + ' \u00b7 Postbox';
    heading.focus();
  }
  if (views[name].load) void attempt(views[name].load)(arg, params || new URLSearchParams());
}

function route() {
  const [path, search] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  // The OAuth callback's links name the sign-in view '#/sign-in'.
  const name = parts[0] === 'sign-in' ? 'signin' : parts[0];
  // A query leaves the address bar (and the history) once read: a reload does not say it again.
  if (search !== undefined) history.replaceState(null, '', '#/' + path.replace(parts[0], name));
  show(name || (state.session ? 'overview' : 'signin'), parts.slice(1).map(decodeURIComponent).join('/') || undefined, new URLSearchParams(search || ''));
}

function go(name) {
  if (location.hash === '#/' + name) route();
  else location.hash = '#/' + name;
}

function signedIn(session) {
  state.session = session;
  $('who').textContent = session.user.email + ' \u00b7 ' + session.account_name;
  for (const node of document.querySelectorAll('[data-staff]')) node.hidden = session.user.role !== 'staff';
}

function signedOut(message, isError) {
  state.session = null;
  $('who').textContent = '';
  $('suspended').hidden = true;
  say(message || '', isError);
  go('signin');
}

async function refreshSession() {
  try {
    signedIn(await api('GET', '/v1/auth/session'));
    return true;
  } catch (error) {
    state.session = null;
    return false;
  }
}
`;

/** The script that runs last: wires the shell and shows the first view. */
export const startScript = String.raw`
$('nav-toggle').addEventListener('click', () => {
  const open = $('nav-list').classList.toggle('open');
  $('nav-toggle').setAttribute('aria-expanded', String(open));
});
$('signout').addEventListener('click', () => void attempt(async () => {
  await api('POST', '/v1/auth/logout');
  signedOut('Signed out.');
})());
for (const view of Object.values(views)) if (view.wire) view.wire();
window.addEventListener('hashchange', route);
void refreshSession().then(route);
`;
