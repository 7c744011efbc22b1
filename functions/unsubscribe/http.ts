// The unsubscribe link of marketing mail: public, limited per client IP; the token is the
// credential. A browser gets pages (Accept ranks text/html above JSON), everything else JSON.
import { unsubscribe as unsubscribeFunction } from './definition';
import { ApiError } from '../../shared/errors';
import { prefersHtml } from '../../shared/http/negotiate';
import { createHttpHandler } from '../../shared/http/pipeline';
import { htmlPage, json } from '../../shared/http/respond';
import type { HttpRequest, HttpResult } from '../../shared/http/types';
import { confirmPage, donePage, invalidLinkPage } from '../../shared/engagement/unsubscribe-page';
import type { UnsubscribeVia } from '../../shared/sending/unsubscribe/schemas';
import { readUnsubscribe, unsubscribe, type UnsubscribeState } from '../../shared/engagement/unsubscribe';
import { trackingRoutes } from './tracking';

/** No scripts, no referrer, no caching of a page reached by token; the form posts to itself only. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'";
const linkPage = (status: number, body: string): HttpResult => htmlPage(status, body, PAGE_CSP, { 'x-content-type-options': 'nosniff' });
const view = (state: UnsubscribeState) => ({ channel: state.channel, recipient: state.recipient, unsubscribed: state.unsubscribed });

/** RFC 8058's body, form-encoded or as a multipart field: a mail client's one-click POST. */
function viaOf(raw: Buffer): UnsubscribeVia {
  return /(^|[&\s"])List-Unsubscribe(=|"\s+)One-Click\b/i.test(raw.subarray(0, 4096).toString('latin1')) ? 'one_click' : 'link';
}

/** An invalid token is a page for a browser, the envelope for everything else. */
async function answer(req: HttpRequest, act: () => Promise<{ state: UnsubscribeState; page: (s: UnsubscribeState) => string }>): Promise<HttpResult> {
  const html = prefersHtml(req.headers.accept);
  try {
    const { state, page } = await act();
    return html ? linkPage(200, page(state)) : json(200, view(state), { 'cache-control': 'no-store' });
  } catch (error) {
    if (html && error instanceof ApiError && error.code === 'invalid_token') return linkPage(400, invalidLinkPage());
    throw error;
  }
}

export const handler = createHttpHandler(unsubscribeFunction, {
  // Reads only: mail scanners and link previews follow GETs.
  'GET /v1/unsubscribe/{token}': async (req, c) =>
    answer(req, async () => ({ state: await readUnsubscribe(c, req.params.token ?? ''), page: confirmPage })),
  // Any body is accepted (RFC 8058's `List-Unsubscribe=One-Click`, our page's form, none): the token decides.
  'POST /v1/unsubscribe/{token}': async (req, c) =>
    answer(req, async () => ({ state: await unsubscribe(c, req.params.token ?? '', viaOf(req.rawBody)), page: donePage })),
  ...trackingRoutes,
});
