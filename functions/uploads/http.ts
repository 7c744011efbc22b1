// Uploads: a file stored for later use by the account (a contact import reads it by its key).
import { parseMultipart, MalformedMultipartError } from '../../shared/bimi/multipart';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import type { HttpRequest } from '../../shared/http/types';
import { storeUpload, type UploadFile } from '../../shared/uploads/service';
import { functionNamed } from '../manifest';

/** The file: the `file` part of a form, or the whole body with its own Content-Type. */
function fileOf(req: HttpRequest): UploadFile {
  const contentType = req.headers['content-type'];
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return { bytes: req.rawBody, declaredType: contentType };
  const part = parseMultipart(contentType, req.rawBody).find((p) => p.name === 'file');
  if (!part) throw new MalformedMultipartError('the form has no part named "file"');
  return { bytes: part.body, declaredType: part.contentType, filename: part.filename };
}

export const handler = createHttpHandler(functionNamed('uploads'), {
  'POST /v1/uploads': async (req, c) => json(201, await storeUpload(c, authOf(req).accountId, fileOf(req))),
});
