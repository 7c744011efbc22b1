// The S3 object store (shared/adapters/aws/s3-object-store.ts) against a loopback HTTP server that
// plays S3: each call is one request of the shape S3 takes, signed with SigV4 as S3 checks it (the
// signature is worked out again here, independently of the SDK signer the adapter uses), and S3's
// answers (error documents, throttling) become what the ObjectStore port promises.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { encodeKey, S3Error, S3ObjectStore, type S3ObjectStoreOptions } from '../../shared/adapters/aws/s3-object-store';
import { buildContainer } from '../../shared/runtime/container';
import { readAwsConfig } from '../../shared/runtime/config';

const CREDENTIALS = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY', sessionToken: 'session-token' };
const REGION = 'eu-west-1';
const BUCKET = 'postbox-objects';

interface Received {
  method: string;
  path: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** What the server answers next; `hang` holds the request without an answer, `cut` starts one and drops the connection. */
type Answer = { status: number; headers?: Record<string, string>; body?: string | Buffer; hang?: boolean; cut?: boolean };

let server: Server;
let endpoint: string;
let received: Received[];
let answers: Answer[];

beforeAll(async () => {
  server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ method: req.method!, path: req.url!, headers: req.headers, body: Buffer.concat(chunks) });
      const answer = answers.shift() ?? { status: 500, body: '<Error><Code>NoAnswerScripted</Code></Error>' };
      if (answer.hang) return;
      if (answer.cut) {
        res.writeHead(answer.status, { 'content-length': '1000' });
        res.write('partial', () => res.destroy());
        return;
      }
      res.writeHead(answer.status, answer.headers ?? {});
      res.end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

beforeEach(() => {
  received = [];
  answers = [];
});

const store = (options: Partial<S3ObjectStoreOptions> = {}): S3ObjectStore =>
  new S3ObjectStore({ bucket: BUCKET, region: REGION, credentials: CREDENTIALS, endpoint, baseDelayMs: 1, ...options });

const errorDocument = (code: string, message: string): string =>
  `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${message}</Message><RequestId>REQ123</RequestId></Error>`;

const hmac = (key: Buffer | string, data: string): Buffer => createHmac('sha256', key).update(data).digest();
const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');

/** The SigV4 signature S3 expects for a received request, from its headers, worked out by the spec. */
function expectedAuthorization(request: Received, secretAccessKey: string): string {
  const auth = /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/s3\/aws4_request, SignedHeaders=([a-z0-9;-]+), Signature=([0-9a-f]{64})$/.exec(
    String(request.headers.authorization),
  );
  if (!auth) throw new Error(`malformed authorization header: ${request.headers.authorization}`);
  const [, accessKeyId, day, region, signedHeaders] = auth as unknown as [string, string, string, string, string];
  const names = signedHeaders.split(';');
  const canonicalHeaders = names.map((name) => `${name}:${String(request.headers[name]).trim().replace(/\s+/g, ' ')}\n`).join('');
  const canonicalRequest = [request.method, request.path, '', canonicalHeaders, signedHeaders, String(request.headers['x-amz-content-sha256'])].join('\n');
  const scope = `${day}/${region}/s3/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', String(request.headers['x-amz-date']), scope, sha256Hex(canonicalRequest)].join('\n');
  const signingKey = hmac(hmac(hmac(hmac(`AWS4${secretAccessKey}`, day), region), 's3'), 'aws4_request');
  const signature = hmac(signingKey, stringToSign).toString('hex');
  return `AWS4-HMAC-SHA256 Credential=${accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`;
}

describe('S3ObjectStore', () => {
  it('puts an object with one signed PUT of the body, its type and its SHA-256', async () => {
    // Prepare
    answers.push({ status: 200, headers: { etag: '"abc"' } });
    const body = Buffer.from('{"html":"<p>hello</p>"}');
    // Act
    await store().put('content/acc_1/msg 1.json', body, 'application/json');
    // Assess
    expect(received).toHaveLength(1);
    const [request] = received as [Received];
    expect(request).toMatchObject({ method: 'PUT', path: `/${BUCKET}/content/acc_1/msg%201.json` });
    expect(request.body.equals(body)).toBe(true);
    expect(request.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(body.length),
      'x-amz-content-sha256': sha256Hex(body),
      'x-amz-security-token': CREDENTIALS.sessionToken,
    });
    expect(request.headers['x-amz-date']).toMatch(/^\d{8}T\d{6}Z$/);
    const signed = /SignedHeaders=([^,]+)/.exec(String(request.headers.authorization))?.[1]?.split(';');
    expect(signed).toEqual(expect.arrayContaining(['content-type', 'host', 'x-amz-content-sha256', 'x-amz-date', 'x-amz-security-token']));
    expect(request.headers.authorization).toContain(`Credential=${CREDENTIALS.accessKeyId}/${String(request.headers['x-amz-date']).slice(0, 8)}/${REGION}/s3/aws4_request`);
    expect(request.headers.authorization).toBe(expectedAuthorization(request, CREDENTIALS.secretAccessKey));
  });

  it('gets an object: its bytes and its content type, from a signed GET', async () => {
    // Prepare
    const bytes = Buffer.from([0x3c, 0x73, 0x76, 0x67, 0x00, 0xff]);
    answers.push({ status: 200, headers: { 'content-type': 'image/svg+xml' }, body: bytes });
    // Act
    const object = await store().get('bimi/acc_1/example.com.svg');
    // Assess
    expect(object).toEqual({ body: bytes, contentType: 'image/svg+xml' });
    const [request] = received as [Received];
    expect(request).toMatchObject({ method: 'GET', path: `/${BUCKET}/bimi/acc_1/example.com.svg` });
    expect(request.headers['x-amz-content-sha256']).toBe(sha256Hex(''));
    expect(request.headers.authorization).toBe(expectedAuthorization(request, CREDENTIALS.secretAccessKey));
  });

  it('answers undefined for a key S3 does not have (NoSuchKey)', async () => {
    answers.push({ status: 404, headers: { 'content-type': 'application/xml' }, body: errorDocument('NoSuchKey', 'The specified key does not exist.') });
    await expect(store().get('content/missing')).resolves.toBeUndefined();
    expect(received).toHaveLength(1);
  });

  it('throws what S3 refused, named by its error code, without trying again', async () => {
    // Prepare
    answers.push({ status: 403, body: errorDocument('AccessDenied', 'Access Denied') });
    // Act
    const error = await store().get('content/x').catch((e: unknown) => e);
    // Assess
    expect(error).toBeInstanceOf(S3Error);
    expect(error).toMatchObject({ name: 'AccessDenied', code: 'AccessDenied', status: 403, requestId: 'REQ123' });
    expect((error as Error).message).toContain('GetObject content/x: 403 AccessDenied: Access Denied');
    expect(received).toHaveLength(1);
  });

  it('deletes with one signed DELETE, whether or not the key existed', async () => {
    answers.push({ status: 204 });
    await store().delete('bimi/acc_1/example.com.svg');
    const [request] = received as [Received];
    expect(request).toMatchObject({ method: 'DELETE', path: `/${BUCKET}/bimi/acc_1/example.com.svg` });
    expect(request.headers.authorization).toBe(expectedAuthorization(request, CREDENTIALS.secretAccessKey));
  });

  it('tries again after throttling and server errors, as the SDK standard mode does', async () => {
    // Prepare
    answers.push({ status: 503, body: errorDocument('SlowDown', 'Please reduce your request rate.') }, { status: 500, body: errorDocument('InternalError', 'x') }, { status: 200 });
    // Act
    await store().put('content/a', Buffer.from('a'), 'text/plain');
    // Assess: three attempts, each signed.
    expect(received.map((r) => r.method)).toEqual(['PUT', 'PUT', 'PUT']);
    for (const request of received) expect(request.headers.authorization).toBe(expectedAuthorization(request, CREDENTIALS.secretAccessKey));
  });

  it('gives up after its attempts with the last error S3 gave', async () => {
    answers.push(...Array.from({ length: 3 }, () => ({ status: 503, body: errorDocument('SlowDown', 'Please reduce your request rate.') })));
    await expect(store().put('content/a', Buffer.from('a'), 'text/plain')).rejects.toMatchObject({ name: 'SlowDown', status: 503 });
    expect(received).toHaveLength(3);
  });

  it('tries again when the connection fails', async () => {
    // Prepare: nothing listens on the port of a closed server.
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    let calls = 0;
    const credentials = async () => {
      calls++;
      return CREDENTIALS;
    };
    // Act
    const error = await store({ endpoint: `http://127.0.0.1:${port}`, credentials }).get('k').catch((e: unknown) => e);
    // Assess: three signed attempts, then the connection error itself.
    expect(error).toMatchObject({ code: 'ECONNREFUSED' });
    expect(calls).toBe(3);
  });

