// BIMI through the real handler: setting a hosted or uploaded logo, the SVG Tiny PS gate and the
// 1 MiB limit, the public logo route, scopes and other accounts, and the DNS readiness read from a
// real DNS server on loopback.
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as bimiHandler } from '../../functions/bimi/http';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { NodeDns } from '../../shared/adapters/node-dns';
import { keys } from '../../shared/db/keys';
import { DomainRepository } from '../../shared/domains/repository';
import { call } from '../support/api';
import type { TestContainer } from '../support/container';
import { startDnsServer, startSilentDnsServer, type RunningDns } from '../support/dns-server';
import { httpEvent, type HttpEventInput } from '../support/events';
import { useTestbed } from '../support/testbed';

const DOMAIN = 'acme.test';
const BOUNDARY = '----postbox-test-7MA4YWxkTrZu0gW';
const MULTIPART = `multipart/form-data; boundary=${BOUNDARY}`;
const HOSTED_URL = `http://api.test/v1/bimi/${DOMAIN}/logo.svg`;
const CUSTOMER_URL = 'https://cdn.acme.test/brand/logo.svg';
const STARTER_DMARC = `v=DMARC1; p=none; rua=mailto:dmarc-reports@${DOMAIN}`;
const validLogo = readFileSync(new URL('../fixtures/bimi/valid-logo.svg', import.meta.url));

const bed = useTestbed({ scopedKeys: true }); // the account owns DOMAIN, fully verified
let c: TestContainer;
let dns: RunningDns;

beforeAll(async () => {
  dns = await startDnsServer({});
});
afterAll(async () => dns.close());

beforeEach(async () => {
  c = bed.c;
  c.dns = new NodeDns([dns.server]);
  dns.publish(`_dmarc.${DOMAIN}`, { txt: [STARTER_DMARC] });
  dns.publish(`default._bimi.${DOMAIN}`, 'nxdomain');
});

function multipartBody(file: Buffer, options: { filename?: string; field?: string } = {}): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="brand"\r\n\r\nAcme\r\n`),
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${options.field ?? 'logo'}"; filename="${options.filename ?? 'logo.svg'}"\r\nContent-Type: image/svg+xml\r\n\r\n`),
    file,
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ]);
}

const admin = () => bed.account.admin_key;
const getState = (key = admin(), domain = DOMAIN) => call({ method: 'GET', path: `/v1/domains/${domain}/bimi`, key });
const putUrl = (body: unknown, key = admin(), domain = DOMAIN) => call({ method: 'PUT', path: `/v1/domains/${domain}/bimi`, key, body });
const upload = (file: Buffer, key = admin(), domain = DOMAIN, contentType = MULTIPART) =>
  call({ method: 'POST', path: `/v1/domains/${domain}/bimi/logo`, key, rawBody: asRawBody(multipartBody(file)), headers: { 'content-type': contentType } });

/** The public logo route, answered raw: its body is SVG, not JSON. */
async function fetchLogo(domain = DOMAIN, input: Partial<HttpEventInput> = {}) {
  const res = await bimiHandler(httpEvent({ method: 'GET', path: `/v1/bimi/${domain}/logo.svg`, ...input }));
  return { status: res.statusCode ?? 200, headers: res.headers ?? {}, body: res.body ?? '' };
}

/** A string that survives the pipeline's UTF-8 decoding of a non-base64 body byte for byte. */
const asRawBody = (bytes: Buffer): string => bytes.toString('utf8');

describe('GET /v1/domains/{domain}/bimi', () => {
  it('answers the state of a domain without a logo: empty logo_url, no record, DMARC advice', async () => {
    // Act
    const res = await getState();

    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      logo_url: '',
      record: null,
      dmarc: { at_enforcement: false, recommended: STARTER_DMARC.replace('p=none', 'p=quarantine') },
      bimi_published: false,
      vmc_note: expect.stringMatching(/Gmail and Apple Mail .*Verified Mark Certificate \(VMC\).*Common Mark Certificate.*Yahoo, AOL and Fastmail/),
    });
  });

  it('finds the domain whatever the case of the path', async () => {
    const res = await getState(admin(), 'ACME.Test');

    expect(res.status).toBe(200);
  });

  it('answers 404 for the built-in sandbox domain, saying why', async () => {
    const res = await getState(admin(), 'sandbox.test');

    expect(res.status).toBe(404);
    expect(res.body.error).toMatchObject({ code: 'not_found', message: expect.stringContaining('sandbox domain') });
  });
});

