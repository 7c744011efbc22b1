// The object store in AWS: S3's PutObject, GetObject and DeleteObject as three signed HTTPS
// requests. The port needs nothing else, and @aws-sdk/client-s3 for these three calls was a sixth
// to a fifth of the bundles that carried it (26–34 KB of gzip: the client, its XML protocol,
// checksums and S3 middleware; bench/results.md, "Lambda bundles"). Requests are signed by the
// SDK's own SigV4 signer, which every bundle already carries for its other clients. Retries follow
// the SDK's standard mode: up to 3 attempts, on throttling, 5xx and connection errors, with
// jittered backoff. Locally objects are files (shared/adapters/local/file-object-store.ts).
import { createHash, createHmac, type Hash, type Hmac } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import { Agent, request as httpsRequest } from 'node:https';
import { pipeline } from 'node:stream/promises';
import { SignatureV4 } from '@smithy/signature-v4';
import type { DownloadOptions, ObjectStore, ObjectStream, StoredObject } from '../../ports/object-store';

export interface S3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string;
}

export interface S3ObjectStoreOptions {
  bucket: string;
  region: string;
  /** Static credentials or a provider (in Lambda, the environment's: shared/adapters/aws/lambda-credentials.ts). */
  credentials: S3Credentials | (() => Promise<S3Credentials>);
  /** Path-style requests to another endpoint (tests: a loopback server); by default the bucket's virtual host in its region. */
  endpoint?: string;
  /** Attempts of one call, the first included (the SDK's standard mode: 3). */
  maxAttempts?: number;
  /** Longest wait for a response, and between two chunks of it, per attempt. */
  timeoutMs?: number;
  /** Backoff before attempt n+1 is a random part of baseDelayMs · 2^n (tests shorten it). */
  baseDelayMs?: number;
}

/** What S3 answered when it did not do what was asked: `name` is S3's error code (NoSuchKey, AccessDenied, …). */
export class S3Error extends Error {
  constructor(
    readonly code: string,
    readonly status: number,
    message: string,
    readonly requestId?: string,
  ) {
    super(message);
    this.name = code;
  }
}

/** The SigV4 signer's hash: SHA-256, or HMAC-SHA-256 when given a key, from node:crypto. */
class Sha256 {
  private readonly hash: Hash | Hmac;
  constructor(secret?: string | ArrayBuffer | ArrayBufferView) {
    this.hash = secret === undefined ? createHash('sha256') : createHmac('sha256', typeof secret === 'string' ? secret : toBytes(secret));
  }
  update(data: string | ArrayBuffer | ArrayBufferView): void {
    this.hash.update(typeof data === 'string' ? data : toBytes(data));
  }
  digest(): Promise<Uint8Array> {
    return Promise.resolve(new Uint8Array(this.hash.digest()));
  }
}

const toBytes = (data: ArrayBuffer | ArrayBufferView): Uint8Array =>
  ArrayBuffer.isView(data) ? new Uint8Array(data.buffer, data.byteOffset, data.byteLength) : new Uint8Array(data);