  it('gives up on an attempt S3 does not answer, and tries again', async () => {
    // Prepare: two requests held unanswered, then an answer.
    answers.push({ status: 200, hang: true }, { status: 200, hang: true }, { status: 200, headers: { 'content-type': 'text/plain' }, body: 'late' });
    // Act
    const object = await store({ timeoutMs: 100 }).get('k');
    // Assess
    expect(object).toEqual({ body: Buffer.from('late'), contentType: 'text/plain' });
    expect(received).toHaveLength(3);
  });

  it('fails with its timeout when no attempt is answered', async () => {
    answers.push(...Array.from({ length: 3 }, () => ({ status: 200, hang: true })));
    await expect(store({ timeoutMs: 100 }).get('k')).rejects.toMatchObject({ code: 'S3_TIMEOUT' });
    expect(received).toHaveLength(3);
  });

  it('tries again when an answer is cut off midway', async () => {
    answers.push({ status: 200, cut: true }, { status: 200, headers: { 'content-type': 'text/plain' }, body: 'whole' });
    await expect(store().get('k')).resolves.toEqual({ body: Buffer.from('whole'), contentType: 'text/plain' });
    expect(received).toHaveLength(2);
  });

  it('takes its credentials from a provider, without a session token when there is none', async () => {
    answers.push({ status: 200 });
    await store({ credentials: async () => ({ accessKeyId: 'AKIDOTHER', secretAccessKey: 'other-secret' }) }).put('k', Buffer.from('x'), 'text/plain');
    const [request] = received as [Received];
    expect(request.headers['x-amz-security-token']).toBeUndefined();
    expect(request.headers.authorization).toContain('Credential=AKIDOTHER/');
    expect(request.headers.authorization).toBe(expectedAuthorization(request, 'other-secret'));
  });

