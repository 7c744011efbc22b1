// The spec's deployment-gated routes (inbound email, inbound routes, the Mail app): each answers
// 404 where inbound email is off (INBOUND_ENABLED), before it reads anything. One wrapper for
// every function that serves them.
import { requireInbound } from '../inbound-mail/receipt/read';
import type { RouteHandler } from './pipeline';

export function inboundOnly<T extends Record<string, RouteHandler>>(routes: T): T {
  return <T>Object.fromEntries(
    Object.entries(routes).map(([key, route]): [string, RouteHandler] => [
      key,
      async (req, c) => {
        requireInbound(c.config);
        return route(req, c);
      },
    ]),
  );
}
