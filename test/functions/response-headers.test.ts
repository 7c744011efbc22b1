// Headers owed by what an answer shows and where it is served: no-store on every answer that shows
// a secret, HSTS in AWS only, and no CORS (the console is same-origin, so a preflight is refused
// like any other unknown method, in the envelope).
import { afterEach, describe, expect, it, vi } from 'vitest';
import { handler as fallback } from '../../functions/fallback/http';
import { call } from '../support/api';
import { TEST_SECRETS } from '../support/container';
import { httpEvent, parseResult } from '../support/events';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();
const admin = () => bed.account.admin_key;
const HOOK_URL = 'https://93.184.216.34/hook';
const HSTS = 'max-age=63072000; includeSubDomains';

afterEach(() => {
  bed.c.config.runtime = 'local';
  vi.unstubAllEnvs();
});

describe('answers that show a secret', () => {
  const cases: Array<[string, () => Promise<{ status: number; headers: Record<string, string>; body: any }>, number, string]> = [
    ['POST /v1/keys', () => bed.request({ method: 'POST', path: '/v1/keys', key: admin(), body: { scope: 'read' } }), 201, 'key'],
    [
      'POST /v1/keys/{id}/rotate',
      async () => {
        const created = await bed.request({ method: 'POST', path: '/v1/keys', key: admin(), body: { scope: 'read' } });
        return bed.request({ method: 'POST', path: `/v1/keys/${created.body.id}/rotate`, key: admin() });
      },
      200,
      'key',
    ],
    ['POST /v1/webhooks', () => bed.request({ method: 'POST', path: '/v1/webhooks', key: admin(), body: { endpoint_url: HOOK_URL } }), 201, 'signing_secret'],
    [
      'POST /v1/webhooks/{id}/rotate-secret',
      async () => {
        const created = await bed.request({ method: 'POST', path: '/v1/webhooks', key: admin(), body: { endpoint_url: HOOK_URL } });
        return bed.request({ method: 'POST', path: `/v1/webhooks/${created.body.id}/rotate-secret`, key: admin() });
      },
      200,
      'signing_secret',
    ],
    [
      'POST /v1/admin/accounts',
      () => bed.request({ method: 'POST', path: '/v1/admin/accounts', key: TEST_SECRETS['staff-token'], body: { name: 'Acme' }, sourceIp: '198.51.100.77' }),
      201,
      'admin_key',
    ],
  ];

  it.each(cases)('%s answers Cache-Control: no-store', async (_route, act, status, secretField) => {
    const res = await act();

    expect(res.status).toBe(status);
    expect(res.body[secretField]).toEqual(expect.any(String));
    expect(res.headers['cache-control']).toBe('no-store');
  });

  it('leaves answers without a secret to the default (a key listing shows only prefixes)', async () => {
    const res = await bed.request({ method: 'GET', path: '/v1/keys', key: admin() });

    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBeUndefined();
  });
});

describe('Strict-Transport-Security', () => {
  it('is absent locally, where the API is plain http', async () => {
    const ok = await bed.request({ method: 'GET', path: '/v1/keys', key: admin() });
    const unknown = await call({ method: 'GET', path: '/v1/nothing-here' });

    expect(ok.headers['strict-transport-security']).toBeUndefined();
    expect(unknown.headers['strict-transport-security']).toBeUndefined();
  });

  it('is on every route answer in AWS: success, client error and secret', async () => {
    bed.c.config.runtime = 'aws';

    const ok = await bed.request({ method: 'GET', path: '/v1/keys', key: admin() });
    const unauthorized = await bed.request({ method: 'GET', path: '/v1/keys', key: 'sk_live_nope' });
    const invalid = await bed.request({ method: 'POST', path: '/v1/keys', key: admin(), body: { scope: 'root' } });
    const secret = await bed.request({ method: 'POST', path: '/v1/keys', key: admin(), body: { scope: 'read' } });

    expect([ok.status, unauthorized.status, invalid.status, secret.status]).toEqual([200, 401, 400, 201]);
    for (const res of [ok, unauthorized, invalid, secret]) expect(res.headers['strict-transport-security']).toBe(HSTS);
    expect(ok.headers['x-content-type-options']).toBe('nosniff');
  });

  it('is on the catch-all function’s answers when RUNTIME says AWS, and only then', async () => {
    const event = httpEvent({ method: 'GET', path: '/v1/nothing-here' });

    const local = parseResult(await fallback(event));
    vi.stubEnv('RUNTIME', 'aws');
    const aws = parseResult(await fallback(event));

    expect(local.status).toBe(404);
    expect(local.headers['strict-transport-security']).toBeUndefined();
    expect(aws.status).toBe(404);
    expect(aws.headers['strict-transport-security']).toBe(HSTS);
    expect(aws.body.error.code).toBe('not_found');
  });
});

