// The stack's buckets, played by s3rver behind a checking front. s3rver keeps the objects (in a
// temp dir, removed on close) but checks no permissions, so the front reads each S3 REST request
// as IAM does (method and path-style /bucket/key → s3:GetObject, PutObject, DeleteObject or
// ListBucket on the bucket's or the object's ARN; the caller's access key id from the
// Authorization header or, for a presigned link, X-Amz-Credential), asks the IAM check, answers
// S3's AccessDenied when refused, and otherwise streams the request on unchanged. As S3 does, a
// missing key answers 404 NoSuchKey only to a caller that may list the bucket, and 403
// AccessDenied to one that may not. Bucket policies are not evaluated (the IAM check reads
// identity policies): a note says so.
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, request, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startS3, type Running } from '../local/emulators';
import type { AwsCall, Authorize, Check, RecordedCall } from './aws-front';
import { accessKeyIdOf } from './secrets';
import { listenOnLoopback } from './loopback';

export interface S3StandIn {
  /** The front the functions reach (AWS_ENDPOINT_URL_S3). */
  endpoint: string;
  /** s3rver itself, for the rehearsal's own calls (making the buckets). */
  upstream: string;
  close(): Promise<void>;
}

const bucketArn = (bucket: string): string => `arn:aws:s3:::${bucket}`;

/** Reads an S3 REST request (path-style) as IAM sees it. */
export function readS3Call(method: string, url: string, authorization: string | undefined): AwsCall {
  const parsed = new URL(url, 'http://s3');
  const [bucket = '', ...rest] = parsed.pathname.slice(1).split('/');
  const key = rest.map(decodeURIComponent).join('/');
  const credential = parsed.searchParams.get('X-Amz-Credential');
  const accessKeyId = accessKeyIdOf(authorization) ?? credential?.split('/')[0];
  const object = (operation: string, action: string): AwsCall => ({ service: 's3', operation, checks: [{ action, resource: `${bucketArn(decodeURIComponent(bucket))}/${key}` }], accessKeyId });
  const onBucket = (operation: string, action: string): AwsCall => ({ service: 's3', operation, checks: [{ action, resource: bucketArn(decodeURIComponent(bucket)) }], accessKeyId });
  if (!bucket) return { service: 's3', operation: 'ListBuckets', checks: [{ action: 's3:ListAllMyBuckets', resource: '*' }], accessKeyId };
  if (!key) {
    if (method === 'GET' || method === 'HEAD') return onBucket(method === 'GET' ? 'ListObjects' : 'HeadBucket', 's3:ListBucket');
    if (method === 'PUT') return onBucket('CreateBucket', 's3:CreateBucket');
    if (method === 'DELETE') return onBucket('DeleteBucket', 's3:DeleteBucket');
    // POST /bucket?delete (DeleteObjects) is checked as s3:DeleteObject on every object.
    return { service: 's3', operation: 'DeleteObjects', checks: [{ action: 's3:DeleteObject', resource: `${bucketArn(decodeURIComponent(bucket))}/*` }], accessKeyId };
  }
  if (method === 'GET') return object('GetObject', 's3:GetObject');
  if (method === 'HEAD') return object('HeadObject', 's3:GetObject');
  if (method === 'DELETE') return object('DeleteObject', 's3:DeleteObject');
  return object(parsed.searchParams.has('uploadId') || parsed.searchParams.has('uploads') ? 'MultipartUpload' : 'PutObject', 's3:PutObject');
}

function s3Error(res: ServerResponse, status: number, code: string, message: string): void {
  const escaped = message.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);
  res.writeHead(status, { 'content-type': 'application/xml' });
  res.end(`<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code><Message>${escaped}</Message></Error>`);
}

/** s3rver in a worker thread, with the buckets made, and the checking front before it. */
export async function startS3StandIn(options: {
  buckets: string[];
  /** The key pairs of the callers (each role's, the rehearsal's own): s3rver refuses keys it does not know. */
  accessKeys: Array<{ accessKeyId: string; secretAccessKey: string }>;
  authorize: Authorize;
  record: (call: RecordedCall) => void;
}): Promise<S3StandIn> {
  const directory = mkdtempSync(join(tmpdir(), 'postbox-rehearsal-s3-'));
  let s3: Running;
  try {
    s3 = await startS3({ directory, buckets: options.buckets, accessKeys: options.accessKeys });
  } catch (error) {
    rmSync(directory, { recursive: true, force: true });
    throw error;
  }
  const target = new URL(s3.endpoint);
  const mayList = (call: AwsCall): boolean => {
    const listing: Check = { action: 's3:ListBucket', resource: call.checks[0]!.resource.split('/')[0]! };
    return options.authorize({ ...call, checks: [listing] }) === undefined;
  };
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const method = req.method ?? 'GET';
    const call = readS3Call(method, req.url ?? '/', req.headers.authorization);
    const denied = options.authorize(call);
    options.record({ ...call, ...(denied ? { denied } : {}) });
    if (denied) {
      req.resume();
      return s3Error(res, 403, 'AccessDenied', denied);
    }
    const forward = request({ host: target.hostname, port: target.port, method, path: req.url, headers: { ...req.headers, host: target.host } }, (answer) => {
      const objectRead = (method === 'GET' || method === 'HEAD') && call.checks[0]!.resource.includes('/');
      if (answer.statusCode === 404 && objectRead && !mayList(call)) {
        answer.resume();
        return s3Error(res, 403, 'AccessDenied', `Access Denied (the key is missing, and without s3:ListBucket S3 does not say so)`);
      }
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    forward.on('error', (error) => {
      if (!res.headersSent) return s3Error(res, 502, 'InternalError', `s3rver did not answer: ${error.message}`);
      res.destroy();
    });
    req.pipe(forward);
  });
  const listening = await listenOnLoopback(server);
  return {
    endpoint: listening.endpoint,
    upstream: s3.endpoint,
    close: async () => {
      await listening.close();
      await s3.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
