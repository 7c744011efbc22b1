// Uploads: a file stored for later use by the account, and the contact import that reads one (it
// runs in the background: functions/uploads/import-contacts.ts).
import { parseMultipart, MalformedMultipartError } from '../../shared/formats/multipart';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import type { HttpRequest } from '../../shared/http/types';
import { startImportBody } from '../../shared/audiences/imports/schemas';
import { readImport, startImport } from '../../shared/audiences/imports/service';
import { contactImportTarget } from '../../shared/audiences/imports/contacts-target';
import { parseInput } from '../../shared/http/validate';
import { storeUpload, type UploadFile } from '../../shared/audiences/uploads/service';
import { functionNamed } from '../manifest';
import { uploads } from './definition';

/** The file: the `file` part of a form, or the whole body with its own Content-Type. */
function fileOf(req: HttpRequest): UploadFile {
  const contentType = req.headers['content-type'];
  if (!/^multipart\/form-data\b/i.test(contentType ?? '')) return { bytes: req.rawBody, declaredType: contentType };
  const part = parseMultipart(contentType, req.rawBody).find((p) => p.name === 'file');
  if (!part) throw new MalformedMultipartError('the form has no part named "file"');
  return { bytes: part.body, declaredType: part.contentType, filename: part.filename };
}

export const handler = createHttpHandler(uploads, {
  'POST /v1/uploads': async (req, c) => json(201, await storeUpload(c, authOf(req).accountId, fileOf(req))),
  'POST /v1/contacts/import': async (req, c) => {
    const { id, status } = await startImport(c, contactImportTarget(c), authOf(req).accountId, parseInput(startImportBody, req.body));
    return json(202, { id, status });
  },
  'GET /v1/contacts/imports/{id}': async (req, c) => json(200, await readImport(c.store, authOf(req).accountId, req.params.id ?? '')),
});
