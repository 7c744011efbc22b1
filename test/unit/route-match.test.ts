import { describe, expect, it } from 'vitest';
import { functions, httpRoutes } from '../../functions/manifest';
import { routeKey } from '../../shared/platform';
import { createRouteMatcher } from '../../shared/http/route-match';

const matchRoute = createRouteMatcher(functions);

describe('matchRoute', () => {
  it('finds every manifest route from a concrete path, with its parameters', () => {
    for (const route of httpRoutes()) {
      const path = route.path.replace(/\{(\w+)\}/g, (_m, name: string) => `${name}-value`);
      const match = matchRoute(route.method, path);
      expect(match).toMatchObject({ kind: 'route', routeKey: routeKey(route), fn: { name: route.fn.name } });
    }
  });

  it('decodes path parameters', () => {
    expect(matchRoute('DELETE', '/v1/keys/key%5F1')).toMatchObject({ params: { id: 'key_1' } });
  });

  it('tells a wrong method from an unknown path', () => {
    expect(matchRoute('PUT', '/v1/keys')).toEqual({ kind: 'method_not_allowed', allow: ['GET', 'HEAD', 'POST'] });
    expect(matchRoute('GET', '/v1/keys/a/b')).toEqual({ kind: 'not_found' });
    expect(matchRoute('GET', '/v1/keys/%E0%A4%A')).toEqual({ kind: 'method_not_allowed', allow: ['DELETE'] });
  });

  it('has exactly one catch-all function', () => {
    expect(functions.filter((f) => f.defaultRoute)).toHaveLength(1);
  });
});
