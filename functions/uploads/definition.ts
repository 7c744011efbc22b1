// The uploads and contact-import functions (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND, SEND_LIVE } from '../access';

export const uploads = defineFunction({
  name: 'uploads',
  entry: 'functions/uploads/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/uploads', access: SEND, body: 'raw', summary: 'Store a file (CSV, text or JSON, at most 2 MiB) for a later import' },
    { method: 'POST', path: '/v1/contacts/import', access: SEND_LIVE, summary: 'Import contacts from an uploaded CSV; runs in the background (202)' },
    { method: 'GET', path: '/v1/contacts/imports/{id}', access: SEND_OR_READ, summary: 'A contact import: status, counts and the first 100 row errors' },
  ],
  // The bucket: uploads are stored there under the account's prefix; an import checks its file is there.
  needs: { table: 'readwrite', bucket: 'readwrite', sendTo: ['imports'] },
  memoryMb: 512,
  timeoutSeconds: 15,
});

export const contactImport = defineFunction({
  name: 'contact-import',
  entry: 'functions/uploads/import-contacts.ts',
  handler: 'handler',
  queue: 'imports',
  // The bucket: reads the uploaded CSV. Each job writes up to 20 chunks of 500 rows, then queues the
  // next; a list-removal job removes up to 20,000 memberships of a deleted list, then queues the next.
  needs: { table: 'readwrite', bucket: 'read', sendTo: ['imports'] },
  memoryMb: 1024,
  timeoutSeconds: 120,
});
