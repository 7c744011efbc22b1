import { functionNamed } from '../manifest';
import { broadcasts } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { bulkSendBody, updateBroadcastBody } from '../../shared/audiences/broadcasts/schemas';
import { createBroadcast, createBulkSend, listBroadcasts, readBroadcast } from '../../shared/audiences/broadcasts/service';
import { cancelBroadcast, sendBroadcast, updateBroadcast } from '../../shared/audiences/broadcasts/lifecycle';

export const handler = createHttpHandler(broadcasts, {
  'POST /v1/send/bulk': async (req, c) => json(202, await createBulkSend(c, authOf(req), parseInput(bulkSendBody, req.body))),
  'GET /v1/broadcasts': async (req, c) => {
    return listed('broadcasts', await listBroadcasts(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'POST /v1/broadcasts': async (req, c) => json(201, await createBroadcast(c, authOf(req), parseInput(bulkSendBody, req.body), 'broadcast')),
  'GET /v1/broadcasts/{id}': async (req, c) => json(200, await readBroadcast(c, authOf(req).accountId, req.params.id ?? '')),
  'PATCH /v1/broadcasts/{id}': async (req, c) => json(200, await updateBroadcast(c, authOf(req), req.params.id ?? '', parseInput(updateBroadcastBody, req.body))),
  'POST /v1/broadcasts/{id}/send': async (req, c) => json(202, await sendBroadcast(c, authOf(req), req.params.id ?? '')),
  'POST /v1/broadcasts/{id}/cancel': async (req, c) => json(200, await cancelBroadcast(c, authOf(req), req.params.id ?? '')),
});
