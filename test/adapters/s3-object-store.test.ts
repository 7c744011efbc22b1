// The S3 object store (shared/adapters/aws/s3-object-store.ts: the official S3 client and
// presigner) against s3rver on loopback, started here in a temp dir: put, get, streams both ways,
// delete, missing keys, and presigned GET links fetched over real HTTP. aws-sdk-client-mock only
// plays the refusals s3rver cannot give (AccessDenied).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException } from '@aws-sdk/client-s3';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { s3ClientConfig, S3ObjectStore } from '../../shared/adapters/aws/s3-object-store';
import { buildContainer } from '../../shared/runtime/container';
import { readAwsConfig } from '../../shared/runtime/config';
import { startS3, type Running } from '../../local/emulators';
import { importFileObjects } from '../../local/import-objects';
import { FileObjectStore } from '../../shared/adapters/local/file-object-store';
import { createLogger } from '../../shared/adapters/logger';
import { existsSync } from 'node:fs';

const BUCKET = 'postbox-objects';
const CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' };
const REGION = 'us-east-1';

let dir: string;
let s3: Running;
let client: S3Client;
let store: S3ObjectStore;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-s3rver-'));
  s3 = await startS3({ directory: join(dir, 's3'), buckets: [BUCKET] });
  client = new S3Client(s3ClientConfig({ region: REGION, credentials: CREDENTIALS }, s3.endpoint));
  store = new S3ObjectStore(client, BUCKET);
});

afterAll(async () => {
  client?.destroy();
  await s3?.close();
  rmSync(dir, { recursive: true, force: true });
});

const readAll = async (body: AsyncIterable<unknown>): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of body) chunks.push(Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
};

