// POST /v1/uploads through the handler: a raw body and a multipart `file` part, the 2 MiB limit
// (exactly 2 MiB stored, one byte over refused with nothing stored), empty and refused types,
// the key under the account's own prefix, and who may call it.
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { createKey } from '../../shared/accounts/api-keys/service';
import { UPLOAD_MAX_BYTES, uploadKeyOwnedBy } from '../../shared/audiences/uploads/service';
import { type TestContainer } from '../support/container';
import { useTestbed } from '../support/testbed';
import { expectError } from '../support/errors';

const BOUNDARY = '----postbox-upload-5c0ffee';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const CSV = 'email,first_name\r\nada@example.com,Ada\r\n';

const bed = useTestbed({ scopedKeys: true });
let c: TestContainer;
beforeEach(() => {
  c = bed.c;
});

const raw = (body: string, contentType = 'text/csv', key = bed.sendKey) =>
  bed.request({ method: 'POST', path: '/v1/uploads', key, rawBody: body, headers: { 'content-type': contentType } });

function form(content: string, part: { field?: string; filename?: string; contentType?: string | null } = {}): string {
  const type = part.contentType === null ? '' : `Content-Type: ${part.contentType ?? 'text/csv'}\r\n`;
  return (
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="note"\r\n\r\nmarch list\r\n` +
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${part.field ?? 'file'}"; filename="${part.filename ?? 'contacts.csv'}"\r\n${type}\r\n` +
    content +
    `\r\n--${BOUNDARY}--\r\n`
  );
}
const multipart = (body: string, key = bed.sendKey) => bed.request({ method: 'POST', path: '/v1/uploads', key, rawBody: body, headers: { 'content-type': MULTIPART } });

const stored = (key: string) => c.objects.get(key);

