// The API, through the project's client (client/): its one retry policy (429 and 503 waited out as
// Retry-After asks, a few times at most), its error type, its types. The console runs on the
// dashboard session: the browser sends its HttpOnly cookie (same origin), and the client sends
// X-CSRF-Token on every call but GET; no key, no Authorization header.
import { Postbox, PostboxError } from '../../client/src/index';
import { $ } from './dom';
import { state } from './state';

/** Past this the page says the refusal instead of waiting (the client's own default is a minute). */
const MAX_RETRY_AFTER_SECONDS = 5;

/** The page's fetch: never cached, never a referrer, the session's cookie on this origin only. */
const pageFetch: typeof fetch = (input, init) => fetch(input, { ...init, cache: 'no-store', credentials: 'same-origin', referrerPolicy: 'no-referrer' });

let sessionEnded: () => void = () => undefined;

/** What to do when the API no longer takes the session (a 401 outside /v1/auth/): sign out. */
export function onSessionEnded(handler: () => void): void {
  sessionEnded = handler;
}

const client = (): Postbox =>
  new Postbox({ apiKey: null, csrfToken: state.session?.csrf_token, baseUrl: location.origin, fetch: pageFetch, maxRetryAfterSeconds: MAX_RETRY_AFTER_SECONDS });

async function call<T>(use: (client: Postbox) => Promise<T>, signsOut: boolean): Promise<T> {
  try {
    return await use(client());
  } catch (error) {
    if (!(error instanceof PostboxError)) throw error;
    if (error.code === 'account_suspended') $('suspended').hidden = false;
    if (error.status === 401 && signsOut && state.session) {
      sessionEnded();
      throw new PostboxError({ code: error.code, message: 'Your session ended. Sign in again.', status: 401 });
    }
    throw error;
  }
}

/** One use of the API with the session; a 401 ends the session in the page (signed out, saying why). */
export const api = <T>(use: (client: Postbox) => Promise<T>): Promise<T> => call(use, true);

/** A call of /v1/auth/ (sign-in, sign-up, the session itself): its 401 is an answer, not the session's end. */
export const authApi = <T>(use: (client: Postbox) => Promise<T>): Promise<T> => call(use, false);

/** A failure the page finds itself, said like the API's. */
export const failure = (message: string, code: string, status = 400): PostboxError => new PostboxError({ code, message, status });

/** The failure in a sentence for the status line: the API's message and its code. */
export const describeFailure = (error: unknown): string =>
  error instanceof PostboxError ? error.message + (error.code ? ` (${error.code})` : '') : `Something went wrong: ${String(error)}`;

/** A query without its empty fields (a form's unset filter, the first page's null cursor). */
export function present<T extends object>(params: T): { [K in keyof T]?: Exclude<T[K], null> } {
  return Object.fromEntries(Object.entries(params).filter(([, value]) => value !== undefined && value !== null && value !== '')) as { [K in keyof T]?: Exclude<T[K], null> };
}

export { PostboxError };