describe('CORS', () => {
  const preflight = { origin: 'https://elsewhere.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization' };

  it('answers a preflight on a route with 405 method_not_allowed in the envelope, granting nothing', async () => {
    const res = await call({ method: 'OPTIONS', path: '/v1/keys', headers: preflight });

    expect(res.status).toBe(405);
    expect(res.body.error).toEqual({ code: 'method_not_allowed', message: expect.stringContaining('OPTIONS'), status: 405 });
    expect(res.headers.allow).toBe('GET, HEAD, POST');
    expect(Object.keys(res.headers).filter((h) => h.toLowerCase().startsWith('access-control-'))).toEqual([]);
  });

  it('answers a preflight on an unknown path with 404 not_found', async () => {
    const res = await call({ method: 'OPTIONS', path: '/v1/nothing-here', headers: preflight });

    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('not_found');
  });

  it('adds no Access-Control-Allow-Origin to a cross-origin GET', async () => {
    const res = await bed.request({ method: 'GET', path: '/v1/keys', key: admin(), headers: { origin: 'https://elsewhere.example' } });

    expect(res.status).toBe(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });
});

describe('HEAD through the pipeline (as API Gateway routes it: HEAD /v1/keys)', () => {
  it('answers GET’s status and headers with no body and GET’s length', async () => {
    const get = await bed.request({ method: 'GET', path: '/v1/keys', key: admin() });
    const event = httpEvent({ method: 'GET', path: '/v1/keys', key: admin() });
    event.routeKey = 'HEAD /v1/keys';
    event.requestContext.http.method = 'HEAD';
    const { handler } = await import('../../functions/keys/http');

    const head = await handler(event);

    expect(head.statusCode).toBe(200);
    expect(head.body).toBeUndefined();
    expect(head.headers?.['content-type']).toBe(get.headers['content-type']);
    expect(Number(head.headers?.['content-length'])).toBeGreaterThan(0);
  });

  it('answers a HEAD without credentials with 401 and no body', async () => {
    const event = httpEvent({ method: 'GET', path: '/v1/keys' });
    event.routeKey = 'HEAD /v1/keys';
    event.requestContext.http.method = 'HEAD';
    const { handler } = await import('../../functions/keys/http');

    const head = await handler(event);

    expect(head.statusCode).toBe(401);
    expect(head.body).toBeUndefined();
  });
});

describe('an ANY route (a path one function serves: ANY /v1/keys)', () => {
  const anyEvent = (method: string, body?: unknown) => {
    const event = httpEvent({ method: method === 'GET' || method === 'HEAD' ? 'GET' : 'POST', path: '/v1/keys', key: admin(), body });
    event.routeKey = 'ANY /v1/keys';
    event.requestContext.http.method = method;
    return event;
  };

  it('runs the route of the method the request came with', async () => {
    const { handler } = await import('../../functions/keys/http');

    const list = await handler(anyEvent('GET'));
    const created = await handler(anyEvent('POST', { name: 'through ANY', scope: 'read' }));
    const head = await handler(anyEvent('HEAD'));

    expect(list.statusCode).toBe(200);
    expect(JSON.parse(list.body ?? '{}')).toHaveProperty('keys');
    expect(created.statusCode).toBe(201);
    expect(JSON.parse(created.body ?? '{}')).toMatchObject({ scope: 'read', key: expect.stringMatching(/^sk_live_/) });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBeUndefined();
  });

  it('answers a method the path does not take with 405 and Allow, as the $default function does', async () => {
    const { handler } = await import('../../functions/keys/http');
    const { handler: fallback } = await import('../../functions/fallback/http');

    for (const method of ['PATCH', 'DELETE', 'PUT', 'OPTIONS']) {
      const res = await handler(anyEvent(method));
      expect(res.statusCode, method).toBe(405);
      expect(JSON.parse(res.body ?? '{}').error.code).toBe('method_not_allowed');
      expect(res.headers?.allow).toBe('GET, HEAD, POST');
      // The same answer the catch-all gives a wrong method (locally, where no ANY route exists).
      const viaDefault = anyEvent(method);
      viaDefault.routeKey = '$default';
      const fallbackAnswer = await fallback(viaDefault);
      expect(fallbackAnswer.statusCode).toBe(405);
      expect(new Set(String(fallbackAnswer.headers?.allow).split(', '))).toEqual(new Set(String(res.headers?.allow).split(', ')));
    }
  });
});
