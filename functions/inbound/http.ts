// Received mail: the list, the full form, the raw message and attachments. Bodies are served as
// received; what is served as a file carries nosniff (every answer does) and, for attachments,
// Content-Disposition: attachment, so a browser never renders received HTML on the API's origin.
import { attachmentOf, listInbound, rawOf, readInbound, type ServedFile } from '../../shared/inbound-mail/receipt/read';
import { inboundOnly } from '../../shared/http/inbound-gate';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, redirect } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { NotFoundError } from '../../shared/errors';
import { functionNamed } from '../manifest';
import { inbound } from './definition';

/** A 0-based index as written in the path: digits only, nothing else is an attachment. */
function indexOf(raw: string | undefined): number {
  if (!raw || !/^\d{1,6}$/.test(raw)) throw new NotFoundError('attachment');
  return Number(raw);
}

/**
 * A file's answer: its bytes, or a 302 to a short-lived link when it is too large for a Lambda
 * answer. A received file may be HTML or SVG: if a browser opens it anyway, nothing in it runs.
 */
function served(file: ServedFile): HttpResult {
  if (file.kind === 'link') return redirect(302, file.url);
  return {
    status: 200,
    body: file.body,
    headers: { 'content-type': file.contentType, 'content-disposition': file.contentDisposition, 'content-security-policy': "default-src 'none'; sandbox" },
  };
}

export const handler = createHttpHandler(inbound, inboundOnly({
  'GET /v1/inbound': async (req, c) => {
    return listed('emails', await listInbound(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'GET /v1/inbound/{id}': async (req, c) => {
    return json(200, await readInbound(c, authOf(req).accountId, req.params.id ?? ''));
  },
  'GET /v1/inbound/{id}/raw': async (req, c) => {
    return served(await rawOf(c, authOf(req).accountId, req.params.id ?? ''));
  },
  'GET /v1/inbound/{id}/attachments/{index}': async (req, c) => {
    return served(await attachmentOf(c, authOf(req).accountId, req.params.id ?? '', indexOf(req.params.index)));
  },
}));
