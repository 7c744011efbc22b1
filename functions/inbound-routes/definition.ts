// The inbound-routes function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN_LIVE, SEND_OR_READ, SEND_LIVE } from '../access';

export const inboundRoutes = defineFunction({
  // Inbound email settings (issue 16): enabling inbound on a domain, and the routes that forward
  // received mail. Deployment-gated: every route answers 404 where INBOUND_ENABLED is off.
  name: 'inbound-routes',
  entry: 'functions/inbound-routes/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/domains/{domain}/inbound', access: ADMIN_LIVE, summary: 'Turn inbound email on or off for a domain (its id or name); answers the MX record to publish' },
    { method: 'POST', path: '/v1/inbound/routes', access: SEND_LIVE, summary: 'Create an inbound route (webhook or email forward); the signing secret is shown once' },
    { method: 'GET', path: '/v1/inbound/routes', access: SEND_OR_READ, summary: 'List inbound routes (never the secret)' },
    { method: 'GET', path: '/v1/inbound/routes/{id}', access: SEND_OR_READ, summary: 'An inbound route (never its secret)' },
    { method: 'PUT', path: '/v1/inbound/routes/{id}', access: SEND_LIVE, summary: 'Change match_prefix, the destination or active; only sent fields change' },
    { method: 'DELETE', path: '/v1/inbound/routes/{id}', access: SEND_LIVE, summary: 'Delete an inbound route for good' },
    { method: 'POST', path: '/v1/inbound/routes/{id}/rotate-secret', access: SEND_LIVE, summary: 'New signing secret for a route, shown once; the old one stops signing at once' },
  ],
  needs: { table: 'readwrite', secrets: ['data-encryption-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
