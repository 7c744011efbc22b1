// The docs function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { PUBLIC } from '../access';

export const docs = defineFunction({
  name: 'docs',
  entry: 'functions/docs/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/openapi.json', access: PUBLIC, summary: 'The OpenAPI 3.1 document of this API (public, cacheable)' },
    { method: 'GET', path: '/docs', access: PUBLIC, summary: 'The API reference, rendered from the document (public)' },
  ],
  // The table: public routes are limited per client IP.
  needs: { table: 'readwrite' },
  memoryMb: 256,
  timeoutSeconds: 5,
});
