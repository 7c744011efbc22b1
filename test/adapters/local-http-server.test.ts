// The local runtime's node:http front: requests Node's own parser refuses still get the JSON
// error envelope (never Node's plain text), and every answer carries nosniff.
import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { createLocalHttpServer } from '../../shared/runtime/local/http-server';
import { createLogger } from '../../shared/runtime/logger';

let server: Server;
let port: number;

beforeAll(async () => {
  // Every routed request answers 200: what is under test is what never reaches a handler.
  server = createLocalHttpServer(functions, async () => async () => ({ statusCode: 200, body: '{}' }), createLogger('silent'));
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  port = (server.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => server.close(() => ok())));

/** Writes raw bytes and reads the whole answer until the server closes the connection. */
function raw(request: Buffer | string): Promise<{ status: number; headers: Record<string, string>; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
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