describe('S3ObjectStore against s3rver', () => {
  it('puts an object and gets back its bytes and content type', async () => {
    // Prepare
    const body = Buffer.from([0x3c, 0x73, 0x76, 0x67, 0x00, 0xff]);
    // Act
    await store.put('bimi/acc_1/logo.svg', body, 'image/svg+xml');
    const read = await store.get('bimi/acc_1/logo.svg');
    // Assess
    expect(read?.contentType).toBe('image/svg+xml');
    expect(read?.body.equals(body)).toBe(true);
  });

  it('keeps keys with spaces, plus signs and non-ASCII apart, slashes and all', async () => {
    const keys = ['content/acc 1/a+b.json', 'content/acc 1/é/x!()*~._-'];
    for (const [i, key] of keys.entries()) await store.put(key, Buffer.from(`object ${i}`), 'text/plain');
    for (const [i, key] of keys.entries()) expect((await store.get(key))?.body.toString()).toBe(`object ${i}`);
  });

  it('answers undefined for a key it does not have, whole or as a stream', async () => {
    await expect(store.get('missing/key')).resolves.toBeUndefined();
    await expect(store.getStream('missing/key')).resolves.toBeUndefined();
  });

  it('deletes an object, and deletes a key it does not have without complaint', async () => {
    await store.put('to-delete', Buffer.from('x'), 'text/plain');
    await store.delete('to-delete');
    await expect(store.get('to-delete')).resolves.toBeUndefined();
    await expect(store.delete('never-there')).resolves.toBeUndefined();
  });

  it('streams a 6 MiB file in and reads exactly its bytes back as a stream, with type and size', async () => {
    // Prepare: a file, not a buffer in hand (the checksum trap: aws-chunked uploads came back longer)
    const bytes = randomBytes(6 * 1024 * 1024);
    const file = join(dir, 'raw.eml');
    writeFileSync(file, bytes);
    // Act
    await store.putFile('inbound/raw/big', file, 'message/rfc822');
    const object = await store.getStream('inbound/raw/big');
    // Assess
    expect(object).toMatchObject({ contentType: 'message/rfc822', size: bytes.length });
    expect((await readAll(object!.body)).equals(bytes)).toBe(true);
  });

  it('presigns a GET that serves the object over HTTP with the type and disposition it names', async () => {
    // Prepare
    const bytes = randomBytes(100_000);
    await store.put('inbound/abc/attachments/0', bytes, 'application/octet-stream');
    const disposition = `attachment; filename="a b.pdf"; filename*=UTF-8''a%20b.pdf`;
    // Act
    const link = await store.downloadUrl('inbound/abc/attachments/0', { expiresInS: 300, contentType: 'application/pdf', contentDisposition: disposition });
    const answer = await fetch(link);
    // Assess: path-style on the endpoint, a 5-minute SigV4 link, the headers it names
    const url = new URL(link);
    expect(url.origin).toBe(s3.endpoint);
    expect(url.pathname).toBe(`/${BUCKET}/inbound/abc/attachments/0`);
    expect(url.searchParams.get('X-Amz-Expires')).toBe('300');
    expect(url.searchParams.get('X-Amz-Algorithm')).toBe('AWS4-HMAC-SHA256');
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-type')).toBe('application/pdf');
    expect(answer.headers.get('content-disposition')).toBe(disposition);
    expect(Buffer.from(await answer.arrayBuffer()).equals(bytes)).toBe(true);
  });

  it('makes links that stop working once they expire', async () => {
    // Prepare: a link signed an hour ago, for five minutes
    await store.put('expiring', Buffer.from('x'), 'text/plain');
    vi.useFakeTimers({ toFake: ['Date'] });
    let link: string;
    try {
      vi.setSystemTime(Date.now() - 3_600_000);
      link = await store.downloadUrl('expiring', { expiresInS: 300, contentType: 'text/plain', contentDisposition: 'attachment' });
    } finally {
      vi.useRealTimers();
    }
    // Act
    const answer = await fetch(link);
    // Assess
    expect(answer.status).toBe(403);
    expect(await answer.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('refuses plainly, sending nothing, in a function that has no bucket', async () => {
    const mock = mockClient(S3Client);
    try {
      const without = new S3ObjectStore(new S3Client({ region: REGION, credentials: CREDENTIALS }), '');
      await expect(without.get('k')).rejects.toThrow('no bucket is configured for this function');
      await expect(without.downloadUrl('k', { expiresInS: 60, contentType: 'text/plain', contentDisposition: 'attachment' })).rejects.toThrow('no bucket is configured');
      expect(mock.calls()).toEqual([]);
    } finally {
      mock.restore();
    }
  });
});

describe('the objects of an older data directory', () => {
  it('move into the bucket under their keys and types, once', async () => {
    // Prepare: objects as the local runtime kept them before it ran s3rver
    const folder = join(dir, 'objects');
    const files = new FileObjectStore(folder);
    const raw = randomBytes(50_000);
    await files.put('content/acc_1/msg_1.json', Buffer.from('{"html":"<p>hi</p>"}'), 'application/json');
    await files.put('inbound/raw/ses-1', raw, 'message/rfc822');
    await files.put('deleted/later', Buffer.from('x'), 'text/plain');
    await files.delete('deleted/later');
    // Act
    const imported = await importFileObjects(client, BUCKET, folder, createLogger('silent'));
    // Assess
    expect(imported).toBe(2);
    expect(await store.get('content/acc_1/msg_1.json')).toEqual({ body: Buffer.from('{"html":"<p>hi</p>"}'), contentType: 'application/json' });
    expect((await store.get('inbound/raw/ses-1'))?.body.equals(raw)).toBe(true);
    expect(existsSync(folder)).toBe(false);
    expect(existsSync(`${folder}.imported`)).toBe(true);
    await expect(importFileObjects(client, BUCKET, folder, createLogger('silent'))).resolves.toBe(0);
  });
});

describe('S3ObjectStore on what s3rver cannot answer', () => {
  it('throws what S3 refused, with its code and status, whole or as a stream', async () => {
    // Prepare: S3 without the ListBucket grant answers AccessDenied for a missing key too
    const mock = mockClient(S3Client);
    try {
      const denied = new S3ServiceException({ name: 'AccessDenied', $fault: 'client', $metadata: { httpStatusCode: 403 }, message: 'Access Denied' });
      mock.on(GetObjectCommand).rejects(denied).on(PutObjectCommand).rejects(denied);
      const refused = new S3ObjectStore(new S3Client({ region: REGION, credentials: CREDENTIALS }), BUCKET);
      // Act / Assess
      await expect(refused.get('k')).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
      await expect(refused.getStream('k')).rejects.toMatchObject({ name: 'AccessDenied' });
      await expect(refused.put('k', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ name: 'AccessDenied' });
    } finally {
      mock.restore();
    }
  });
});

describe('the composition root', () => {
  it('gives an AWS function with a bucket the S3 object store, with S3 defaults', async () => {
    // Prepare: an AWS configuration; nothing is sent while the container is built.
    const config = { ...readAwsConfig({ TABLE_NAME: 't', AWS_REGION: REGION, BUCKET_NAME: BUCKET }), credentials: CREDENTIALS };
    // Act
    const container = await buildContainer(config);
    // Assess
    expect(container.objects).toBeInstanceOf(S3ObjectStore);
  });

  it('addresses another endpoint path-style, with checksums only where S3 requires them', () => {
    expect(s3ClientConfig({ region: REGION }, 'http://127.0.0.1:4568')).toEqual({
      region: REGION,
      endpoint: 'http://127.0.0.1:4568',
      forcePathStyle: true,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
    });
    expect(s3ClientConfig({ region: REGION })).toEqual({ region: REGION });
  });
});
