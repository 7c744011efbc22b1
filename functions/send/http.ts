import { functionNamed } from '../manifest';
import { ApiError } from '../../shared/errors';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { MAX_BATCH, validateBody } from '../../shared/messages/schemas';
import { acceptSends } from '../../shared/messages/send';
import { validateAddress } from '../../shared/messages/validate';

export const handler = createHttpHandler(functionNamed('send'), {
  'POST /v1/send': async (req, c) => {
    const [outcome] = await acceptSends(c, authOf(req), [req.body], { batch: false });
    if (!outcome) throw new Error('send produced no outcome');
    return json(outcome.status, outcome.body);
  },
  'POST /v1/send/batch': async (req, c) => {
    if (!Array.isArray(req.body)) throw new ApiError('invalid_request', 'body: expected a JSON array of send requests');
    if (req.body.length === 0) throw new ApiError('invalid_request', 'body: a batch needs at least 1 item');
    if (req.body.length > MAX_BATCH) throw new ApiError('batch_too_large', `a batch holds at most ${MAX_BATCH} items; got ${req.body.length}`);
    const outcomes = await acceptSends(c, authOf(req), req.body, { batch: true });
    return json(
      200,
      outcomes.map((o) =>
        o.status < 300 ? { success: true, response: o.body } : { success: false, error: (o.body as { error: unknown }).error },
      ),
    );
  },
  'POST /v1/validate': async (req, c) => json(200, await validateAddress(c, parseInput(validateBody, req.body).email)),
});
