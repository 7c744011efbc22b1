// Wire shapes of POST /v1/uploads. The request is a file, not JSON: its schemas describe the body
// for the OpenAPI document (a raw file, or a multipart form with a `file` part).
import * as z from 'zod';

const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** The file sent as the whole body, with its own Content-Type (text/csv, text/plain, application/json). */
export const rawUploadBody = z.string().meta({ description: 'The file itself, at most 2 MiB, labelled with its Content-Type' });

/** The file as the `file` part of a form (curl -F file=@contacts.csv, a browser form). */
export const multipartUploadBody = z
  .object({ file: z.string().meta({ format: 'binary', description: 'The file, at most 2 MiB; its part Content-Type or file name gives its type' }) })
  .meta({ description: 'multipart/form-data with a `file` part' });

export const uploadView = z.object({
  key: z.string().meta({ description: 'The stored file: pass it as object_key to POST /v1/contacts/import. Opaque; only this account can use it' }),
  size: z.number().int().meta({ description: 'Bytes stored' }),
  content_type: z.enum(['text/csv', 'text/plain', 'application/json']).meta({ description: 'The type the file was stored as' }),
  created_at: timestamp,
});

export type UploadView = z.infer<typeof uploadView>;
