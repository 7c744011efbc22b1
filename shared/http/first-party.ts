// Routes that change who is signed in (the sign-in routes' POSTs) take requests from the console's
// own origin or from no browser at all. A cross-site form or script could otherwise sign the
// victim's browser in to the attacker's account (login CSRF: what they then type lands in the
// attacker's account), or sign them out. The session's CSRF token cannot guard these routes: most
// of them run before there is a session. Browsers tell us where a request comes from
// (Sec-Fetch-Site, and Origin on every POST) and never let a page forge either; curl and the SDKs
// send neither and pass. JSON only, besides: a cross-site form can send a "simple" body
// (text/plain, a urlencoded or multipart form) without asking the server first, never JSON.
import { ApiError, InvalidRequestError } from '../errors';
import type { RouteHandler } from './pipeline';
import type { HttpRequest } from './types';

/** Sec-Fetch-Site values a first-party request carries: the page's own origin, or the person (a typed address, a bookmark). */
const FIRST_PARTY_FETCH = new Set(['same-origin', 'none']);

const foreign = (why: string): ApiError =>
  new ApiError('forbidden', `${why}: the sign-in routes take requests from this service's own pages (or from no browser at all, as curl and the SDKs)`);

/**
 * 403 forbidden for a browser request from another origin: Sec-Fetch-Site other than same-origin
 * or none (a sibling subdomain is `same-site` and is refused too), or an Origin that is not the
 * configured public base URL's (`null`, from a sandboxed frame or a redirect, included). A request
 * with neither header is not a browser's and passes.
 */
export function assertSameOrigin(request: Pick<HttpRequest, 'headers' | 'baseUrl'>): void {
  const site = request.headers['sec-fetch-site']?.trim().toLowerCase();
  if (site !== undefined && !FIRST_PARTY_FETCH.has(site)) throw foreign(`a ${site} request`);
  const origin = request.headers.origin?.trim();
  if (origin !== undefined && origin !== new URL(request.baseUrl).origin) throw foreign(`a request from ${origin.slice(0, 100)}`);
}

/**
 * 400 invalid_request unless the body is labelled application/json (any parameters, such as a
 * charset, allowed). A request without a body and without a Content-Type (a sign-out) passes: a
 * form always sends one. The spec's table has no 415, so this is its "malformed body" code.
 */
export function assertJsonBody(request: Pick<HttpRequest, 'headers' | 'rawBody'>): void {
  const contentType = request.headers['content-type'];
  if (contentType === undefined && request.rawBody.length === 0) return;
  const mediaType = contentType?.split(';')[0]?.trim().toLowerCase();
  if (mediaType !== 'application/json') {
    throw new InvalidRequestError(`header Content-Type: send the body as application/json${contentType === undefined ? '' : `, not ${contentType.slice(0, 100)}`}`);
  }
}

/**
 * The route table with every POST first checked by assertSameOrigin, then assertJsonBody: the one
 * place a function declares its state-changing routes first-party only. Other methods are as given.
 */
export function firstPartyPosts<T extends Record<string, RouteHandler>>(routes: T): T {
  return <T>Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, RouteHandler] => [
      key,
      key.startsWith('POST ')
        ? async (request, container) => {
            assertSameOrigin(request);
            assertJsonBody(request);
            return route(request, container);
          }
        : route,
    ]),
  );
}