  it('refuses plainly, sending nothing, in a function that has no bucket', async () => {
    await expect(store({ bucket: '' }).get('k')).rejects.toThrow('no bucket is configured for this function');
    expect(received).toEqual([]);
  });

  it('puts a file streamed from disk, signed with the hash of its bytes', async () => {
    // Prepare: a file of a few hundred kilobytes, not a buffer in hand
    answers.push({ status: 200 });
    const dir = mkdtempSync(join(tmpdir(), 'postbox-s3-file-'));
    try {
      const bytes = randomBytes(300_000);
      const file = join(dir, 'raw.eml');
      writeFileSync(file, bytes);
      // Act
      await store().putFile('inbound/abc', file, 'message/rfc822');
      // Assess
      const [request] = received as [Received];
      expect(request).toMatchObject({ method: 'PUT', path: `/${BUCKET}/inbound/abc` });
      expect(request.body.equals(bytes)).toBe(true);
      expect(request.headers).toMatchObject({ 'content-type': 'message/rfc822', 'content-length': String(bytes.length), 'x-amz-content-sha256': sha256Hex(bytes) });
      expect(request.headers.authorization).toBe(expectedAuthorization(request, CREDENTIALS.secretAccessKey));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('sends a file again from its start when the first PUT is throttled', async () => {
    answers.push({ status: 503, body: errorDocument('SlowDown', 'Reduce your request rate.') }, { status: 200 });
    const dir = mkdtempSync(join(tmpdir(), 'postbox-s3-file-'));
    try {
      const file = join(dir, 'f');
      writeFileSync(file, 'the whole file');
      await store().putFile('k', file, 'text/plain');
      expect(received.map((r) => r.body.toString())).toEqual(['the whole file', 'the whole file']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('reads an object as a stream, with its type and size', async () => {
    // Prepare
    const bytes = randomBytes(200_000);
    answers.push({ status: 200, headers: { 'content-type': 'application/pdf', 'content-length': String(bytes.length) }, body: bytes });
    // Act
    const object = await store().getStream('inbound/abc/attachments/0');
    // Assess
    expect(object).toMatchObject({ contentType: 'application/pdf', size: bytes.length });
    const chunks: Buffer[] = [];
    for await (const chunk of object!.body) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(bytes)).toBe(true);
    expect(received[0]!.headers.authorization).toBe(expectedAuthorization(received[0]!, CREDENTIALS.secretAccessKey));
  });

  it('answers undefined for a stream of a key S3 does not have, and throws other refusals', async () => {
    answers.push({ status: 404, body: errorDocument('NoSuchKey', 'The specified key does not exist.') }, { status: 403, body: errorDocument('AccessDenied', 'Access Denied') });
    await expect(store().getStream('missing')).resolves.toBeUndefined();
    await expect(store().getStream('forbidden')).rejects.toMatchObject({ name: 'AccessDenied', status: 403 });
  });

  it('presigns a GET whose query names the answer headers, verified as S3 checks a presigned URL', async () => {
    // Act
    const link = new URL(
      await store().downloadUrl('inbound/abc/attachments/0', { expiresInS: 300, contentType: 'application/pdf', contentDisposition: 'attachment; filename="a b.pdf"' }),
    );
    // Assess: nothing was sent; the link carries its own signature
    expect(received).toEqual([]);
    expect(link.pathname).toBe(`/${BUCKET}/inbound/abc/attachments/0`);
    const q = link.searchParams;
    expect(q.get('response-content-type')).toBe('application/pdf');
    expect(q.get('response-content-disposition')).toBe('attachment; filename="a b.pdf"');
    expect(q.get('X-Amz-Expires')).toBe('300');
    expect(q.get('X-Amz-Security-Token')).toBe(CREDENTIALS.sessionToken);
    const [accessKeyId, day, region] = String(q.get('X-Amz-Credential')).split('/') as [string, string, string];
    expect(accessKeyId).toBe(CREDENTIALS.accessKeyId);
    const rfc3986 = (v: string) => encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const canonicalQuery = [...q.entries()]
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => `${rfc3986(name)}=${rfc3986(value)}`)
      .sort()
      .join('&');
    const canonicalRequest = ['GET', link.pathname, canonicalQuery, `host:${link.host}\n`, 'host', 'UNSIGNED-PAYLOAD'].join('\n');
    const scope = `${day}/${region}/s3/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', String(q.get('X-Amz-Date')), scope, sha256Hex(canonicalRequest)].join('\n');
    const signingKey = hmac(hmac(hmac(hmac(`AWS4${CREDENTIALS.secretAccessKey}`, day), region), 's3'), 'aws4_request');
    expect(q.get('X-Amz-Signature')).toBe(hmac(signingKey, stringToSign).toString('hex'));
  });

  it('encodes each segment of a key as S3 signs it, keeping the slashes', () => {
    expect(encodeKey("a b/c+d/é/x!'()*~._-")).toBe('a%20b/c%2Bd/%C3%A9/x%21%27%28%29%2A~._-');
  });
});

describe('the composition root', () => {
  it('gives an AWS function with a bucket the S3 object store', async () => {
    // Prepare: an AWS configuration; nothing is sent while the container is built.
    const config = { ...readAwsConfig({ TABLE_NAME: 't', AWS_REGION: REGION, BUCKET_NAME: BUCKET }), credentials: CREDENTIALS };
    // Act
    const container = await buildContainer(config);
    // Assess
    expect(container.objects).toBeInstanceOf(S3ObjectStore);
  });
});
