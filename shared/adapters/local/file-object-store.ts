// An object store of files: one file per object under a folder, with its content type beside it.
// The handler and service tests use it (test/support/container.ts); the local runtime runs the S3
// adapter over s3rver instead, and imports a folder of these once (local/import-objects.ts).
// Its download links play S3's presigned GETs as tokens naming the key, the expiry and the
// answer's headers, sealed with an HMAC, which `openDownload` checks; no server serves them.
import { createHash } from 'node:crypto';
import { copyFile, mkdir, open, readFile, rename, rm, writeFile, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { hmacSha256, safeEqualBytes } from '../../crypto/crypto';
import type { DownloadOptions, ObjectStore, ObjectStream, StoredObject } from '../../ports/object-store';

/** The path under the public base URL that download links name. */
export const LOCAL_DOWNLOAD_PATH = '/_objects/';

export interface LocalDownloadLinks {
  /** The origin links are built on (the configured public base URL, known once the server listens). */
  base: () => string | undefined;
  /** The HMAC key sealing each link. */
  key: string;
  /** Milliseconds since the epoch (tests move it). */
  now?: () => number;
}

/** What a valid link serves. */
export interface LocalDownload extends ObjectStream {
  contentDisposition: string;
}

interface LinkClaims {
  /** The object's key. */
  k: string;
  /** Expiry, seconds since the epoch. */
  e: number;
  t: string;
  d: string;
}

export class FileObjectStore implements ObjectStore {
  constructor(
    private readonly root: string,
    private readonly links?: LocalDownloadLinks,
  ) {}

  // Keys become file names by digest, so no key can climb out of the folder.
  private path(key: string): string {
    return join(this.root, createHash('sha256').update(key).digest('hex'));
  }

  private async writeMeta(key: string, contentType: string): Promise<void> {
    await writeFile(`${this.path(key)}.meta.json`, JSON.stringify({ key, contentType }));
  }

  private async readMeta(key: string): Promise<{ contentType: string }> {
    return JSON.parse(await readFile(`${this.path(key)}.meta.json`, 'utf8')) as { contentType: string };
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await mkdir(this.root, { recursive: true });
    await writeFile(this.path(key), body);
    await this.writeMeta(key, contentType);
  }

  async putFile(key: string, path: string, contentType: string): Promise<void> {
    await mkdir(this.root, { recursive: true });
    // Copied beside its final name, then renamed: a reader never sees half a file.
    const partial = `${this.path(key)}.partial`;
    await copyFile(path, partial);
    await rename(partial, this.path(key));
    await this.writeMeta(key, contentType);
  }

  async get(key: string): Promise<StoredObject | undefined> {
    try {
      const [body, meta] = await Promise.all([readFile(this.path(key)), this.readMeta(key)]);
      return { body, contentType: meta.contentType };
    } catch (error) {
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async getStream(key: string): Promise<ObjectStream | undefined> {
    // The file is opened here, not when the stream is first read: an object deleted after this
    // answer is still read whole (the open handle keeps it), never an error event no one awaits.
    let handle: FileHandle | undefined;
    try {
      handle = await open(this.path(key), 'r');
      const [info, meta] = await Promise.all([handle.stat(), this.readMeta(key)]);
      return { body: handle.createReadStream(), contentType: meta.contentType, size: info.size };
    } catch (error) {
      await handle?.close();
      if ((error as { code?: string }).code === 'ENOENT') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await rm(this.path(key), { force: true });
    await rm(`${this.path(key)}.meta.json`, { force: true });
  }

  async downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    const base = this.links?.base();
    if (!this.links || !base) throw new Error('FileObjectStore: download links are not configured (the local runtime configures them)');
    const claims: LinkClaims = { k: key, e: Math.floor(this.nowMs() / 1000) + options.expiresInS, t: options.contentType, d: options.contentDisposition };
    const payload = Buffer.from(JSON.stringify(claims)).toString('base64url');
    return `${base.replace(/\/+$/, '')}${LOCAL_DOWNLOAD_PATH}${payload}.${this.seal(payload)}`;
  }

  /** The object a link serves; undefined when the link was altered, has expired, or its object is gone. */
  async openDownload(token: string): Promise<LocalDownload | undefined> {
    if (!this.links) return undefined;
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > 8192) return undefined;
    const payload = token.slice(0, dot);
    const given = Buffer.from(token.slice(dot + 1), 'base64url');
    const expected = Buffer.from(this.seal(payload), 'base64url');
    if (!safeEqualBytes(given, expected)) return undefined;
    let claims: LinkClaims;
    try {
      claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as LinkClaims;
    } catch {
      return undefined;
    }
    if (typeof claims.e !== 'number' || claims.e * 1000 <= this.nowMs()) return undefined;
    const object = await this.getStream(claims.k);
    return object && { ...object, contentType: claims.t, contentDisposition: claims.d };
  }

  private seal(payload: string): string {
    return hmacSha256(this.links!.key, `object-download\n${payload}`).toString('base64url');
  }

  private nowMs(): number {
    return this.links?.now?.() ?? Date.now();
  }
}
