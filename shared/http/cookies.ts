// The session cookie on the wire. API Gateway (payload 2.0) hands the request's cookies over as
// `event.cookies` and drops the Cookie header; other callers send the header. Answers set cookies
// through the structured result's `cookies` array, which API Gateway turns into Set-Cookie headers
// (and so does the local runtime's server).

/**
 * The session cookie. The `__Host-` prefix makes browsers keep it only when it was set Secure, with
 * `Path=/` and no Domain, by this very host: a sibling subdomain, or a man in the middle of a plain
 * http page, cannot plant a session (a fixation) or shadow ours with a cookie of the same name.
 */
export const SESSION_COOKIE = '__Host-postbox_session';

/** The named cookie's value from `event.cookies` and the Cookie header alike. */
export function cookieValue(name: string, cookies: readonly string[] | undefined, header: string | undefined): string | undefined {
  const pairs = [...(cookies ?? []), ...(header ? header.split(';') : [])];
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** The OAuth sign-in's state, held for the one redirect back (functions/auth/oauth.ts). */
export const OAUTH_STATE_COOKIE = 'postbox_oauth_state';

/**
 * Every cookie the service sets: `HttpOnly; Secure; SameSite=Lax`, never readable by script, never
 * sent over plain http or with cross-site POSTs; `Max-Age=0` clears it.
 */
export function httpOnlyCookie(name: string, value: string, path: string, maxAgeSeconds: number): string {
  return `${name}=${value}; HttpOnly; Secure; SameSite=Lax; Path=${path}; Max-Age=${Math.max(0, Math.round(maxAgeSeconds))}`;
}

/** The session cookie, sent with every request to the origin (the prefix needs Path=/, Secure and no Domain, which it has). */
export const sessionCookie = (id: string, maxAgeSeconds: number): string => httpOnlyCookie(SESSION_COOKIE, id, '/', maxAgeSeconds);

export const clearedSessionCookie = (): string => sessionCookie('', 0);
