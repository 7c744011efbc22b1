import { functionNamed } from '../manifest';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { bulkSendBody } from '../../shared/broadcasts/schemas';
import { createBulkSend, listBroadcasts, readBroadcast } from '../../shared/broadcasts/service';

export const handler = createHttpHandler(functionNamed('broadcasts'), {
  'POST /v1/send/bulk': async (req, c) => json(202, await createBulkSend(c, authOf(req), parseInput(bulkSendBody, req.body))),
  'GET /v1/broadcasts': async (req, c) => {
    return listed('broadcasts', await listBroadcasts(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'GET /v1/broadcasts/{id}': async (req, c) => json(200, await readBroadcast(c, authOf(req).accountId, req.params.id ?? '')),
});
