// The bimi function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN_LIVE, READ, PUBLIC } from '../access';

export const bimi = defineFunction({
  name: 'bimi',
  entry: 'functions/bimi/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/domains/{domain}/bimi', access: READ, summary: 'BIMI state: logo, record to publish, DMARC readiness' },
    { method: 'PUT', path: '/v1/domains/{domain}/bimi', access: ADMIN_LIVE, summary: 'Set the BIMI logo URL (https, SVG Tiny PS)' },
    { method: 'POST', path: '/v1/domains/{domain}/bimi/logo', access: ADMIN_LIVE, summary: 'Upload a BIMI logo (multipart SVG, at most 1 MiB)' },
    { method: 'GET', path: '/v1/bimi/{domain}/logo.svg', access: PUBLIC, summary: 'Serves an uploaded BIMI logo (public)' },
  ],
  needs: { table: 'readwrite', bucket: 'readwrite' },
  memoryMb: 512,
  timeoutSeconds: 15,
});
