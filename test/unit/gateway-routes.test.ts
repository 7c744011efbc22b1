// How the manifest's routes become API Gateway routes: a path one function serves is one ANY route;
// where functions share a path, each method is routed alone and a GET has its HEAD twin.
import { describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { gatewayRoutes, type FunctionDef, type HttpRoute } from '../../shared/platform';

const route = (method: HttpRoute['method'], path: string): HttpRoute => ({ method, path, access: { kind: 'public' } as never, summary: '' });
const fn = (name: string, http: HttpRoute[]): FunctionDef => ({ name, entry: `functions/${name}/http.ts`, handler: 'handler', http, needs: {}, memoryMb: 128, timeoutSeconds: 3 }) as FunctionDef;

describe('gatewayRoutes', () => {
  it('makes one ANY route of a path one function serves, whatever its methods', () => {
    const keys = fn('keys', [route('GET', '/v1/keys'), route('POST', '/v1/keys'), route('DELETE', '/v1/keys/{id}')]);

    expect(gatewayRoutes([keys]).map((r) => `${r.method} ${r.path} → ${r.fn.name}`)).toEqual(['ANY /v1/keys → keys', 'ANY /v1/keys/{id} → keys']);
  });

  it('routes a path two functions share method by method, a GET with its HEAD twin', () => {
    const reader = fn('reader', [route('GET', '/v1/things')]);
    const writer = fn('writer', [route('POST', '/v1/things'), route('GET', '/v1/other')]);

    expect(gatewayRoutes([reader, writer]).map((r) => `${r.method} ${r.path} → ${r.fn.name}`)).toEqual([
      'GET /v1/things → reader',
      'HEAD /v1/things → reader',
      'POST /v1/things → writer',
      'ANY /v1/other → writer',
    ]);
  });

  it('gives every route of the real manifest exactly one gateway route on its function', () => {
    const laid = gatewayRoutes(functions);
    for (const def of functions) {
      for (const r of def.http ?? []) {
        const takes = laid.filter((g) => g.path === r.path && (g.method === 'ANY' || g.method === r.method));
        expect(takes.map((g) => g.fn.name), `${r.method} ${r.path}`).toEqual([def.name]);
      }
    }
    // Far fewer routes than a route per method and a HEAD per GET.
    const perMethod = functions.flatMap((f) => f.http ?? []).reduce((n, r) => n + (r.method === 'GET' ? 2 : 1), 0);
    expect(laid.length).toBeLessThan(perMethod * 0.75);
  });
});
