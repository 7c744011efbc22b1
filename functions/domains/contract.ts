import {
  createDomainBody,
  dnsGuideView,
  domainListView,
  domainParams,
  domainVerificationView,
  domainView,
  domainSettingsBody,
  fromNameBody,
  fromNameView,
} from '../../shared/domains/schemas';
import type { ContractsOf } from '../../shared/http/contract';
import type { domains } from './definition';

const missing = { domain: 'not-registered.example' };

export const contracts: ContractsOf<typeof domains> = {
  'GET /v1/domains': {
    operationId: 'listDomains',
    description: 'Every domain of the account in one answer (at most 100 and the sandbox domain, so no pages): the built-in sandbox domain first, then the newest first.',
    responses: { 200: { description: "The account's domains", schema: domainListView } },
    errors: [],
    examples: [
      { name: 'all domains', status: 200 },
      { name: 'with a read key', status: 200, as: 'read' },
      { name: 'with a send key', status: 403, as: 'send' },
    ],
  },
  'POST /v1/domains': {
    operationId: 'createDomain',
    description:
      'Registers the domain with the mail provider and answers the 6 records to publish: 3 DKIM CNAMEs, the MX and SPF TXT of the MAIL FROM domain `send.<domain>`, and a starter DMARC TXT at `p=none`. ' +
      'Every status starts `pending`; publish the records, then call verify. A domain name has one owner per deployment: a name another account has verified, one this account ' +
      'registered already, or the sandbox domain, is 409 `conflict`. A name another account registered but has not verified does not block: within its 7 days the answer ' +
      'lists a 7th record, the TXT `_postbox-verification.<domain>` proving the domain is yours, and the first account to verify fully takes the name; after them, the ' +
      'registration takes the name over with the 6 records and new DKIM tokens.',
    body: createDomainBody,
    responses: { 201: { description: 'The new domain with its records', schema: domainView } },
    errors: ['conflict', 'domain_limit_reached'],
    examples: [
      { name: 'register a domain', body: { domain: 'contract-{{unique}}.example.com' }, status: 201 },
      { name: 'already registered', body: { domain: '{{domain}}' }, status: 409 },
      { name: 'not a domain name', body: { domain: 'localhost' }, status: 400 },
    ],
  },
  'GET /v1/domains/{domain}': {
    operationId: 'getDomain',
    params: domainParams,
    responses: { 200: { description: 'The domain with its records and statuses', schema: domainView } },
    errors: [],
    examples: [
      { name: 'a registered domain', params: { domain: '{{domain}}' }, status: 200 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
  'DELETE /v1/domains/{domain}': {
    operationId: 'deleteDomain',
    description: 'Removes the domain, its provider identity and its hosted BIMI logo; the name is free for anyone to register again. The built-in sandbox domain cannot be deleted (422 `cannot_delete_sandbox`).',
    params: domainParams,
    responses: { 204: { description: 'Deleted' } },
    errors: ['cannot_delete_sandbox'],
    examples: [
      { name: 'delete', params: { domain: '{{domain}}' }, status: 204 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
  'PATCH /v1/domains/{domain}': {
    operationId: 'updateDomain',
    description:
      'Changes the domain\'s settings; only the fields sent change. `open_tracking` and `click_tracking` (Resend\'s names; the spec shows none) decide whether marketing mail from the ' +
      'domain carries an open pixel and tracked links; transactional mail is tracked only when a send asks for it (`tracking` on the send). The sandbox domain has no settings (404).',
    params: domainParams,
    body: domainSettingsBody,
    responses: { 200: { description: 'The domain as it now stands', schema: domainView } },
    errors: [],
    examples: [
      { name: 'track opens and clicks', params: { domain: '{{domain}}' }, body: { open_tracking: true, click_tracking: true }, status: 200 },
      { name: 'not a boolean', params: { domain: '{{domain}}' }, body: { open_tracking: 'yes' }, status: 400 },
      { name: 'no such domain', params: missing, body: { open_tracking: true }, status: 404 },
      { name: 'with a read key', params: { domain: '{{domain}}' }, body: { open_tracking: true }, status: 403, as: 'read' },
    ],
  },
  'POST /v1/domains/{domain}/verify': {
    operationId: 'verifyDomain',
    description:
      'Looks up the published records now and saves the statuses: each of DKIM, SPF and DMARC becomes `verified` or `failed`, or stays `pending` when DNS did not answer. ' +
      'A record is checked by what DNS serves now, so a removed record fails the next call. Records that are not published yet are an answer too (200 with `fully_verified: false`), not an error. ' +
      'Where another account registered the name too, the check also needs this account\'s ownership TXT record (added to the domain\'s records if it did not list one), and a full ' +
      'verification takes the name from a holder that has not verified. 409 `conflict` when another account has verified the name.',
    params: domainParams,
    responses: { 200: { description: 'One result per DKIM CNAME, the SPF and the DMARC record, and the ownership record when the domain lists one', schema: domainVerificationView } },
    errors: ['conflict'],
    examples: [
      { name: 'records not published yet', params: { domain: '{{domain}}' }, status: 200 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
  'PUT /v1/domains/{domain}/from-name': {
    operationId: 'setDomainFromName',
    description: 'The display name put on mail from the domain when `metadata.from_email` carries none. `""` clears it.',
    params: domainParams,
    body: fromNameBody,
    responses: { 200: { description: 'The name now in force', schema: fromNameView } },
    errors: [],
    examples: [
      { name: 'set a name', params: { domain: '{{domain}}' }, body: { from_name: 'Acme Billing' }, status: 200 },
      { name: 'clear it', params: { domain: '{{domain}}' }, body: { from_name: '' }, status: 200 },
      { name: 'angle brackets', params: { domain: '{{domain}}' }, body: { from_name: 'Acme <billing@acme.test>' }, status: 400 },
      { name: 'no such domain', params: missing, body: { from_name: 'Acme' }, status: 404 },
    ],
  },
  'GET /v1/domains/{domain}/dns-setup': {
    operationId: 'getDomainDnsSetup',
    description:
      'Where the domain\'s zone lives (the closest name with NS records), which DNS host serves it, and the records written the way that host\'s dashboard asks for them (`host` relative to the zone apex). ' +
      'When DNS does not answer the guide is still produced, for the domain itself and a generic provider.',
    params: domainParams,
    responses: { 200: { description: 'The setup guide', schema: dnsGuideView } },
    errors: [],
    examples: [
      { name: 'the guide', params: { domain: '{{domain}}' }, status: 200 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
  'GET /v1/domains/{domain}/dns-setup/zonefile': {
    operationId: 'getDomainZoneFile',
    description:
      'The records as an RFC 1035 master-file fragment to paste or import into a zone: a comment line, then one record a line with absolute names, TTL 3600 and class IN, TXT data quoted (and split into 255-octet strings). ' +
      'Answered as `text/plain; charset=utf-8`.',
    params: domainParams,
    responses: { 200: { description: 'The zone file fragment', contentType: 'text/plain' } },
    errors: [],
    examples: [
      { name: 'the zone file', params: { domain: '{{domain}}' }, status: 200 },
      { name: 'no such domain', params: missing, status: 404 },
    ],
  },
};
