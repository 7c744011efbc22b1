import { functionNamed } from '../manifest';
import { bimi } from './definition';
import { firstFilePart, parseMultipart } from '../../shared/formats/multipart';
import { setLogoUrlBody } from '../../shared/domains/bimi/schemas';
import { getBimiState, LOGO_CONTENT_TYPE, readHostedLogo, setLogoUrl, uploadLogo } from '../../shared/domains/bimi/service';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';

// The logo is served from the API's own origin: no script may run even if a browser opens it.
const LOGO_HEADERS = {
  'content-type': LOGO_CONTENT_TYPE,
  'cache-control': 'public, max-age=3600',
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
};

export const handler = createHttpHandler(bimi, {
  'GET /v1/domains/{domain}/bimi': async (req, c) => json(200, await getBimiState(c, authOf(req).accountId, req.params.domain ?? '')),
  'PUT /v1/domains/{domain}/bimi': async (req, c) => {
    const body = parseInput(setLogoUrlBody, req.body);
    return json(200, await setLogoUrl(c, authOf(req).accountId, req.params.domain ?? '', body));
  },
  'POST /v1/domains/{domain}/bimi/logo': async (req, c) => {
    const file = firstFilePart(parseMultipart(req.headers['content-type'], req.rawBody));
    return json(200, await uploadLogo(c, authOf(req).accountId, req.params.domain ?? '', { file: file.body, baseUrl: req.baseUrl }));
  },
  'GET /v1/bimi/{domain}/logo.svg': async (req, c) => ({
    status: 200,
    body: (await readHostedLogo(c, req.params.domain ?? '')).toString('utf8'),
    headers: LOGO_HEADERS,
  }),
});
