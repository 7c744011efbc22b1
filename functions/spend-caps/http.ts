import { functionNamed } from '../manifest';
import { spendCaps } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { deleteSpendCapQuery, putSpendCapBody } from '../../shared/billing/spend-caps/schemas';
import { deleteSpendCap, listSpendCaps, putSpendCap } from '../../shared/billing/spend-caps/service';

export const handler = createHttpHandler(spendCaps, {
  'PUT /v1/spend-caps': async (req, c) => json(200, await putSpendCap(c, authOf(req).accountId, parseInput(putSpendCapBody, req.body))),
  'GET /v1/spend-caps': async (req, c) => json(200, await listSpendCaps(c, authOf(req).accountId)),
  'DELETE /v1/spend-caps': async (req, c) => {
    await deleteSpendCap(c, authOf(req).accountId, parseInput(deleteSpendCapQuery, req.query, 'query').key_id);
    return noContent();
  },
});
