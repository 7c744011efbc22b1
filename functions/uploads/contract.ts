import type { Contracts } from '../../shared/http/contract';
import { multipartUploadBody, rawUploadBody, uploadView } from '../../shared/uploads/schemas';

const CSV = 'email,first_name,last_name,plan\nada@example.com,Ada,Lovelace,pro\n"grace@example.com","Grace","Hopper, RDML",team\n';

export const contracts: Contracts = {
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
};
