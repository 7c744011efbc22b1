// The rehearsal's S3 (rehearsal/s3.ts): s3rver behind a front that reads each S3 REST call as IAM
// does and asks the check, driven here by the S3 adapter the functions use, over real HTTP.
import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AwsCall, RecordedCall } from '../../rehearsal/aws-front';
import { readS3Call, startS3StandIn, type S3StandIn } from '../../rehearsal/s3';
import { S3ObjectStore } from '../../shared/adapters/aws/s3-object-store';

const BUCKET = 'postbox-rehearsal-data';
const KEY = { accessKeyId: 'ASIAREHEARSAL0000', secretAccessKey: 'rehearsal-secret-access-key' };

describe('reading an S3 call as IAM does', () => {
  it('names the action and the ARN from the method and the path-style bucket and key', () => {
    const auth = `AWS4-HMAC-SHA256 Credential=${KEY.accessKeyId}/20260101/us-east-1/s3/aws4_request, SignedHeaders=host, Signature=0`;
    const check = (method: string, url: string): AwsCall['checks'][number] => readS3Call(method, url, auth).checks[0]!;
    expect(check('GET', `/${BUCKET}/uploads/acc%201/f.csv?x-id=GetObject`)).toEqual({ action: 's3:GetObject', resource: `arn:aws:s3:::${BUCKET}/uploads/acc 1/f.csv` });
    expect(check('HEAD', `/${BUCKET}/k`)).toEqual({ action: 's3:GetObject', resource: `arn:aws:s3:::${BUCKET}/k` });
    expect(check('PUT', `/${BUCKET}/k`)).toEqual({ action: 's3:PutObject', resource: `arn:aws:s3:::${BUCKET}/k` });
    expect(check('DELETE', `/${BUCKET}/k`)).toEqual({ action: 's3:DeleteObject', resource: `arn:aws:s3:::${BUCKET}/k` });
    expect(check('GET', `/${BUCKET}?list-type=2`)).toEqual({ action: 's3:ListBucket', resource: `arn:aws:s3:::${BUCKET}` });
    expect(readS3Call('GET', `/${BUCKET}/k`, auth).accessKeyId).toBe(KEY.accessKeyId);
    // A presigned link carries its signer in the query.
    expect(readS3Call('GET', `/${BUCKET}/k?X-Amz-Credential=${KEY.accessKeyId}%2F20260101%2Fus-east-1%2Fs3%2Faws4_request`, undefined).accessKeyId).toBe(KEY.accessKeyId);
  });
});

describe('the S3 front before s3rver', () => {
  let s3: S3StandIn;
  let client: S3Client;
  let store: S3ObjectStore;
  let calls: RecordedCall[];
  /** Actions the caller's role is refused. */
  let refused: Set<string>;

  beforeAll(async () => {
    s3 = await startS3StandIn({
      buckets: [BUCKET],
      accessKeys: [KEY],
      authorize: (call) => call.checks.map((c) => c.action).find((action) => refused.has(action)) && `not authorized to perform: ${call.checks[0]!.action} on resource: ${call.checks[0]!.resource}`,
      record: (call) => calls.push(call),
    });
    // As a rehearsed function makes it: no endpoint in its config, the SDK's AWS_ENDPOINT_URL_S3
    // and checksum variables in its environment; here given directly.
    client = new S3Client({ region: 'us-east-1', credentials: KEY, endpoint: s3.endpoint, forcePathStyle: true, requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' });
    store = new S3ObjectStore(client, BUCKET);
  });
  afterAll(async () => {
    client?.destroy();
    await s3?.close();
  });
  beforeEach(() => {
    calls = [];
    refused = new Set();
  });

  it('passes allowed calls to s3rver and records each with its check', async () => {
    await store.put('uploads/acc_1/a.csv', Buffer.from('email\na@b.c\n'), 'text/csv');
    expect((await store.get('uploads/acc_1/a.csv'))?.body.toString()).toBe('email\na@b.c\n');
    await store.delete('uploads/acc_1/a.csv');
    expect(calls.map((c) => [c.operation, c.checks[0]!.action, c.accessKeyId, c.denied])).toEqual([
      ['PutObject', 's3:PutObject', KEY.accessKeyId, undefined],
      ['GetObject', 's3:GetObject', KEY.accessKeyId, undefined],
      ['DeleteObject', 's3:DeleteObject', KEY.accessKeyId, undefined],
    ]);
  });

  it('answers AccessDenied as S3 does when the role may not, and s3rver never sees the call', async () => {
    refused.add('s3:PutObject');
    await expect(store.put('k', Buffer.from('x'), 'text/plain')).rejects.toMatchObject({ name: 'AccessDenied', $metadata: { httpStatusCode: 403 } });
    refused.clear();
    await expect(store.get('k')).resolves.toBeUndefined();
    expect(calls[0]).toMatchObject({ operation: 'PutObject', denied: expect.stringContaining('s3:PutObject') });
  });

  it('says a key is missing only to a role that may list the bucket, as S3 does', async () => {
    await expect(store.get('never-written')).resolves.toBeUndefined();
    refused.add('s3:ListBucket');
    await expect(store.get('never-written')).rejects.toMatchObject({ name: 'AccessDenied' });
  });

  it('serves a presigned link through the front, checked as its signer', async () => {
    await store.put('inbound/raw/x', Buffer.from('raw mail'), 'message/rfc822');
    const link = await store.downloadUrl('inbound/raw/x', { expiresInS: 300, contentType: 'message/rfc822', contentDisposition: 'attachment; filename="x.eml"' });
    expect(new URL(link).origin).toBe(s3.endpoint);
    const answer = await fetch(link);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('content-disposition')).toBe('attachment; filename="x.eml"');
    expect(await answer.text()).toBe('raw mail');
    expect(calls.at(-1)).toMatchObject({ operation: 'GetObject', accessKeyId: KEY.accessKeyId });
    refused.add('s3:GetObject');
    expect((await fetch(link)).status).toBe(403);
  });
});
