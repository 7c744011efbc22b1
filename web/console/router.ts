// The hash router: one view shown at a time (#/name/arg?query), focus moved to its heading, the
// signed-out and signed-in views kept apart, staff views for staff only; and signing in and out.
import { authApi } from './api';
import { $, say } from './dom';
import { type Session, state } from './state';
import { attempt } from './ui';

/** A view: `load(arg, params)` runs each time it is shown, `wire()` once at start. */
export interface View {
  load?(arg: string | undefined, params: URLSearchParams): unknown;
  wire?(): void;
  /** Shown to staff sessions only. */
  staff?: boolean;
}

export const views: Record<string, View> = {};

const SIGNED_OUT = new Set(['signin', 'signup', 'code', 'forgot', 'reset-password', 'verify-email']);
/** The mailed links' views: they work signed in as well as signed out. */
const LINKS = new Set(['reset-password', 'verify-email']);

function allowed(name: string, view: View | undefined): view is View {
  const s = state.session;
  if (!view) return false;
  if (s) return (!SIGNED_OUT.has(name) || LINKS.has(name)) && (!view.staff || s.user.role === 'staff');
  return SIGNED_OUT.has(name);
}

/** params: the query after a view's fragment ('#/sign-in?error=…', the OAuth callback's), handed to the view's load. */
function show(wanted: string, wantedArg?: string, params = new URLSearchParams()): void {
  const signedIn = Boolean(state.session);
  let [name, arg, view] = [wanted, wantedArg, views[wanted]];
  if (!allowed(name, view)) [name, arg, params, view] = [signedIn ? 'overview' : 'signin', undefined, new URLSearchParams(), views[signedIn ? 'overview' : 'signin']];
  state.view = name;
  // A mailed link's view stands alone, signed in or not: one main landmark, no shell around it.
  $('app').hidden = !signedIn || LINKS.has(name);
  $('signed-out').hidden = signedIn && !LINKS.has(name);
  for (const section of document.querySelectorAll<HTMLElement>('[data-view]')) section.hidden = section.dataset.view !== name;
  for (const link of document.querySelectorAll<HTMLElement>('nav a[data-nav]')) {
    if (link.dataset.nav === name) link.setAttribute('aria-current', 'page');
    else link.removeAttribute('aria-current');
  }
  $('nav-list').classList.remove('open');
  $('nav-toggle').setAttribute('aria-expanded', 'false');
  const heading = document.querySelector<HTMLElement>(`[data-view="${name}"] h2, [data-view="${name}"] h1`);
  if (heading) {
    document.title = `${heading.textContent} \u00b7 Postbox`;
    heading.focus();
  }
  const load = view?.load?.bind(view);
  if (load) void attempt(load)(arg, params);
}

export function route(): void {
  const [path = '', search] = location.hash.replace(/^#\/?/, '').split('?');
  const parts = path.split('/');
  const first = parts[0] ?? '';
  // The OAuth callback's links name the sign-in view '#/sign-in'.
  const name = first === 'sign-in' ? 'signin' : first;
  // A query leaves the address bar (and the history) once read: a reload does not say it again.
  if (search !== undefined) history.replaceState(null, '', `#/${path.replace(first, name)}`);
  show(name || (state.session ? 'overview' : 'signin'), parts.slice(1).map(decodeURIComponent).join('/') || undefined, new URLSearchParams(search ?? ''));
}

export function go(name: string): void {
  if (location.hash === `#/${name}`) route();
  else location.hash = `#/${name}`;
}

export function signedIn(session: Session): void {
  state.session = session;
  $('who').textContent = `${session.user.email} \u00b7 ${session.account_name}`;
  for (const node of document.querySelectorAll<HTMLElement>('[data-staff]')) node.hidden = session.user.role !== 'staff';
}

let signOutCount = 0;
/** How many times the page has signed out: a load that began before a sign-out can tell it happened. */
export const signOuts = (): number => signOutCount;

export function signedOut(message = '', isError = false): void {
  signOutCount += 1;
  state.session = null;
  $('who').textContent = '';
  $('suspended').hidden = true;
  say(message, isError);
  go('signin');
}

/** The session this browser is signed in with (GET /v1/auth/session); false when none. */
export async function refreshSession(): Promise<boolean> {
  try {
    signedIn(await authApi((c) => c.auth.session()));
    return true;
  } catch {
    state.session = null;
    return false;
  }
}
