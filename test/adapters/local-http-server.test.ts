// The local runtime's node:http front: requests Node's own parser refuses still get the JSON
// error envelope (never Node's plain text), and every answer carries nosniff. HEAD runs the GET
// route and gets no body; links come from configuration, whatever Host the request claims.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import { request as httpRequest, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { type CreatedAccount } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { installContainer } from '../../shared/runtime/container';
import { Admission } from '../../local/admission';
import { createLocalHttpServer, type HttpLambda } from '../../local/http-server';
import { loadFunction } from '../../local/runtime';
import { createLogger } from '../../shared/adapters/logger';
import { createTestContainer, type TestContainer } from '../support/container';
import { waitFor } from '../support/wait';

let server: Server;
let port: number;
/** The events the stub handler was given, newest last. */
const seen: Array<{ routeKey: string; method: string }> = [];

beforeAll(async () => {
  // Every routed request answers 200: what is under test is what never reaches a handler.
  server = createLocalHttpServer(
    functions,
    async () => async (event) => {
      seen.push({ routeKey: event.routeKey, method: event.requestContext.http.method });
      return { statusCode: 200, body: '{"ok":true}', headers: { 'content-length': '11' } };
    },
    createLogger('silent'),
  );
  port = await listen(server);
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

async function listen(s: Server): Promise<number> {
  await new Promise<void>((ok) => s.listen(0, '127.0.0.1', () => ok()));
  return (s.address() as AddressInfo).port;
}

/** Writes raw bytes and reads the whole answer until the server closes the connection. */
function raw(request: Buffer | string, to = port): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(to, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head = '', body = ''] = text.split('\r\n\r\n');
      const [statusLine = '', ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body });
    });
    socket.end(request);
  });
}