describe('PUT /v1/domains/{domain}/bimi', () => {
  it('stores an https logo URL and answers the record to publish', async () => {
    // Act
    const res = await putUrl({ logo_url: CUSTOMER_URL });

    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      logo_url: CUSTOMER_URL,
      record: { type: 'TXT', name: `default._bimi.${DOMAIN}`, value: `v=BIMI1; l=${CUSTOMER_URL}; a=` },
      bimi_published: false,
    });
    expect((await getState()).body).toEqual(res.body);
    const item = await new DomainRepository(c.store).get(bed.account.account_id, DOMAIN);
    expect(item?.bimi).toEqual({ logo_url: CUSTOMER_URL, logo_source: 'url', updated_at: c.clock.now().toISOString() });
  });

  it.each<[string, unknown, string]>([
    ['an http URL', { logo_url: 'http://cdn.acme.test/logo.svg' }, 'body.logo_url: must be an https URL'],
    ['something that is not a URL', { logo_url: 'logo.svg' }, 'body.logo_url: must be an https URL'],
    ['a URL that would break the record', { logo_url: 'https://cdn.acme.test/a;b.svg' }, 'body.logo_url: must not contain'],
    ['an unknown field', { logo_url: CUSTOMER_URL, a: 'vmc.pem' }, 'body'],
    ['no logo_url', {}, 'body.logo_url'],
    ['no body at all', undefined, 'body: a JSON body is required'],
  ])('answers 400 invalid_request for %s', async (_case, body, message) => {
    const res = await putUrl(body);

    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message.startsWith(message)).toBe(true);
  });
});

