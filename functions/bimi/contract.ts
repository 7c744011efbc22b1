import { bimiStateView, logoUploadBody, setLogoUrlBody } from '../../shared/domains/bimi/schemas';
import { domainParams } from '../../shared/domains/schemas';
import type { ContractsOf } from '../../shared/http/contract';
import type { bimi } from './definition';

const missing = { domain: 'not-registered.example' };

const VALID_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 100"><title>Example</title><rect width="100" height="100" fill="#c40000"/></svg>';
const INVALID_LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" version="1.2" baseProfile="tiny-ps" viewBox="0 0 100 50"><script>alert(1)</script></svg>';

/**
 * A multipart example body: each property is a form part; an object with `filename` is a file part
 * (`content` its bytes as UTF-8, `content_type` its Content-Type), a string a plain field.
 */
const logoForm = (content: string) => ({ file: { filename: 'logo.svg', content_type: 'image/svg+xml', content } });

export const contracts: ContractsOf<typeof bimi> = {
  'GET /v1/domains/{domain}/bimi': {
    operationId: 'getDomainBimi',
    description:
      'The logo, the TXT record to publish at `default._bimi.<domain>`, whether DMARC is at enforcement (BIMI needs `p=quarantine` or `p=reject` at 100 percent) with the DMARC record to publish, and whether the BIMI record is live. ' +
      'DNS that does not answer reads as "not published" and "not at enforcement", never an error. The built-in sandbox domain has no BIMI settings (404).',
    params: domainParams,
    responses: { 200: { description: 'The BIMI state', schema: bimiStateView } },
    errors: [],
    examples: [
      { name: 'no logo yet', params: { domain: '{{domain}}' }, status: 200 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
  'PUT /v1/domains/{domain}/bimi': {
    operationId: 'setDomainBimiLogoUrl',
    description:
      'Points BIMI at a logo you host: an https URL of at most 2048 characters without `;`, `,` or spaces (they would break the record), serving a square SVG Tiny PS file. ' +
      'The URL is not fetched. A logo uploaded earlier stays served, so a record already published keeps working until DNS changes.',
    params: domainParams,
    body: setLogoUrlBody,
    responses: { 200: { description: 'The BIMI state with the new logo and its record', schema: bimiStateView } },
    errors: [],
    examples: [
      { name: 'a hosted logo', params: { domain: '{{domain}}' }, body: { logo_url: 'https://cdn.example.com/brand/logo.svg' }, status: 200 },
      { name: 'an http URL', params: { domain: '{{domain}}' }, body: { logo_url: 'http://cdn.example.com/brand/logo.svg' }, status: 400 },
      { name: 'no such domain', params: missing, body: { logo_url: 'https://cdn.example.com/brand/logo.svg' }, status: 404 },
    ],
  },
  'POST /v1/domains/{domain}/bimi/logo': {
    operationId: 'uploadDomainBimiLogo',
    description:
      'Uploads the logo as `multipart/form-data`: the first part that carries a filename is the file, whatever its field name; other parts are ignored. ' +
      'Checked in this order: the multipart framing (400 `invalid_request`, `body: …`), the domain (404), the size (413 `payload_too_large` over 1 MiB; exactly 1 MiB is accepted), ' +
      'then the SVG Tiny PS profile (400 `invalid_request`, `rejected BIMI file: …` naming every problem found, up to 25): version 1.2, baseProfile tiny-ps, a square viewBox, a `<title>`, ' +
      'no scripts, no external references, no DOCTYPE internal subset. The file is then served publicly at `GET /v1/bimi/{domain}/logo.svg` and becomes `logo_url`.',
    params: domainParams,
    body: logoUploadBody,
    bodyContentType: 'multipart/form-data',
    responses: { 200: { description: 'The BIMI state with the hosted logo and its record', schema: bimiStateView } },
    errors: [],
    examples: [
      { name: 'a valid SVG Tiny PS logo', params: { domain: '{{domain}}' }, body: logoForm(VALID_LOGO), status: 200 },
      { name: 'a logo that fails the profile', params: { domain: '{{domain}}' }, body: logoForm(INVALID_LOGO), status: 400 },
      { name: 'no such domain', params: missing, body: logoForm(VALID_LOGO), status: 404 },
    ],
  },
  'GET /v1/bimi/{domain}/logo.svg': {
    operationId: 'getBimiLogo',
    description:
      'The uploaded logo, for anyone: mailbox providers fetch it without credentials. Served as `image/svg+xml` with `Cache-Control: public, max-age=3600`, `X-Content-Type-Options: nosniff` ' +
      "and `Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'`. A domain with no uploaded logo (a logo URL you host included) is 404. Limited per client IP.",
    params: domainParams,
    responses: { 200: { description: 'The SVG file', contentType: 'image/svg+xml' } },
    errors: [],
    examples: [{ name: 'no uploaded logo', params: { domain: '{{domain}}' }, status: 404, as: 'none' }],
  },
};
