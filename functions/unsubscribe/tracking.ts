// The tracking links the local runtime puts in tracked mail (shared/sending/tracking/): the open pixel and
// the click redirect. Public; the signed token is the credential, and a token that is not one we
// issued, for a message that is not tracked, or for another link is 404, alike.
import { redirect } from '../../shared/http/respond';
import type { RouteHandler } from '../../shared/http/pipeline';
import type { HttpRequest, HttpResult } from '../../shared/http/types';
import { recordClick, recordOpen, type Visitor } from '../../shared/engagement/tracking';

/** A transparent 1×1 GIF. */
const PIXEL = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7', 'base64');

/** Every fetch must reach us to be counted: no cache may keep the pixel or the redirect. */
const NO_STORE = { 'cache-control': 'no-store, max-age=0', 'referrer-policy': 'no-referrer' };

const visitorOf = (req: HttpRequest): Visitor => ({ ipAddress: req.sourceIp, userAgent: (req.headers['user-agent'] ?? '').slice(0, 512) });

export const trackingRoutes = {
  'GET /v1/t/o/{token}': async (req, c): Promise<HttpResult> => {
    await recordOpen(c, req.params.token ?? '', visitorOf(req));
    return { status: 200, body: PIXEL, headers: { 'content-type': 'image/gif', ...NO_STORE } };
  },
  'GET /v1/t/c/{token}': async (req, c): Promise<HttpResult> => redirect(302, await recordClick(c, req.params.token ?? '', req.query.url, visitorOf(req)), NO_STORE),
} satisfies Record<string, RouteHandler>;
