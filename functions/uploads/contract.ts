import type { ContractsOf } from '../../shared/http/contract';
import type { uploads } from './definition';
import { importParams, importView, startedImportView, startImportBody } from '../../shared/audiences/imports/schemas';
import { multipartUploadBody, rawUploadBody, uploadView } from '../../shared/audiences/uploads/schemas';

const CSV = 'email,first_name,last_name,plan\nada@example.com,Ada,Lovelace,pro\n"grace@example.com","Grace","Hopper, RDML",team\n';

export const contracts: ContractsOf<typeof uploads> = {
  'POST /v1/uploads': {
    operationId: 'createUpload',
    description: [
      'Stores a file for a later use, today `POST /v1/contacts/import`. Send the file as the whole body with its own Content-Type',
      '(`curl --data-binary @contacts.csv -H "Content-Type: text/csv"`), or as the part named `file` of a `multipart/form-data` form (`curl -F file=@contacts.csv`).',
      'Accepted: UTF-8 `text/csv`, `text/plain` and `application/json` (also `application/csv` and `text/x-csv`); a form part labelled `application/octet-stream` or',
      '`application/vnd.ms-excel` (what Windows browsers call every .csv file) is judged by its file name: `.csv`, `.txt` or `.json`.',
      'Checked in this order: the multipart framing (400), the size (413 `payload_too_large` over 2 MiB; exactly 2,097,152 bytes is accepted; nothing is stored),',
      'an empty file (400), the type (400) and UTF-8 (400). The answer’s `key` is opaque and usable only by this account; the file is never served back.',
    ].join('\n'),
    body: rawUploadBody,
    bodyContentType: 'text/csv',
    otherBodies: { 'text/plain': rawUploadBody, 'application/json': rawUploadBody, 'multipart/form-data': multipartUploadBody },
    responses: { 201: { description: 'The stored file', schema: uploadView } },
    errors: [],
    examples: [
      { name: 'a CSV file', body: CSV, status: 201 },
      { name: 'an empty file', body: '', status: 400 },
      { name: 'with a read key', body: CSV, status: 403, as: 'read' },
    ],
  },
  'POST /v1/contacts/import': {
    operationId: 'importContacts',
    description: [
      'Imports contacts from a CSV stored with `POST /v1/uploads`, in the background: the answer (202) comes at once, and `GET /v1/contacts/imports/{id}` follows it.',
      'The file has a header row; `email` is required, `first_name` and `last_name` are the names (matched regardless of case), and every other column goes to `data`',
      'under its header as written (1 to 64 letters, digits, _ or -, at most 50 columns); values stay strings, and empty cells change nothing.',
      'A contact whose email exists is updated (data keys merged), never refused as `duplicate_contact`; with `list_id` every contact is added to that static list.',
      'A bad row is skipped and reported with its row number (the header is row 1); a header without `email`, a header twice or broken quoting fails the whole import before anything is written.',
      'Importing the same file again changes nothing. A key outside this account’s uploads is 403 `forbidden`; one of its own that names no file is 404; a `list_id` the account does not have is 404, a dynamic list 422 `invalid_request` (as `POST /v1/contacts` answers `list_ids`).',
    ].join('\n'),
    body: startImportBody,
    responses: { 202: { description: 'The import, processing', schema: startedImportView } },
    errors: ['not_found', { code: 'invalid_request', status: 422 }],
    examples: [
      { name: 'an uploaded CSV', body: { object_key: '{{upload_key}}' }, status: 202 },
      { name: 'a key under another account’s uploads', body: { object_key: 'uploads/{{account_id}}/upl_00000000000000000000000000.csv' }, status: 403 },
      { name: 'no object_key', body: {}, status: 400 },
    ],
  },
  'GET /v1/contacts/imports/{id}': {
    operationId: 'getContactImport',
    description:
      'An import’s progress: `processing` while it runs, then `completed` (every row read; `total` = `created` + `updated` + `skipped`) or `failed` (the file could not be read, with why in `errors`). ' +
      '`errors` holds the first 100 problems by row number; row 0 is a problem that belongs to no row.',
    params: importParams,
    responses: { 200: { description: 'The import', schema: importView } },
    errors: [],
    examples: [
      { name: 'an import', params: { id: '{{import_id}}' }, status: 200, as: 'read' },
      { name: 'no such import', params: { id: 'imp_00000000000000000000000000' }, status: 404, as: 'read' },
    ],
  },
};