describe('the local HTTP server', () => {
  it('answers a NUL byte in a header with the 400 envelope', async () => {
    const res = await raw('GET /v1/keys HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n');
    expect(res.status).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'invalid_request', message: 'malformed HTTP request', status: 400 } });
  });

  it('answers raw UTF-8 bytes in the request target with the 400 envelope', async () => {
    const res = await raw(Buffer.concat([Buffer.from('GET /v1/keys?q='), Buffer.from('é☃', 'utf8'), Buffer.from(' HTTP/1.1\r\nHost: x\r\n\r\n')]));
    expect(res.status).toBe(400);
    expect(JSON.parse(res.body).error.code).toBe('invalid_request');
  });

  it('answers headers past 16 KiB with 431 in the envelope', async () => {
    const res = await raw(`GET /v1/keys HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'invalid_request', message: 'request headers are larger than 16 KiB', status: 431 } });
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });

  it('routes a well-formed request to its handler and sends no X-Powered-By', async () => {
    const res = await raw('GET /v1/keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(res.status).toBe(200);
    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});

describe('HEAD on the local HTTP server', () => {
  it('runs the GET route as HEAD and sends its headers without a body', async () => {
    const res = await raw('HEAD /v1/keys HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');

    expect(res.status).toBe(200);
    expect(res.body).toBe('');
    expect(res.headers['content-length']).toBe('11');
    expect(seen.at(-1)).toEqual({ routeKey: 'HEAD /v1/keys', method: 'HEAD' });
  });

  it('routes HEAD on a path with parameters like its GET', async () => {
    const res = await raw('HEAD /v1/messages/msg_01 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');

    expect(res.status).toBe(200);
    expect(seen.at(-1)).toEqual({ routeKey: 'HEAD /v1/messages/{id}', method: 'HEAD' });
  });
});

describe('the local HTTP server over the real handlers', () => {
  let c: TestContainer;
  let real: Server;
  let realPort: number;
  let account: CreatedAccount;

  beforeAll(async () => {
    c = await createTestContainer();
    c.config.publicBaseUrl = 'http://127.0.0.1:3000';
    installContainer(c);
    account = await createAccount(c, { email: 'owner@example.com' });
    real = createLocalHttpServer(functions, (fn) => loadFunction<HttpLambda>(fn), createLogger('silent'));
    realPort = await listen(real);
  });
  afterAll(async () => {
    await new Promise<void>((ok) => real.close(() => ok()));
    await c.testStore.close();
  });

  /** One request over node:http, which lets a test say any Host it likes. */
  function send(method: string, path: string, headers: Record<string, string>, body = ''): Promise<{ status: number; headers: Record<string, string>; body: string }> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: '127.0.0.1', port: realPort, method, path, headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers as Record<string, string>, body: Buffer.concat(chunks).toString('utf8') }));
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  it('answers HEAD /v1/keys like GET /v1/keys, without the body', async () => {
    const auth = { authorization: `Bearer ${account.admin_key}` };
    c.clock.advance(1000);
    const get = await send('GET', '/v1/keys', auth);
    c.clock.advance(1000);
    const head = await send('HEAD', '/v1/keys', auth);

    expect(get.status).toBe(200);
    expect(head.status).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers['content-type']).toBe(get.headers['content-type']);
    expect(Number(head.headers['content-length'])).toBeGreaterThan(0);
    expect(head.headers['x-ratelimit-limit']).toBe(get.headers['x-ratelimit-limit']);
    expect(head.headers['strict-transport-security']).toBeUndefined();
  });

  it('answers HEAD on an unknown path with 404 and no body', async () => {
    const res = await send('HEAD', '/v1/nothing-here', {});

    expect(res.status).toBe(404);
    expect(res.body).toBe('');
  });

  it('mails the test-recipient link on the configured origin when Host and X-Forwarded-Proto say javascript', async () => {
    c.clock.advance(1000);
    const body = JSON.stringify({ email: 'tester@example.com' });
    const res = await send(
      'POST',
      '/v1/test-recipients',
      {
        host: 'javascript://evil',
        'x-forwarded-proto': 'javascript',
        'x-forwarded-host': 'evil.example',
        'content-type': 'application/json',
        authorization: `Bearer ${account.admin_key}`,
      },
      body,
    );

    expect(res.status).toBe(201);
    const mail = c.mailed.at(-1);
    expect(mail?.text).toMatch(/http:\/\/127\.0\.0\.1:3000\/v1\/test-recipients\/verify\?token=[0-9A-Za-z]+/);
    expect(`${mail?.text ?? ''}${mail?.html ?? ''}`).not.toMatch(/javascript|evil/);
  });
});

describe('overload shedding on the local HTTP server', () => {
  it('answers 503 service_unavailable with Retry-After at once while its in-flight limit is reached, and admits again once a slot frees', async () => {
    // Prepare: one request slot; the handler holds its request until the test lets it go.
    const admission = new Admission({ maxInFlight: 1, retryAfterSeconds: 2 });
    let letGo: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    let handled = 0;
    const limited = createLocalHttpServer(
      functions,
      async () => async () => {
        if (handled++ === 0) await held;
        return { statusCode: 200, body: '{"ok":true}', headers: { 'content-type': 'application/json' } };
      },
      createLogger('silent'),
      { admission },
    );
    const limitedPort = await listen(limited);
    const base = `http://127.0.0.1:${limitedPort}`;
    try {
      // Act
      const first = fetch(`${base}/v1/keys`);
      await waitFor(() => admission.requestsInFlight === 1, { what: 'the first request to be in flight' });
      const refused = await fetch(`${base}/v1/send`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"channel":"email"}' });
      const refusedBody = await refused.json();
      letGo();
      const firstAnswer = await first;
      await firstAnswer.arrayBuffer();
      await waitFor(() => admission.requestsInFlight === 0, { what: 'the first request to finish' });
      const after = await fetch(`${base}/v1/keys`);

      // Assess
      expect(refused.status).toBe(503);
      expect(refused.headers.get('retry-after')).toBe('2');
      expect(refused.headers.get('content-type')).toMatch(/^application\/json/);
      expect(refusedBody).toEqual({ error: { code: 'service_unavailable', message: expect.stringContaining('Retry-After'), status: 503 } });
      expect(firstAnswer.status).toBe(200);
      expect(after.status).toBe(200);
      expect(handled).toBe(2); // the refused request never reached a handler
      expect(admission.refused.in_flight).toBe(1);
    } finally {
      letGo();
      limited.closeAllConnections();
      await new Promise<void>((ok) => limited.close(() => ok()));
    }
  });

  it('lets at most the configured number of consumer batches run at once, and runs every one', async () => {
    // Prepare
    const admission = new Admission({ maxConsumerBatches: 2 });
    let running = 0;
    let most = 0;
    const releases: Array<() => void> = [];
    const batch = () =>
      admission.consumerTurn(async () => {
        running++;
        most = Math.max(most, running);
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
        return 'done';
      });

    // Act
    const all = Promise.all([batch(), batch(), batch(), batch(), batch()]);
    for (let released = 0; released < 5; released++) {
      await waitFor(() => releases.length > 0, { what: `batch ${released + 1} to start` });
      expect(running).toBeLessThanOrEqual(2);
      releases.shift()?.();
    }

    // Assess
    expect(await all).toEqual(['done', 'done', 'done', 'done', 'done']);
    expect(most).toBe(2);
  });
});
