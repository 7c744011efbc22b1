import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { cancelScheduled, getMessage, getMessageByIdempotencyKey, listMessages, listQuery } from '../../shared/messages/query';
import { parseLimit } from '../../shared/pagination';

export const handler = createHttpHandler('messages', {
  'GET /v1/messages': async (req, c) => {
    const { accountId } = authOf(req);
    const { idempotency_key, limit, cursor, ...filters } = parseInput(listQuery, req.query, 'query');
    if (idempotency_key !== undefined) return json(200, await getMessageByIdempotencyKey(c.store, accountId, idempotency_key));
    const page = await listMessages({ store: c.store, cursorSecret: c.secrets.get('cursor-signing-key') }, accountId, filters, { limit: parseLimit(limit), cursor });
    return json(200, { messages: page.items, next_cursor: page.nextCursor });
  },
  'GET /v1/messages/{id}': async (req, c) => json(200, await getMessage(c.store, authOf(req).accountId, req.params.id ?? '')),
  'POST /v1/messages/{id}/cancel': async (req, c) => json(200, await cancelScheduled(c, authOf(req).accountId, req.params.id ?? '')),
});
