// The Mail app (GET /mail; functions/mail-page/page.ts inlines this bundle, built by
// `npm run web:build`): signing in and out, the keyboard, and wiring the page's forms and buttons
// to the actions. No framework: the markup is the page's, the script only fills it in.
import { endSession, findSession, forgetKey, onRefused, onSession, storedKey, storeKey, useSession } from './api';
import {
  changeLabels,
  closeThread,
  compose,
  createLabel,
  drawList,
  forward,
  loadInboxes,
  loadLabels,
  loadList,
  moveTo,
  openThread,
  reply,
  search,
  showFolder,
  toggleStar,
} from './actions';
import { byId, say } from './dom';
import { isFolder, resetState, state } from './state';

const MOVE_TARGETS = new Set(['inbox', 'archive', 'spam', 'trash'] as const);
const isMoveTarget = (value: string): value is 'inbox' | 'archive' | 'spam' | 'trash' => (MOVE_TARGETS as Set<string>).has(value);

function step(by: number): void {
  if (!state.items.length) return;
  state.selected = Math.max(0, Math.min(state.items.length - 1, state.selected + by));
  drawList();
  document.querySelector<HTMLButtonElement>('#threads li.selected button')?.focus();
  const chosen = state.items[state.selected];
  if (state.thread && chosen) void openThread(chosen.id, false);
}

function onKey(event: KeyboardEvent): void {
  if (byId('app').hidden || event.altKey || event.ctrlKey || event.metaKey) return;
  const target = event.target instanceof HTMLElement ? event.target : null;
  if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) {
    if (event.key === 'Escape') target.blur();
    return;
  }
  const selected = state.items[state.selected];
  if (event.key === 'j') step(1);
  else if (event.key === 'k') step(-1);
  else if (event.key === 'o' && selected) void openThread(selected.id, true);
  else if (event.key === 'r' && state.thread) byId('reply-body').focus();
  else if (event.key === 'e' && state.thread) void moveTo('archive');
  else if (event.key === '/') byId('search').focus();
  else return;
  event.preventDefault();
}

function signOut(message = 'Signed out.', isError = false): void {
  forgetKey();
  endSession(!isError);
  resetState();
  byId('threads').replaceChildren();
  byId('labels').replaceChildren();
  closeThread();
  byId('app').hidden = true;
  byId('signin').hidden = false;
  say(message, isError);
  byId('key').focus();
}

async function start(): Promise<void> {
  byId('signin').hidden = true;
  byId('app').hidden = false;
  say('Loading\u2026');
  await Promise.all([loadLabels(), loadInboxes(), loadList(false)]);
  const first = document.querySelector<HTMLButtonElement>('#threads button');
  if (first && (onSession() || storedKey())) first.focus();
}

/** A form's submit, handled here with its fields; the page never submits anything itself. */
function onSubmit(id: string, handle: (data: FormData) => void): void {
  byId<HTMLFormElement>(id).addEventListener('submit', (event) => {
    event.preventDefault();
    handle(new FormData(event.target as HTMLFormElement));
  });
}

const field = (data: FormData, name: string): string => {
  const value = data.get(name);
  return typeof value === 'string' ? value : '';
};

function wireForms(): void {
  // The key field has no name: even a submit the script did not catch would carry no key.
  onSubmit('signin-form', () => {
    const input = byId<HTMLInputElement>('key');
    const key = input.value.trim();
    input.value = '';
    if (!key) return;
    storeKey(key);
    void start();
  });
  onSubmit('search-form', (data) => {
    const q = field(data, 'q').trim();
    closeThread();
    void (q ? search(q) : showFolder(state.folder));
  });
  onSubmit('label-form', (data) => void createLabel(field(data, 'name').trim(), field(data, 'color')));
  onSubmit('reply-form', (data) => void reply(field(data, 'body')));
  onSubmit('forward-form', (data) => void forward(field(data, 'to').trim(), field(data, 'subject').trim(), field(data, 'body')));
  onSubmit('compose-form', (data) =>
    void compose({ to: field(data, 'to').trim(), from: field(data, 'from').trim(), subject: field(data, 'subject'), body: field(data, 'body') }),
  );
}

function wireButtons(): void {
  for (const button of document.querySelectorAll<HTMLButtonElement>('#folders button')) {
    button.addEventListener('click', () => {
      if (isFolder(button.dataset.folder)) void showFolder(button.dataset.folder);
    });
  }
  byId('signout').addEventListener('click', () => signOut());
  const inboxFilter = byId<HTMLSelectElement>('inbox-filter');
  inboxFilter.addEventListener('change', () => {
    state.inboxId = inboxFilter.value;
    void (state.query ? search(state.query) : showFolder(state.folder));
  });
  byId('more').addEventListener('click', () => void loadList(true));
  byId('star').addEventListener('click', () => void toggleStar());
  byId('move').addEventListener('click', () => {
    const folder = byId<HTMLSelectElement>('move-to').value;
    if (isMoveTarget(folder)) void moveTo(folder);
  });
  byId('label-add').addEventListener('click', () => {
    const name = byId<HTMLSelectElement>('add-label').value;
    if (name) void changeLabels({ add: [name] });
  });
  byId('compose-open').addEventListener('click', () => {
    closeThread();
    byId('compose').hidden = false;
    byId('compose-to').focus();
  });
  byId('compose-cancel').addEventListener('click', () => {
    byId('compose').hidden = true;
  });
  document.addEventListener('keydown', onKey);
}

onRefused((message) => signOut(message, true));
wireForms();
wireButtons();
if (storedKey()) void start();
else
  void findSession().then((found) => {
    if (storedKey()) return; // a key was given meanwhile
    useSession(found);
    if (found) void start();
    else byId('key').focus();
  });
