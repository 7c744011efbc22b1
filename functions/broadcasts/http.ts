import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { bulkSendBody } from '../../shared/broadcasts/schemas';
import { createBulkSend, listBroadcasts, readBroadcast } from '../../shared/broadcasts/service';
import { parseLimit } from '../../shared/pagination';

export const handler = createHttpHandler('broadcasts', {
  'POST /v1/send/bulk': async (req, c) => json(202, await createBulkSend(c, authOf(req), parseInput(bulkSendBody, req.body))),
  'GET /v1/broadcasts': async (req, c) => {
    const page = await listBroadcasts(
      { store: c.store, cursorSecret: c.secrets.get('cursor-signing-key') },
      authOf(req).accountId,
      { limit: parseLimit(req.query.limit), cursor: req.query.cursor },
    );
    return json(200, { broadcasts: page.items, next_cursor: page.nextCursor });
  },
  'GET /v1/broadcasts/{id}': async (req, c) => json(200, await readBroadcast(c.store, authOf(req).accountId, req.params.id ?? '')),
});
