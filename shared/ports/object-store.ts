import type { Readable } from 'node:stream';

export interface StoredObject {
  body: Buffer;
  contentType: string;
}

/** An object read as a stream: its bytes are never all in memory at once. */
export interface ObjectStream {
  body: Readable;
  contentType: string;
  /** Bytes in the object. */
  size: number;
}

/** How a download link serves the object it names. */
export interface DownloadOptions {
  /** Seconds the link works for. */
  expiresInS: number;
  /** Content-Type of the answer. */
  contentType: string;
  /** Content-Disposition of the answer (a file name, as `contentDisposition` builds it). */
  contentDisposition: string;
}

/**
 * Large message content, inbound mail and its attachments, BIMI logos, uploads: S3 in AWS, s3rver
 * (files under DATA_DIR/s3) locally. `put`/`get` take whole buffers for small objects; `putFile`/`getStream`
 * move a large object without holding it in memory, and `downloadUrl` lets a client fetch one
 * directly (a Lambda answer is capped at 6 MB).
 */
export interface ObjectStore {
  put(key: string, body: Buffer, contentType: string): Promise<void>;
  /** Undefined when no object has this key. */
  get(key: string): Promise<StoredObject | undefined>;
  delete(key: string): Promise<void>;
  /** Stores a file's bytes, streamed from disk. */
  putFile(key: string, path: string, contentType: string): Promise<void>;
  /** Undefined when no object has this key. */
  getStream(key: string): Promise<ObjectStream | undefined>;
  /** A time-limited link that serves the object over HTTP(S) without an API key (S3's presigned GET; s3rver's locally). */
  downloadUrl(key: string, options: DownloadOptions): Promise<string>;
}
