// The session cookie on the wire. API Gateway (payload 2.0) hands the request's cookies over as
// `event.cookies` and drops the Cookie header; other callers send the header. Answers set cookies
// through the structured result's `cookies` array, which API Gateway turns into Set-Cookie headers
// (and so does the local runtime's server).
export const SESSION_COOKIE = 'postbox_session';

/** The named cookie's value from `event.cookies` and the Cookie header alike. */
export function cookieValue(name: string, cookies: readonly string[] | undefined, header: string | undefined): string | undefined {
  const pairs = [...(cookies ?? []), ...(header ? header.split(';') : [])];
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at > 0 && pair.slice(0, at).trim() === name) return pair.slice(at + 1).trim();
  }
  return undefined;
}

/** `HttpOnly; Secure; SameSite=Lax; Path=/`: never readable by script, never sent over plain http or cross-site POSTs. */
export function sessionCookie(id: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${id}; HttpOnly; Secure; SameSite=Lax; Path=/; Max-Age=${Math.max(0, Math.round(maxAgeSeconds))}`;
}

export const clearedSessionCookie = (): string => sessionCookie('', 0);
