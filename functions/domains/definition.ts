// The domains function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN_LIVE, READ } from '../access';

export const domains = defineFunction({
  name: 'domains',
  entry: 'functions/domains/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/domains', access: READ, summary: 'List sending domains (the built-in sandbox domain first)' },
    { method: 'POST', path: '/v1/domains', access: ADMIN_LIVE, summary: 'Register a domain; answers the DNS records to publish (6, or 7 while another account contends for the name)' },
    { method: 'GET', path: '/v1/domains/{domain}', access: READ, summary: 'A domain with its records and statuses' },
    { method: 'PATCH', path: '/v1/domains/{domain}', access: ADMIN_LIVE, summary: 'Change a domain\'s settings: open_tracking, click_tracking' },
    { method: 'DELETE', path: '/v1/domains/{domain}', access: ADMIN_LIVE, summary: 'Remove a domain and its provider identity' },
    { method: 'POST', path: '/v1/domains/{domain}/verify', access: ADMIN_LIVE, summary: 'Check the DNS records now' },
    { method: 'PUT', path: '/v1/domains/{domain}/from-name', access: ADMIN_LIVE, summary: 'Default display name of mail from the domain' },
    { method: 'GET', path: '/v1/domains/{domain}/dns-setup', access: READ, summary: 'DNS setup guide for the domain’s DNS provider' },
    { method: 'GET', path: '/v1/domains/{domain}/dns-setup/zonefile', access: READ, summary: 'The records as a zone file fragment (text/plain)' },
  ],
  // The bucket: deleting a domain deletes its uploaded BIMI logo.
  needs: { table: 'readwrite', sesIdentities: true, bucket: 'readwrite' },
  memoryMb: 512,
  timeoutSeconds: 15,
});
