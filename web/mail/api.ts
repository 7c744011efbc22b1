// The API, through the project's client (client/): one retry policy (429 and 503 waited out as
// Retry-After asks, a few times at most), its error type, its types. Signed in to the console, the
// page uses that session (its HttpOnly cookie, X-CSRF-Token on every non-GET); otherwise the API
// key lives in sessionStorage and travels only as `Authorization: Bearer`.
import { Postbox, PostboxError } from '../../client/src/index';
import { say } from './dom';

const KEY = 'postbox.mail.key';
/** Past this the page says the refusal instead of waiting (the client's own default is a minute). */
const MAX_RETRY_AFTER_SECONDS = 5;

export const storedKey = (): string | null => sessionStorage.getItem(KEY);
export const storeKey = (key: string): void => sessionStorage.setItem(KEY, key);
export const forgetKey = (): void => sessionStorage.removeItem(KEY);

/** The console's session (GET /v1/auth/session) when the page runs on it; null when it runs on a key. */
let session: { csrf_token: string } | null = null;
let refused: (message: string) => void = () => undefined;

/** The page's fetch: never cached, never a referrer, the console's cookie only when the page runs on it. */
const pageFetch = (withCookie: boolean): typeof fetch => (input, init) =>
  fetch(input, { ...init, cache: 'no-store', credentials: withCookie ? 'same-origin' : 'omit', referrerPolicy: 'no-referrer' });

const clientFor = (key: string | null, csrfToken?: string): Postbox =>
  new Postbox({ apiKey: key, csrfToken, baseUrl: location.origin, fetch: pageFetch(key === null), maxRetryAfterSeconds: MAX_RETRY_AFTER_SECONDS });

/** What to do when the API refuses the key or the session (401): sign out, saying why. */
export function onRefused(handler: (message: string) => void): void {
  refused = handler;
}

export const onSession = (): boolean => session !== null;
export function useSession(found: { csrf_token: string } | null): void {
  session = found;
}

/** Signing out of the page ends the console's session too (the cookie is the server's to clear); a refused one is over already. */
export function endSession(logOut: boolean): void {
  if (session && logOut) void clientFor(null, session.csrf_token).auth.logOut().catch(() => undefined);
  session = null;
}

/** One use of the API with the signed-in key or session; a 401 signs the page out. */
export async function api<T>(call: (client: Postbox) => Promise<T>): Promise<T> {
  const key = session ? null : storedKey();
  if (!session && !key) throw new PostboxError({ code: 'unauthorized', message: 'Not signed in.', status: 401 });
  try {
    return await call(session ? clientFor(null, session.csrf_token) : clientFor(key));
  } catch (error) {
    if (error instanceof PostboxError && error.status === 401) refused(session ? 'Your session ended. Sign in again.' : 'The key was refused. Sign in again.');
    throw error;
  }
}

/** The console's session, when the browser is signed in to it: GET /v1/auth/session answers 200. */
export async function findSession(): Promise<{ csrf_token: string } | null> {
  try {
    const found = await clientFor(null).auth.session();
    return typeof found?.csrf_token === 'string' ? found : null;
  } catch {
    return null;
  }
}

/** Runs an action, saying its failure in the status line instead of throwing (a 401 has signed out already). */
export const attempt =
  <A extends unknown[]>(action: (...args: A) => Promise<void>) =>
  async (...args: A): Promise<void> => {
    try {
      await action(...args);
    } catch (error) {
      if (error instanceof PostboxError && error.status === 401) return;
      say(error instanceof PostboxError ? error.message + (error.code ? ` (${error.code})` : '') : `Something went wrong: ${String(error)}`, true);
    }
  };
