import { functionNamed } from '../manifest';
import { suppressions } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import {
  createSuppressionBody,
  importSuppressionsBody,
  listSuppressionsQuery,
  removeSuppressionQuery,
} from '../../shared/sending/suppressions/schemas';
import {
  addSuppression,
  checkImportSize,
  importSuppressions,
  listSuppressions,
  removeSuppression,
} from '../../shared/sending/suppressions/service';

export const handler = createHttpHandler(suppressions, {
  'GET /v1/suppressions': async (req, c) => {
    const { channel } = parseInput(listSuppressionsQuery, req.query, 'query');
    return listed('suppressions', await listSuppressions(listing(c), authOf(req).accountId, { channel, ...pageOf(req) }));
  },
  'POST /v1/suppressions': async (req, c) => {
    const body = parseInput(createSuppressionBody, req.body);
    return json(201, await addSuppression(c, authOf(req).accountId, body));
  },
  'DELETE /v1/suppressions': async (req, c) => {
    await removeSuppression(c, authOf(req).accountId, parseInput(removeSuppressionQuery, req.query, 'query'));
    return noContent();
  },
  'POST /v1/suppressions/import': async (req, c) => {
    // The size ceiling first: an oversized import is refused without validating every entry.
    checkImportSize(req.body);
    const body = parseInput(importSuppressionsBody, req.body);
    return json(200, await importSuppressions(c, authOf(req).accountId, body));
  },
});
