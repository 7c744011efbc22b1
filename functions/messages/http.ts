import { functionNamed } from '../manifest';
import { messages } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing } from '../../shared/http/lists';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { cancelScheduled, getMessage, getMessageByIdempotencyKey, listMessages } from '../../shared/sending/messages/query';
import { listMessagesQuery } from '../../shared/sending/messages/schemas';
import { parseLimit } from '../../shared/pagination';

export const handler = createHttpHandler(messages, {
  'GET /v1/messages': async (req, c) => {
    const { accountId } = authOf(req);
    const { idempotency_key, limit, cursor, ...filters } = parseInput(listMessagesQuery, req.query, 'query');
    if (idempotency_key !== undefined) return json(200, await getMessageByIdempotencyKey(c.store, accountId, idempotency_key));
    return listed('messages', await listMessages(listing(c), accountId, filters, { limit: parseLimit(limit), cursor }));
  },
  'GET /v1/messages/{id}': async (req, c) => json(200, await getMessage(c.store, authOf(req).accountId, req.params.id ?? '')),
  'POST /v1/messages/{id}/cancel': async (req, c) => json(200, await cancelScheduled(c, authOf(req), req.params.id ?? '')),
});
