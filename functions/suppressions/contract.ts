import { listOf, type ContractsOf } from '../../shared/http/contract';
import type { suppressions } from './definition';
import {
  createSuppressionBody,
  importResultView,
  importSuppressionsBody,
  listSuppressionsQuery,
  removeSuppressionQuery,
  suppressionView,
} from '../../shared/sending/suppressions/schemas';

export const contracts: ContractsOf<typeof suppressions> = {
  'GET /v1/suppressions': {
    operationId: 'listSuppressions',
    description: 'Recipients that are not sent to, most recently changed first (a re-added recipient moves to the top). Only entries that currently suppress a recipient are listed.',
    query: listSuppressionsQuery,
    paginated: true,
    responses: { 200: { description: 'A page of suppressions', schema: listOf('suppressions', suppressionView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'email only, one a page', query: { channel: 'email', limit: '1' }, status: 200, as: 'read' },
      { name: 'an unknown channel', query: { channel: 'fax' }, status: 400 },
    ],
  },
  'POST /v1/suppressions': {
    operationId: 'addSuppression',
    description:
      'Blocks every later send to the recipient on the channel. Upserts: adding a recipient already listed refreshes its `reason`, `state` (back to `suppressed`) and `updated_at`, and answers 201 again. ' +
      'The reason defaults to "manual"; a blank reason is 400. An email recipient must be a valid address; it is stored trimmed and lower-cased.',
    body: createSuppressionBody,
    responses: { 201: { description: 'The suppression as stored', schema: suppressionView } },
    errors: [],
    examples: [
      { name: 'suppress an address', body: { channel: 'email', recipient: 'Blocked-{{unique}}@Example.com', reason: 'asked to stop' }, status: 201 },
      { name: 'again: refreshed', body: { channel: 'email', recipient: '{{suppressed_email}}' }, status: 201 },
      { name: 'not an address', body: { channel: 'email', recipient: 'nobody' }, status: 400 },
    ],
  },
  'DELETE /v1/suppressions': {
    operationId: 'removeSuppression',
    description:
      'Removes a suppression so the recipient receives messages again (email matched trimmed and lower-cased). ' +
      'Live keys only: a test-mode key gets 403, as this re-opens a bounced or complaining recipient to live mail.',
    query: removeSuppressionQuery,
    responses: { 204: { description: 'Removed' } },
    errors: ['not_found'],
    examples: [
      { name: 'remove', query: { channel: 'email', recipient: '{{suppressed_email}}' }, status: 204 },
      { name: 'not on the list', query: { channel: 'email', recipient: 'never-{{unique}}@example.com' }, status: 404 },
      { name: 'no recipient', query: { channel: 'email' }, status: 400 },
      { name: 'with a test-mode key', query: { channel: 'email', recipient: '{{suppressed_email}}' }, status: 403, as: 'test' },
    ],
  },
  'POST /v1/suppressions/import': {
    operationId: 'importSuppressions',
    description:
      'Upserts up to 10000 suppressions in one call; a repeat import is safe and answers the same counts. Addresses are normalized and de-duplicated, the last occurrence winning; ' +
      'an unusable address (or, on another channel, a blank recipient) is skipped and counted, not an error, while a malformed entry fails the whole request with 400 and writes nothing. ' +
      'The reason defaults to "import". More than 10000 entries is refused with status **422** and code `invalid_request` (the one `invalid_request` that is not 400), before any entry is checked; nothing is written.',
    body: importSuppressionsBody,
    responses: { 200: { description: 'How many recipients were written and how many entries skipped', schema: importResultView } },
    errors: [],
    examples: [
      {
        name: 'three entries, one unusable',
        body: { entries: [{ email: 'a-{{unique}}@example.com' }, { email: 'b-{{unique}}@example.com', reason: 'unsubscribed by phone', state: 'unsubscribed' }, { email: 'not an address' }] },
        status: 200,
      },
      { name: 'nothing to import', body: { channel: 'email', entries: [] }, status: 200 },
      { name: 'an unknown state', body: { entries: [{ email: 'c-{{unique}}@example.com', state: 'blocked' }] }, status: 400 },
    ],
  },
};