describe('POST /v1/uploads', () => {
  it('stores a raw text/csv body under the account prefix and answers its key', async () => {
    const res = await raw(CSV, 'text/csv; charset=utf-8');

    expect(res.status).toBe(201);
    expect(res.body).toEqual({ key: expect.any(String), size: Buffer.byteLength(CSV), content_type: 'text/csv', created_at: c.clock.now().toISOString() });
    expect(res.body.key).toMatch(new RegExp(`^uploads/${bed.account.account_id}/upl_[0-9a-z]{26}\\.csv$`));
    expect(uploadKeyOwnedBy(bed.account.account_id, res.body.key)).toBe('own');
    const object = await stored(res.body.key);
    expect(object?.body.toString('utf8')).toBe(CSV);
    expect(object?.contentType).toBe('text/csv');
  });

  it('takes a JSON file raw without parsing it, and plain text', async () => {
    const json = await raw('{"not": "parsed", ', 'application/json');
    expect(json.status).toBe(201);
    expect(json.body).toMatchObject({ content_type: 'application/json', size: 18 });
    expect(json.body.key).toMatch(/\.json$/);

    const text = await raw('hello\n', 'text/plain');
    expect(text.body).toMatchObject({ content_type: 'text/plain' });
    expect(text.body.key).toMatch(/\.txt$/);
  });

  it('stores the multipart part named "file", its bytes alone', async () => {
    const res = await multipart(form(CSV));

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ size: Buffer.byteLength(CSV), content_type: 'text/csv' });
    expect((await stored(res.body.key))?.body.toString('utf8')).toBe(CSV);
  });

  it('judges a part labelled vnd.ms-excel or octet-stream, or not at all, by its file name', async () => {
    for (const contentType of ['application/vnd.ms-excel', 'application/octet-stream', null]) {
      const res = await multipart(form(CSV, { contentType, filename: 'Export.CSV' }));
      expect(res.status).toBe(201);
      expect(res.body.content_type).toBe('text/csv');
    }
    const json = await multipart(form('[]', { contentType: 'application/octet-stream', filename: 'list.json' }));
    expect(json.body.content_type).toBe('application/json');
  });

  it('never puts the file name in the key', async () => {
    const res = await multipart(form(CSV, { filename: '../../acct_other/evil.csv' }));
    expect(res.status).toBe(201);
    expect(res.body.key).not.toContain('evil');
    expect(res.body.key).not.toContain('..');
  });

  it('stores exactly 2 MiB', async () => {
    const body = 'email\n' + 'x'.repeat(UPLOAD_MAX_BYTES - 6);
    const res = await raw(body);
    expect(res.status).toBe(201);
    expect(res.body.size).toBe(UPLOAD_MAX_BYTES);
  });

  it('refuses one byte over 2 MiB with 413, raw or as a form part, and stores nothing', async () => {
    const put = vi.spyOn(c.objects, 'put');
    try {
      const over = 'email\n' + 'x'.repeat(UPLOAD_MAX_BYTES - 5);
      expectError(await raw(over), 413, 'payload_too_large', /2097153 bytes; the limit is 2097152/);
      expectError(await multipart(form(over)), 413, 'payload_too_large');
      expect(put).not.toHaveBeenCalled();
    } finally {
      put.mockRestore();
    }
  });

  it('refuses an empty file, raw or as a part', async () => {
    expectError(await raw(''), 400, 'invalid_request', /^body: the file is empty/);
    expectError(await multipart(form('')), 400, 'invalid_request', /^body: the file is empty/);
  });

  it('refuses a form without a part named "file", and a malformed form', async () => {
    expectError(await multipart(form(CSV, { field: 'upload' })), 400, 'invalid_request', /no part named "file"/);
    expectError(await multipart('not a form'), 400, 'invalid_request', /^body: /);
  });

  it('refuses types it does not take, and text that is not UTF-8', async () => {
    expectError(await raw('GIF89a', 'image/gif'), 400, 'invalid_request', /"image\/gif" are not accepted/);
    expectError(await multipart(form('PK', { contentType: 'application/octet-stream', filename: 'contacts.xlsx' })), 400, 'invalid_request', /not accepted/);
    const latin1 = Buffer.from('email,first_name\nzoe@example.com,Zoë\n', 'latin1').toString('base64');
    const res = await bed.request({ method: 'POST', path: '/v1/uploads', key: bed.sendKey, rawBody: latin1, headers: { 'content-type': 'text/csv' }, base64: true });
    expectError(res, 400, 'invalid_request', /not UTF-8/);
  });

  it('is refused to a read key (403), taken from an admin key and a test-mode key, and needs a key (401)', async () => {
    expectError(await raw(CSV, 'text/csv', bed.readKey), 403, 'forbidden');
    expect((await raw(CSV, 'text/csv', bed.account.admin_key)).status).toBe(201);
    const testKey = (await createKey(c, bed.account.account_id, { scope: 'send', test_mode: true }, { testMode: true })).key;
    expect((await raw(CSV, 'text/csv', testKey)).status).toBe(201);
    expectError(await bed.request({ method: 'POST', path: '/v1/uploads', rawBody: CSV, headers: { 'content-type': 'text/csv' } }), 401, 'unauthorized');
  });
});

describe('upload keys', () => {
  it('belong to their account alone; a name we do not make is unknown, not a path', () => {
    expect(uploadKeyOwnedBy('acct_a', 'uploads/acct_a/upl_01arz3ndektsv4rrffq69g5fav.csv')).toBe('own');
    expect(uploadKeyOwnedBy('acct_a', 'uploads/acct_b/upl_01arz3ndektsv4rrffq69g5fav.csv')).toBe('outside');
    expect(uploadKeyOwnedBy('acct_a', 'uploads/acct_ab/upl_01arz3ndektsv4rrffq69g5fav.csv')).toBe('outside');
    expect(uploadKeyOwnedBy('acct_a', 'bimi/acct_a/acme.test.svg')).toBe('outside');
    expect(uploadKeyOwnedBy('acct_a', 'uploads/acct_a/../acct_b/upl_01arz3ndektsv4rrffq69g5fav.csv')).toBe('unknown');
    expect(uploadKeyOwnedBy('acct_a', 'uploads/acct_a/')).toBe('unknown');
  });
});
