import * as z from 'zod';
import type { ContractsOf } from '../../shared/http/contract';
import type { inboundRoutes } from './definition';
import { domainParams } from '../../shared/domains/schemas';
import { createRouteBody, enableInboundBody, inboundSettingView, routeListView, routeView, routeWithSecretView, updateRouteBody } from '../../shared/inbound-mail/routes/schemas';

const routeId = z.object({ id: z.string().meta({ description: 'The route id, inr_…' }) });

const GATED = 'Deployment-gated: 404 `not_found` where inbound email is off (`INBOUND_ENABLED`; in AWS the `-c inbound=true` context).';

/** How a route's webhook forward is made and signed; shared/inbound-mail/routes/forward.ts is what this describes. */
const FORWARD_SCHEME = [
  '**Forwards.** A received message goes to the active route of its domain whose `match_prefix` starts the recipient\'s local part (ignoring case;',
  'the longest prefix wins; `""` is the catch-all). A `webhook` route POSTs the `email.received` envelope to `forward_url` with `message_id` `""`,',
  'signed as webhook deliveries are (`Service-Event-Id`, `Service-Event-Type: email.received`, `Service-Timestamp`, `Service-Signature` = hex HMAC-SHA256',
  'keyed with this route\'s `signing_secret`), through the same address guard and retry schedule (30 s doubling, ±25 %, 12 attempts or 24 hours).',
  'An `email` route forwards the message to `forward_address` as a new outbound email from the recipient address (subject `Fwd: …`, the original',
  'sender, date, recipients and text inline), subject to suppressions and spend caps like any send. Account `email.received` webhooks fire as well.',
].join('\n');

