// Matches a method and path against the manifest's route templates. Used by the local server to
// pick a function and by the catch-all function to tell 404 from 405.
import { routeKey, type FunctionDef, type HttpRoute } from '../platform';

interface Compiled {
  route: HttpRoute & { fn: FunctionDef };
  pattern: RegExp;
  names: string[];
}

function compile(route: HttpRoute & { fn: FunctionDef }): Compiled {
  const names: string[] = [];
  const source = route.path
    .split('/')
    .map((segment) => {
      const param = /^\{(\w+)\}$/.exec(segment);
      if (!param) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      names.push(param[1] as string);
      return '([^/]+)';
    })
    .join('/');
  return { route, pattern: new RegExp(`^${source}$`), names };
}

export type RouteMatch =
  | { kind: 'route'; routeKey: string; fn: FunctionDef; params: Record<string, string> }
  | { kind: 'method_not_allowed'; allow: string[] }
  | { kind: 'not_found' };

export type RouteMatcher = (method: string, path: string) => RouteMatch;

/** A matcher over the HTTP routes of these functions (the manifest's, in every caller). */
export function createRouteMatcher(functions: readonly FunctionDef[]): RouteMatcher {
  // Literal segments win over parameters, as in API Gateway.
  const compiled = functions
    .flatMap((fn) => (fn.http ?? []).map((route) => compile({ ...route, fn })))
    .sort((a, b) => a.names.length - b.names.length);
  return (method, path) => matchAgainst(compiled, method, path);
}

function matchAgainst(compiled: readonly Compiled[], method: string, path: string): RouteMatch {
  const allow: string[] = [];
  for (const c of compiled) {
    const m = c.pattern.exec(path);
    if (!m) continue;
    if (c.route.method !== method.toUpperCase()) {
      allow.push(c.route.method);
      if (c.route.method === 'GET') allow.push('HEAD'); // answered wherever GET is
      continue;
    }
    let params: Record<string, string>;
    try {
      params = Object.fromEntries(c.names.map((n, i) => [n, decodeURIComponent(m[i + 1] as string)]));
    } catch {
      return { kind: 'not_found' };
    }
    return { kind: 'route', routeKey: routeKey(c.route), fn: c.route.fn, params };
  }
  return allow.length > 0 ? { kind: 'method_not_allowed', allow: [...new Set(allow)] } : { kind: 'not_found' };
}
