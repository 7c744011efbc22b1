import { functionNamed } from '../manifest';
import { inboundRoutes } from './definition';
import { inboundOnly } from '../../shared/http/inbound-gate';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent, shownOnce } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createRouteBody, enableInboundBody, updateRouteBody } from '../../shared/inbound-mail/routes/schemas';
import { createRoute, deleteRoute, listRoutes, readRoute, rotateRouteSecret, setInbound, updateRoute } from '../../shared/inbound-mail/routes/service';

// Every route here is deployment-gated: 404 where inbound email is off (INBOUND_ENABLED).
export const handler = createHttpHandler(
  inboundRoutes,
  inboundOnly({
  'POST /v1/domains/{domain}/inbound': async (req, c) => {
    const { enabled } = parseInput(enableInboundBody, req.body);
    return json(200, await setInbound(c, authOf(req).accountId, req.params.domain ?? '', enabled));
  },
  'POST /v1/inbound/routes': async (req, c) => shownOnce(201, await createRoute(c, authOf(req).accountId, parseInput(createRouteBody, req.body))),
  'GET /v1/inbound/routes': async (req, c) => json(200, { routes: await listRoutes(c.store, authOf(req).accountId) }),
  'GET /v1/inbound/routes/{id}': async (req, c) => json(200, await readRoute(c.store, authOf(req).accountId, req.params.id ?? '')),
  'PUT /v1/inbound/routes/{id}': async (req, c) => json(200, await updateRoute(c, authOf(req).accountId, req.params.id ?? '', parseInput(updateRouteBody, req.body))),
  'POST /v1/inbound/routes/{id}/rotate-secret': async (req, c) => shownOnce(200, await rotateRouteSecret(c, authOf(req).accountId, req.params.id ?? '')),
  'DELETE /v1/inbound/routes/{id}': async (req, c) => {
    await deleteRoute(c.store, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
  }),
);
