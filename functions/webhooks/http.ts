import { functionNamed } from '../manifest';
import { webhooks } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, shownOnce } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createWebhookBody, updateWebhookBody } from '../../shared/webhooks/schemas';
import {
  createSubscription,
  deleteSubscription,
  listDeliveries,
  listSubscriptions,
  readSubscription,
  rotateSecret,
  updateSubscription,
} from '../../shared/webhooks/subscriptions';
import { replayDelivery, replayFailed, sendTestEvent } from '../../shared/webhooks/replay';

export const handler = createHttpHandler(webhooks, {
  'POST /v1/webhooks': async (req, c) => {
    const body = parseInput(createWebhookBody, req.body);
    return shownOnce(201, await createSubscription(c, authOf(req).accountId, body, authOf(req)));
  },
  'GET /v1/webhooks': async (req, c) => {
    return listed('webhooks', await listSubscriptions(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'GET /v1/webhooks/{id}': async (req, c) => json(200, await readSubscription(c.store, authOf(req).accountId, req.params.id ?? '')),
  'PUT /v1/webhooks/{id}': async (req, c) => {
    const body = parseInput(updateWebhookBody, req.body);
    return json(200, await updateSubscription(c, authOf(req).accountId, req.params.id ?? '', body, authOf(req)));
  },
  'DELETE /v1/webhooks/{id}': async (req, c) => {
    await deleteSubscription(c, authOf(req).accountId, req.params.id ?? '', authOf(req));
    return json(200, { message: 'webhook deleted' });
  },
  'POST /v1/webhooks/{id}/rotate-secret': async (req, c) => shownOnce(200, await rotateSecret(c, authOf(req).accountId, req.params.id ?? '', authOf(req))),
  'GET /v1/webhooks/{id}/deliveries': async (req, c) => {
    return listed('deliveries', await listDeliveries(listing(c), authOf(req).accountId, req.params.id ?? '', pageOf(req)));
  },
  'POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay': async (req, c) =>
    json(202, await replayDelivery(c, authOf(req).accountId, req.params.id ?? '', req.params.delivery_id ?? '', authOf(req))),
  'POST /v1/webhooks/{id}/replay-failed': async (req, c) => json(202, await replayFailed(c, authOf(req).accountId, req.params.id ?? '', authOf(req))),
  'POST /v1/webhooks/{id}/test': async (req, c) => json(202, await sendTestEvent(c, authOf(req).accountId, req.params.id ?? '', authOf(req))),
});
