// The keys function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN } from '../access';

export const keys = defineFunction({
  name: 'keys',
  entry: 'functions/keys/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/keys', access: ADMIN, summary: 'List API keys (never the secret)' },
    { method: 'POST', path: '/v1/keys', access: ADMIN, summary: 'Create an API key; the secret is shown once' },
    { method: 'POST', path: '/v1/keys/{id}/rotate', access: ADMIN, summary: 'Rotate a key; the old secret stops at once' },
    { method: 'DELETE', path: '/v1/keys/{id}', access: ADMIN, summary: 'Revoke a key for good' },
  ],
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