describe('POST /v1/domains/{domain}/bimi/logo', () => {
  it('accepts a valid SVG, hosts it and points the record at it', async () => {
    // Act
    const res = await upload(validLogo);

    // Assess
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ logo_url: HOSTED_URL, record: { type: 'TXT', name: `default._bimi.${DOMAIN}`, value: `v=BIMI1; l=${HOSTED_URL}; a=` } });
    const state = await getState();
    expect(state.body.logo_url).toBe(HOSTED_URL);
    expect(state.body.record).toEqual(res.body.record);
    const logo = await fetchLogo();
    expect(logo.status).toBe(200);
    expect(logo.headers).toMatchObject({ 'content-type': 'image/svg+xml', 'cache-control': 'public, max-age=3600', 'x-content-type-options': 'nosniff' });
    expect(logo.body).toBe(validLogo.toString('utf8'));
  });

  it('reads a base64-encoded body, as API Gateway delivers multipart uploads', async () => {
    // Prepare
    const event = httpEvent({ method: 'POST', path: `/v1/domains/${DOMAIN}/bimi/logo`, key: admin(), headers: { 'content-type': `multipart/form-data; boundary="${BOUNDARY}"` } });
    event.body = multipartBody(validLogo, { field: 'file' }).toString('base64');
    event.isBase64Encoded = true;

    // Act
    const res = await bimiHandler(event);

    // Assess
    expect(res.statusCode).toBe(200);
    expect((await fetchLogo()).body).toBe(validLogo.toString('utf8'));
  });

  it('answers 413 payload_too_large for a file of 1 MiB and 1 byte', async () => {
    const res = await upload(Buffer.alloc(1024 * 1024 + 1, 'a'));

    expect(res.status).toBe(413);
    expect(res.body.error).toEqual({ code: 'payload_too_large', status: 413, message: expect.stringContaining('1 MiB') });
    expect((await getState()).body.logo_url).toBe('');
  });

  it('accepts a valid SVG of exactly 1 MiB', async () => {
    // Prepare: pad the fixture with a comment up to the limit
    const frame = Buffer.concat([validLogo, Buffer.from('<!---->')]);
    const padded = Buffer.concat([validLogo, Buffer.from(`<!--${'x'.repeat(1024 * 1024 - frame.length)}-->`)]);

    // Act
    const res = await upload(padded);

    // Assess
    expect(padded.length).toBe(1024 * 1024);
    expect(res.status).toBe(200);
  });

  it('answers 400 naming every reason an SVG fails the profile, and keeps the previous logo', async () => {
    // Prepare
    await putUrl({ logo_url: CUSTOMER_URL });
    const bad = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 50"><script>x()</script></svg>');

    // Act
    const res = await upload(bad);

    // Assess
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('invalid_request');
    expect(res.body.error.message).toBe(
      'rejected BIMI file: the viewBox is not square (width 100, height 50); line 1: <script>: scripts are not allowed; the root <svg> needs a <title> child naming the brand',
    );
    expect((await getState()).body.logo_url).toBe(CUSTOMER_URL);
    expect((await fetchLogo()).status).toBe(404);
  });

  it.each<[string, string, string]>([
    ['an image', '<image width="10" height="10"/>', '<image>: embedded images are not allowed'],
    ['an event handler', '<rect width="1" height="1" onmouseover="x()"/>', 'onmouseover on <rect>: event handler attributes are not allowed'],
    ['an external reference', '<use href="https://evil.test/x.svg#a"/>', 'only references inside the file (#id) are allowed'],
    ['animation', '<animateTransform type="scale"/>', '<animateTransform>: animation is not allowed'],
  ])('answers 400 for %s', async (_case, element, reason) => {
    const svg = validLogo.toString('utf8').replace('</svg>', `${element}</svg>`);

    const res = await upload(Buffer.from(svg));

    expect(res.status).toBe(400);
    expect(res.body.error.message).toContain(reason);
  });

  it.each<[string, string | undefined, string]>([
    ['a raw SVG body instead of a form', 'image/svg+xml', 'body: expected Content-Type multipart/form-data with a file part, got "image/svg+xml"'],
    ['a multipart type without a boundary', 'multipart/form-data', 'body: the multipart Content-Type has no usable boundary parameter'],
    ['a different boundary than the body uses', 'multipart/form-data; boundary=other', 'body: the body does not contain the multipart boundary'],
  ])('answers 400 invalid_request for %s', async (_case, contentType, message) => {
    const res = await upload(validLogo, admin(), DOMAIN, contentType);

    expect(res.status).toBe(400);
    expect(res.body.error).toEqual({ code: 'invalid_request', status: 400, message });
  });

  it('answers 400 for a JSON body', async () => {
    const res = await call({ method: 'POST', path: `/v1/domains/${DOMAIN}/bimi/logo`, key: admin(), body: { logo_url: CUSTOMER_URL } });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('body: expected Content-Type multipart/form-data with a file part, got "application/json"');
  });

  it('answers 400 for a form with no file part', async () => {
    const body = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="logo"\r\n\r\n${validLogo.toString('utf8')}\r\n--${BOUNDARY}--\r\n`;

    const res = await call({ method: 'POST', path: `/v1/domains/${DOMAIN}/bimi/logo`, key: admin(), rawBody: asRawBody(Buffer.from(body)), headers: { 'content-type': MULTIPART } });

    expect(res.status).toBe(400);
    expect(res.body.error.message).toBe('body: the multipart body has no file part (a part with a filename)');
  });
});

describe('GET /v1/bimi/{domain}/logo.svg', () => {
  it('needs no credentials and answers 404 in the envelope when nothing was uploaded', async () => {
    const res = await fetchLogo();

    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toEqual({ error: { code: 'not_found', message: 'BIMI logo not found', status: 404 } });
  });

  it('answers 404 for a domain nobody holds', async () => {
    expect((await fetchLogo('nobody.test')).status).toBe(404);
  });

  it('keeps serving an uploaded logo after the URL moves elsewhere, so a published record keeps working', async () => {
    await upload(validLogo);
    await putUrl({ logo_url: CUSTOMER_URL });

    const res = await fetchLogo();

    expect(res.status).toBe(200);
  });

  it('is limited per client IP', async () => {
    const answers: number[] = [];
    for (let i = 0; i < 11; i++) answers.push((await fetchLogo(DOMAIN, { sourceIp: '203.0.113.99' })).status);

    expect(answers.slice(0, 10).every((s) => s === 404)).toBe(true);
    expect(answers[10]).toBe(429);
  });
});

describe('access', () => {
  it('answers 404 on every key route for a domain another account holds', async () => {
    // Prepare
    const other = await createAccount(c, {});
    await upload(validLogo);

    // Act
    const answers = [
      await getState(other.admin_key),
      await putUrl({ logo_url: CUSTOMER_URL }, other.admin_key),
      await upload(validLogo, other.admin_key),
    ];

    // Assess
    for (const res of answers) expect(res.body.error).toEqual({ code: 'not_found', status: 404, message: 'domain not found' });
    expect((await getState()).body.logo_url).toBe(HOSTED_URL);
  });

  it('lets a read key read the state but not change it; a send key cannot read it', async () => {
    const reads = await getState(bed.readKey);
    const puts = await putUrl({ logo_url: CUSTOMER_URL }, bed.readKey);
    const posts = await upload(validLogo, bed.readKey);
    const sendRead = await getState(bed.sendKey);

    expect(reads.status).toBe(200);
    expect([puts.status, puts.body.error.code]).toEqual([403, 'forbidden']);
    expect([posts.status, posts.body.error.code]).toEqual([403, 'forbidden']);
    expect(sendRead.status).toBe(403);
  });

  it('answers 401 without a key', async () => {
    const res = await call({ method: 'GET', path: `/v1/domains/${DOMAIN}/bimi` });

    expect(res.status).toBe(401);
  });
});

describe('DNS readiness', () => {
  it('sees DMARC at enforcement and the BIMI record published', async () => {
    // Prepare
    dns.publish(`_dmarc.${DOMAIN}`, { txt: ['v=spf1 -all', `v=DMARC1; p=reject; rua=mailto:reports@${DOMAIN}; adkim=s`] });
    await putUrl({ logo_url: CUSTOMER_URL });
    dns.publish(`default._bimi.${DOMAIN}`, { txt: [[`v=BIMI1; l=${CUSTOMER_URL};`, ' a='] ] });

    // Act
    const res = await getState();

    // Assess
    expect(res.body).toMatchObject({
      dmarc: { at_enforcement: true, recommended: `v=DMARC1; p=reject; rua=mailto:reports@${DOMAIN}; adkim=s` },
      bimi_published: true,
    });
  });

  it.each<[string, string, boolean]>([
    ['p=none', STARTER_DMARC, false],
    ['p=quarantine', 'v=DMARC1; p=quarantine', true],
    ['p=quarantine at pct=25', 'v=DMARC1; p=quarantine; pct=25', false],
  ])('reads %s as at enforcement %s', async (_case, record, expected) => {
    dns.publish(`_dmarc.${DOMAIN}`, { txt: [record] });

    const res = await getState();

    expect(res.body.dmarc.at_enforcement).toBe(expected);
  });

  it('does not call a BIMI record for another logo published', async () => {
    await upload(validLogo);
    dns.publish(`default._bimi.${DOMAIN}`, { txt: [`v=BIMI1; l=${CUSTOMER_URL}; a=`] });

    const res = await getState();

    expect(res.body.bimi_published).toBe(false);
  });

  it('reports a resolver that never answers as not ready, not as an error', async () => {
    // Prepare
    const silent = await startSilentDnsServer();
    try {
      c.dns = new NodeDns([silent.server], 200);
      await putUrl({ logo_url: CUSTOMER_URL });

      // Act
      const res = await getState();

      // Assess
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ logo_url: CUSTOMER_URL, dmarc: { at_enforcement: false, recommended: `v=DMARC1; p=quarantine; rua=mailto:dmarc-reports@${DOMAIN}` }, bimi_published: false });
      expect(silent.received()).toBeGreaterThan(0);
      expect(c.logs.some((l) => l.level === 'warn' && String(l.msg).startsWith('BIMI state: DNS lookup got no answer'))).toBe(true);
    } finally {
      await silent.close();
    }
  });
});
