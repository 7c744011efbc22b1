import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { parseLimit } from '../../shared/pagination';
import {
  createSuppressionBody,
  importSuppressionsBody,
  listSuppressionsQuery,
  removeSuppressionQuery,
} from '../../shared/suppressions/schemas';
import {
  addSuppression,
  checkImportSize,
  importSuppressions,
  listSuppressions,
  removeSuppression,
} from '../../shared/suppressions/service';

export const handler = createHttpHandler('suppressions', {
  'GET /v1/suppressions': async (req, c) => {
    const { channel } = parseInput(listSuppressionsQuery, req.query, 'query');
    const page = await listSuppressions(
      { store: c.store, cursorSecret: c.secrets.get('cursor-signing-key') },
      authOf(req).accountId,
      { channel, limit: parseLimit(req.query.limit), cursor: req.query.cursor },
    );
    return json(200, { suppressions: page.items, next_cursor: page.nextCursor });
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
