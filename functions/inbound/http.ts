// Received mail: the list, the full form, the raw message and attachments. Bodies are served as
// received; what is served as a file carries nosniff (every answer does) and, for attachments,
// Content-Disposition: attachment, so a browser never renders received HTML on the API's origin.
import { attachmentOf, contentDisposition, listInbound, rawOf, readInbound, requireInbound } from '../../shared/inbound/read';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json } from '../../shared/http/respond';
import { NotFoundError } from '../../shared/errors';
import { functionNamed } from '../manifest';

/** A 0-based index as written in the path: digits only, nothing else is an attachment. */
function indexOf(raw: string | undefined): number {
  if (!raw || !/^\d{1,6}$/.test(raw)) throw new NotFoundError('attachment');
  return Number(raw);
}

export const handler = createHttpHandler(functionNamed('inbound'), {
  'GET /v1/inbound': async (req, c) => {
    requireInbound(c.config);
    return listed('emails', await listInbound(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'GET /v1/inbound/{id}': async (req, c) => {
    requireInbound(c.config);
    return json(200, await readInbound(c, authOf(req).accountId, req.params.id ?? ''));
  },
  'GET /v1/inbound/{id}/raw': async (req, c) => {
    requireInbound(c.config);
    const raw = await rawOf(c, authOf(req).accountId, req.params.id ?? '');
    return { status: 200, body: raw, headers: { 'content-type': 'message/rfc822', 'content-disposition': contentDisposition(null, `${req.params.id}.eml`) } };
  },
  'GET /v1/inbound/{id}/attachments/{index}': async (req, c) => {
    requireInbound(c.config);
    const file = await attachmentOf(c, authOf(req).accountId, req.params.id ?? '', indexOf(req.params.index));
    return {
      status: 200,
      body: file.body,
      headers: {
        'content-type': file.contentType,
        'content-disposition': contentDisposition(file.filename, `attachment-${req.params.index}`),
        // An attachment may be HTML or SVG: if a browser opens it anyway, nothing in it runs.
        'content-security-policy': "default-src 'none'; sandbox",
      },
    };
  },
});
