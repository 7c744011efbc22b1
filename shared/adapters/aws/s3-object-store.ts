// The object store in AWS: the official S3 client's PutObject, GetObject and DeleteObject, and the
// S3 request presigner's GET links. Locally the same adapter talks to s3rver (the local runtime's
// embedded S3, local/emulators.ts); the rehearsal points the functions' clients at
// its own S3 front through AWS_ENDPOINT_URL_S3. Retries are the SDK's standard mode.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { DeleteObjectCommand, GetObjectCommand, PutObjectCommand, S3Client, S3ServiceException, type S3ClientConfig } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { DownloadOptions, ObjectStore, ObjectStream, StoredObject } from '../../ports/object-store';

/**
 * The client's settings for a bucket at `endpoint` (s3rver locally, a test's loopback server) or,
 * without one, S3 itself. Another endpoint is addressed path-style (`/bucket/key`: loopback has no
 * per-bucket host names), and checksums are sent only where an operation requires them: the SDK's
 * default streams uploads as `aws-chunked` with a trailing checksum, which s3rver stores verbatim
 * (a 6 MiB upload came back 46 bytes longer). S3 itself takes the defaults.
 */
export function s3ClientConfig(base: Pick<S3ClientConfig, 'region' | 'credentials'>, endpoint?: string): S3ClientConfig {
  if (!endpoint) return base;
  return { ...base, endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' };
}

/** S3 answered that the key is not there: NoSuchKey (or a bare 404 where the answer had no body, as for HEAD). */
const isMissing = (error: unknown): boolean =>
  error instanceof S3ServiceException && (error.name === 'NoSuchKey' || (error.name === 'NotFound' && error.$metadata.httpStatusCode === 404));

export class S3ObjectStore implements ObjectStore {
  constructor(
    private readonly client: S3Client,
    /** Empty in a function without the bucket grant: every call then fails plainly, sending nothing. */
    private readonly bucket: string,
  ) {}

  private bucketName(): string {
    if (!this.bucket) throw new Error('S3ObjectStore: no bucket is configured for this function');
    return this.bucket;
  }

  async put(key: string, body: Buffer, contentType: string): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucketName(), Key: key, Body: body, ContentType: contentType }));
  }

  async get(key: string): Promise<StoredObject | undefined> {
    const object = await this.read(key);
    if (!object) return undefined;
    const bytes = await object.body.transformToByteArray();
    return { body: Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength), contentType: object.contentType };
  }

  /** The file is streamed from disk; its length is sent ahead, as S3 needs for a body it cannot measure. */
  async putFile(key: string, path: string, contentType: string): Promise<void> {
    const bucket = this.bucketName();
    const { size } = await stat(path);
    await this.client.send(new PutObjectCommand({ Bucket: bucket, Key: key, Body: createReadStream(path), ContentLength: size, ContentType: contentType }));
  }

  async getStream(key: string): Promise<ObjectStream | undefined> {
    const object = await this.read(key);
    return object && { body: object.body as unknown as Readable, contentType: object.contentType, size: object.size };
  }

  /** S3's presigned GET, whose query sets the answer's Content-Type and Content-Disposition. */
  async downloadUrl(key: string, options: DownloadOptions): Promise<string> {
    const command = new GetObjectCommand({
      Bucket: this.bucketName(),
      Key: key,
      ResponseContentType: options.contentType,
      ResponseContentDisposition: options.contentDisposition,
    });
    return getSignedUrl(this.client, command, { expiresIn: options.expiresInS });
  }

  /** S3 answers alike whether or not the key existed. */
  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucketName(), Key: key }));
  }

  private async read(key: string) {
    try {
      const answer = await this.client.send(new GetObjectCommand({ Bucket: this.bucketName(), Key: key }));
      if (!answer.Body) throw new Error(`S3 GetObject ${key}: an answer without a body`);
      return { body: answer.Body, contentType: answer.ContentType ?? 'application/octet-stream', size: answer.ContentLength ?? 0 };
    } catch (error) {
      if (isMissing(error)) return undefined;
      throw error;
    }
  }
}
