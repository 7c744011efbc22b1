// Which route takes a received message: pure, so the worker and the tests share one rule.

export interface MatchableRoute {
  id: string;
  domain: string;
  match_prefix: string;
  active: boolean;
}

/**
 * The active route of the recipient's domain whose match_prefix starts the recipient's local part,
 * the longest prefix winning ("" is the catch-all); of equal prefixes the oldest (smallest id, ids
 * being ULIDs) wins. Case is ignored. Undefined when no route matches.
 */
export function matchRoute<R extends MatchableRoute>(routes: readonly R[], recipient: string): R | undefined {
  const address = recipient.trim().toLowerCase();
  const at = address.lastIndexOf('@');
  if (at <= 0) return undefined;
  const local = address.slice(0, at);
  const domain = address.slice(at + 1).replace(/\.$/, '');
  let best: R | undefined;
  for (const route of routes) {
    if (!route.active || route.domain.toLowerCase() !== domain) continue;
    const prefix = route.match_prefix.toLowerCase();
    if (!local.startsWith(prefix)) continue;
    if (!best || prefix.length > best.match_prefix.length || (prefix.length === best.match_prefix.length && route.id < best.id)) best = route;
  }
  return best;
}