export const contracts: ContractsOf<typeof inboundRoutes> = {
  'POST /v1/domains/{domain}/inbound': {
    operationId: 'setDomainInbound',
    description: [
      'Turns inbound email on or off for one of the account\'s domains, named by its id (`dom_…`) or its name. On needs the domain fully verified',
      '(DKIM, SPF and DMARC), which also puts the account outside the sandbox: 422 `domain_not_ready` otherwise, and always for the built-in',
      'sandbox domain. Off is always accepted. The answer is the MX record to publish at the domain for mail to reach the service.',
      GATED,
    ].join(' '),
    params: domainParams,
    body: enableInboundBody,
    responses: { 200: { description: 'The setting and the MX record', schema: inboundSettingView } },
    errors: ['domain_not_ready', 'not_found'],
    examples: [
      { name: 'enable', params: { domain: '{{inbound_domain}}' }, body: { enabled: true }, status: 200 },
      { name: 'a domain not verified yet', params: { domain: '{{domain}}' }, body: { enabled: true }, status: 422 },
      { name: 'disable', params: { domain: '{{domain}}' }, body: { enabled: false }, status: 200 },
      { name: 'no enabled field', params: { domain: '{{domain}}' }, body: {}, status: 400 },
      { name: 'not a domain of the account', params: { domain: 'nobody-has-this.example.org' }, body: { enabled: true }, status: 404 },
      { name: 'test key', params: { domain: '{{domain}}' }, body: { enabled: false }, status: 403, as: 'test' },
    ],
  },
  'POST /v1/inbound/routes': {
    operationId: 'createInboundRoute',
    description: [
      'Forwards mail received on an inbound-enabled domain of the account (404 for a domain that is not the account\'s, 422 `domain_not_ready` when',
      'inbound is off on it). `webhook` routes take `forward_url` (https on a public address, checked as webhook endpoints are) and `email` routes',
      '`forward_address` (not on the route\'s own domain); the other field is refused. A domain has one route per prefix (409 `conflict`);',
      'an account holds at most 100 routes. The `signing_secret` is in this answer only.',
      GATED,
      '',
      FORWARD_SCHEME,
    ].join('\n'),
    body: createRouteBody,
    responses: { 201: { description: 'The route with its signing secret, shown once', schema: routeWithSecretView, secret: true } },
    errors: ['domain_not_ready', 'not_found', 'conflict'],
    examples: [
      { name: 'a webhook route', body: { domain: '{{inbound_domain}}', match_prefix: 'support', destination_type: 'webhook', forward_url: 'https://93.184.215.14/inbound' }, status: 201 },
      { name: 'an email route', body: { domain: '{{inbound_domain}}', match_prefix: '', destination_type: 'email', forward_address: 'team@example.com' }, status: 201 },
      { name: 'a webhook route without forward_url', body: { domain: '{{inbound_domain}}', match_prefix: 'x', destination_type: 'webhook' }, status: 400 },
      { name: 'inbound not enabled on the domain', body: { domain: '{{domain}}', match_prefix: 'x', destination_type: 'email', forward_address: 'team@example.com' }, status: 422 },
      { name: 'not a domain of the account', body: { domain: 'nobody-has-this.example.org', match_prefix: 'x', destination_type: 'email', forward_address: 'team@example.com' }, status: 404 },
    ],
  },
  'GET /v1/inbound/routes': {
    operationId: 'listInboundRoutes',
    description: `The account's inbound routes, oldest first; never a secret. ${GATED}`,
    responses: { 200: { description: 'Every route of the account', schema: routeListView } },
    errors: ['not_found'],
    examples: [
      { name: 'the routes', status: 200 },
      { name: 'read key', status: 200, as: 'read' },
    ],
  },
  'GET /v1/inbound/routes/{id}': {
    operationId: 'getInboundRoute',
    description: `A route of the account, without its secret; another account's id is 404. ${GATED}`,
    params: routeId,
    responses: { 200: { description: 'The route', schema: routeView } },
    errors: ['not_found'],
    examples: [
      { name: 'a route', params: { id: '{{inbound_route_id}}' }, status: 200 },
      { name: 'no such route', params: { id: 'inr_missing' }, status: 404 },
    ],
  },
  'PUT /v1/inbound/routes/{id}': {
    operationId: 'updateInboundRoute',
    description: [
      'Only the fields sent change; `{}` answers the route unchanged. A new `forward_url` is checked as on create. Changing `destination_type`',
      'needs the new type\'s field (sent now) and drops the other one. `active: false` stops the route matching until it is set true again.',
      GATED,
    ].join(' '),
    params: routeId,
    body: updateRouteBody,
    responses: { 200: { description: 'The route as changed', schema: routeView } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'pause', params: { id: '{{inbound_route_id}}' }, body: { active: false }, status: 200 },
      { name: 'to an email route', params: { id: '{{inbound_route_id}}' }, body: { destination_type: 'email', forward_address: 'team@example.com' }, status: 200 },
      { name: 'to an email route without an address', params: { id: '{{inbound_route_id}}' }, body: { destination_type: 'email' }, status: 400 },
      { name: 'an unknown field', params: { id: '{{inbound_route_id}}' }, body: { is_active: false }, status: 400 },
      { name: 'no such route', params: { id: 'inr_missing' }, body: { active: true }, status: 404 },
    ],
  },
  'POST /v1/inbound/routes/{id}/rotate-secret': {
    operationId: 'rotateInboundRouteSecret',
    description: [
      'A new `signing_secret`, in this answer only; the previous one is never shown again and signs no new attempt, a retry of an earlier',
      'forward included. Email routes hold a secret as well (shown on create; it signs once the route is changed to a webhook route) and rotate',
      'alike. Two rotations at once: the later one gets 409 `conflict`, so nobody holds a secret that does not work. Another account\'s id is 404.',
      GATED,
      '',
      FORWARD_SCHEME,
    ].join('\n'),
    params: routeId,
    responses: { 200: { description: 'The route with its new signing secret, shown once', schema: routeWithSecretView, secret: true } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'rotate', params: { id: '{{inbound_route_id}}' }, status: 200 },
      { name: 'no such route', params: { id: 'inr_missing' }, status: 404 },
      { name: 'test key', params: { id: '{{inbound_route_id}}' }, status: 403, as: 'test' },
    ],
  },
  'DELETE /v1/inbound/routes/{id}': {
    operationId: 'deleteInboundRoute',
    description: `Removes the route for good. ${GATED}`,
    params: routeId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found'],
    examples: [
      { name: 'delete', params: { id: '{{inbound_route_id}}' }, status: 204 },
      { name: 'no such route', params: { id: 'inr_missing' }, status: 404 },
    ],
  },
};
