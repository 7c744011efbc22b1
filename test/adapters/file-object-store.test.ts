// The local object store: files under a folder, streamed both ways, and the download links the
// local runtime serves in place of S3's presigned GETs (sealed, expiring, naming their headers).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FileObjectStore, LOCAL_DOWNLOAD_PATH } from '../../shared/adapters/local/file-object-store';

let dir: string;
let now: number;
const store = (key = 'link-key') => new FileObjectStore(join(dir, 'objects'), { key, base: () => 'http://api.test', now: () => now });
const read = async (stream: NodeJS.ReadableStream): Promise<Buffer> => {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const tokenOf = (url: string): string => new URL(url).pathname.slice(LOCAL_DOWNLOAD_PATH.length);
const LINK = { expiresInS: 300, contentType: 'application/pdf', contentDisposition: 'attachment; filename="q.pdf"' };

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-file-objects-'));
  now = Date.parse('2026-11-27T10:00:00Z');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('FileObjectStore', () => {
  it('stores a file and reads it back as a stream with its type and size', async () => {
    // Prepare
    const bytes = randomBytes(100_000);
    const file = join(dir, 'in.bin');
    writeFileSync(file, bytes);
    // Act
    await store().putFile('inbound/x', file, 'message/rfc822');
    const object = await store().getStream('inbound/x');
    // Assess
    expect(object).toMatchObject({ contentType: 'message/rfc822', size: bytes.length });
    expect((await read(object!.body)).equals(bytes)).toBe(true);
    expect(await store().get('inbound/x')).toEqual({ body: bytes, contentType: 'message/rfc822' });
    await expect(store().getStream('inbound/none')).resolves.toBeUndefined();
  });

  it('opens what a download link names, with the headers the link carries', async () => {
    await store().put('inbound/x/attachments/0', Buffer.from('%PDF-1.7'), 'application/octet-stream');
    const url = await store().downloadUrl('inbound/x/attachments/0', LINK);
    expect(url.startsWith(`http://api.test${LOCAL_DOWNLOAD_PATH}`)).toBe(true);

    const opened = await store().openDownload(tokenOf(url));

    expect(opened).toMatchObject({ contentType: 'application/pdf', contentDisposition: 'attachment; filename="q.pdf"', size: 8 });
    expect((await read(opened!.body)).toString()).toBe('%PDF-1.7');
  });

  it('refuses a link that expired, was altered, was sealed with another key, or names a deleted object', async () => {
    // Prepare
    await store().put('k', Buffer.from('secret bytes'), 'text/plain');
    const token = tokenOf(await store().downloadUrl('k', LINK));
    const [payload, seal] = token.split('.') as [string, string];
    const otherKey = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    otherKey.k = 'another/key';
    const forged = `${Buffer.from(JSON.stringify(otherKey)).toString('base64url')}.${seal}`;

    // Act / Assess
    await expect(store().openDownload(forged)).resolves.toBeUndefined();
    await expect(store().openDownload(`${payload}.${seal.slice(0, -2)}AA`)).resolves.toBeUndefined();
    await expect(store('another-link-key').openDownload(token)).resolves.toBeUndefined();
    await expect(store().openDownload('no-dot-at-all')).resolves.toBeUndefined();
    await expect(store().openDownload('')).resolves.toBeUndefined();
    now += 301_000;
    await expect(store().openDownload(token)).resolves.toBeUndefined();
    now -= 301_000;
    const opened = await store().openDownload(token);
    await store().delete('k');
    // Opened before the delete: read whole, not an error event after the answer.
    expect((await read(opened!.body)).toString()).toBe('secret bytes');
    await expect(store().openDownload(token)).resolves.toBeUndefined();
  });

  it('says plainly that it makes no links where none are configured', async () => {
    await expect(new FileObjectStore(join(dir, 'o')).downloadUrl('k', LINK)).rejects.toThrow('download links are not configured');
    await expect(new FileObjectStore(join(dir, 'o')).openDownload('a.b')).resolves.toBeUndefined();
  });
});