/** A key as S3 signs and routes it: each segment percent-encoded as RFC 3986 says, the slashes kept. */
export function encodeKey(key: string): string {
  return key
    .split('/')
    .map((segment) => encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`))
    .join('/');
}

const RETRYABLE_STATUS = new Set([429, 500, 502, 503, 504]);
const RETRYABLE_CODES = new Set(['ECONNRESET', 'ECONNREFUSED', 'EPIPE', 'ETIMEDOUT', 'EAI_AGAIN', 'ENOTFOUND', 'S3_TIMEOUT']);

interface Response {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

/** A streamed answer: its body is read by the caller, as it arrives. */
interface StreamedResponse {
  status: number;
  headers: IncomingMessage['headers'];
  stream: IncomingMessage;
}

/** A request body read from a file, once per attempt; its hash is signed, so S3 checks every byte. */
interface FileBody {
  path: string;
  length: number;
  sha256: string;
}

async function fileBody(path: string): Promise<FileBody> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return { path, length: (await stat(path)).size, sha256: hash.digest('hex') };
}

export class S3ObjectStore implements ObjectStore {
  private readonly signer: SignatureV4;
  private readonly base: URL;
  /** The bucket's part of every path: empty on its virtual host, `/bucket` on a path-style endpoint. */
  private readonly prefix: string;
  private readonly agent: Agent | undefined;

  constructor(private readonly options: S3ObjectStoreOptions) {
    const credentials = options.credentials;
    this.signer = new SignatureV4({
      service: 's3',
      region: options.region,
      credentials: typeof credentials === 'function' ? credentials : async () => credentials,
      sha256: Sha256,
      // S3 signs the path as sent (encoded once), not encoded a second time as other services do.
      uriEscapePath: false,
      applyChecksum: true,
    });
    if (options.endpoint) {
      this.base = new URL(options.endpoint);
      this.prefix = `/${encodeKey(options.bucket)}`;
    } else {
      const suffix = options.region.startsWith('cn-') ? 'amazonaws.com.cn' : 'amazonaws.com';
      this.base = new URL(`https://${options.bucket || 'unset'}.s3.${options.region}.${suffix}`);
      this.prefix = '';
    }
    this.agent = this.base.protocol === 'https:' ? new Agent({ keepAlive: true, maxSockets: 50 }) : undefined;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    const res = await this.call('PUT', key, { 'content-type': contentType, 'content-length': String(body.length) }, body);
    if (res.status !== 200) throw failure('PutObject', key, res);
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const res = await this.call('GET', key, {});
    if (res.status === 200) return { body: res.body, contentType: header(res, 'content-type') ?? 'application/octet-stream' };
    const error = failure('GetObject', key, res);
    if (error.code === 'NoSuchKey') return undefined;
    throw error;
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    const body = await fileBody(path);
    const res = await this.call('PUT', key, { 'content-type': contentType, 'content-length': String(body.length), 'x-amz-content-sha256': body.sha256 }, body);
    if (res.status !== 200) throw failure('PutObject', key, res);
  }

  async getStream(key: string): Promise<ObjectStream | undefined> {
    const res = await this.call('GET', key, {}, undefined, true);
    if ('stream' in res) {
      return { body: res.stream, contentType: header(res, 'content-type') ?? 'application/octet-stream', size: Number(header(res, 'content-length') ?? 0) };
    }
    const error = failure('GetObject', key, res);
    if (error.code === 'NoSuchKey') return undefined;
    throw error;
  }

  /** S3's presigned GET (payload unsigned, as S3 takes a presigned URL), with the answer's Content-Type and Content-Disposition set by the link. */
  async downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    if (!this.options.bucket) throw new Error('S3ObjectStore: no bucket is configured for this function');
    const path = `${this.prefix}/${encodeKey(key)}`;
    const query = { 'response-content-type': options.contentType, 'response-content-disposition': options.contentDisposition };
    const signed = await this.signer.presign(
      { method: 'GET', protocol: this.base.protocol, hostname: this.base.hostname, port: this.base.port ? Number(this.base.port) : undefined, path, query, headers: { host: this.base.host, 'x-amz-content-sha256': 'UNSIGNED-PAYLOAD' } },
      { expiresIn: options.expiresInS },
    );
    const url = new URL(`${this.base.origin}${path}`);
    for (const [name, value] of Object.entries(signed.query ?? {})) url.searchParams.set(name, Array.isArray(value) ? value.join(',') : String(value));
    return url.toString();
  }

  async delete(key: string): Promise<void> {
    // S3 answers 204 whether or not the key existed.
    const res = await this.call('DELETE', key, {});
    if (res.status !== 204 && res.status !== 200) throw failure('DeleteObject', key, res);
  }

  /** One signed request, tried again while S3 or the connection says it may pass later. */
  private async call(method: 'GET' | 'PUT' | 'DELETE', key: string, headers: Record<string, string>, body?: Buffer | FileBody): Promise<Response>;
  private async call(method: 'GET', key: string, headers: Record<string, string>, body: undefined, streamed: true): Promise<Response | StreamedResponse>;
  private async call(
    method: 'GET' | 'PUT' | 'DELETE',
    key: string,
    headers: Record<string, string>,
    body?: Buffer | FileBody,
    streamed = false,
  ): Promise<Response | StreamedResponse> {
    // A function without the bucket grant has no bucket name: said plainly, on use.
    if (!this.options.bucket) throw new Error('S3ObjectStore: no bucket is configured for this function');
    const maxAttempts = this.options.maxAttempts ?? 3;
    const baseDelayMs = this.options.baseDelayMs ?? 100;
    for (let attempt = 1; ; attempt++) {
      try {
        const res = await this.send(method, key, headers, body, streamed);
        if (!RETRYABLE_STATUS.has(res.status) || attempt >= maxAttempts) return res;
      } catch (error) {
        const code = (error as { code?: string }).code ?? '';
        if (!RETRYABLE_CODES.has(code) || attempt >= maxAttempts) throw error;
      }
      await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(20_000, baseDelayMs * 2 ** attempt)));
    }
  }

  private async send(method: string, key: string, headers: Record<string, string>, body: Buffer | FileBody | undefined, streamed: boolean): Promise<Response | StreamedResponse> {
    const path = `${this.prefix}/${encodeKey(key)}`;
    const signed = await this.signer.sign({
      method,
      protocol: this.base.protocol,
      hostname: this.base.hostname,
      port: this.base.port ? Number(this.base.port) : undefined,
      path,
      query: {},
      headers: { ...headers, host: this.base.host },
      // A file's hash is already in x-amz-content-sha256, which the signer takes as it is.
      body: Buffer.isBuffer(body) ? body : undefined,
    });
    const timeoutMs = this.options.timeoutMs ?? 10_000;
    const request = this.base.protocol === 'https:' ? httpsRequest : httpRequest;
    return new Promise<Response | StreamedResponse>((resolve, reject) => {
      const req = request(
        {
          method,
          protocol: this.base.protocol,
          hostname: this.base.hostname,
          port: this.base.port || undefined,
          path,
          headers: signed.headers as OutgoingHttpHeaders,
          agent: this.agent,
          timeout: timeoutMs,
        },
        (res) => {
          if (streamed && res.statusCode === 200) {
            // The caller reads at its own pace (it may pause to store what it read): no idle timeout from here.
            req.setTimeout(0);
            return resolve({ status: 200, headers: res.headers, stream: res });
          }
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
          res.on('error', reject);
          // Cut off mid-answer (the timeout below, a dropped connection): a connection error, tried again.
          res.on('close', () => {
            if (!res.complete) reject(Object.assign(new Error(`S3 ${method} ${key}: the answer was cut off`), { code: 'ECONNRESET' }));
          });
        },
      );
      req.on('timeout', () => req.destroy(Object.assign(new Error(`S3 ${method} ${key}: no answer within ${timeoutMs} ms`), { code: 'S3_TIMEOUT' })));
      req.on('error', reject);
      if (body === undefined || Buffer.isBuffer(body)) return void req.end(body);
      pipeline(createReadStream(body.path), req).catch((error: unknown) => req.destroy(error as Error));
    });
  }
}

const header = (res: { headers: IncomingMessage['headers'] }, name: string): string | undefined => {
  const value = res.headers[name];
  return Array.isArray(value) ? value[0] : value;
};

/** S3's error document (`<Error><Code>…</Code><Message>…</Message>…`), or the status alone (a HEAD-like empty body). */
function failure(operation: string, key: string, res: Response): S3Error {
  const text = res.body.toString('utf8');
  const field = (name: string): string | undefined => new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
  const code = field('Code') ?? (res.status === 404 ? 'NotFound' : `Http${res.status}`);
  const requestId = field('RequestId') ?? header(res, 'x-amz-request-id');
  return new S3Error(code, res.status, `S3 ${operation} ${key}: ${res.status} ${code}${field('Message') ? `: ${field('Message')}` : ''}`, requestId);
}
