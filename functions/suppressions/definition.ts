// The suppressions function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND_LIVE } from '../access';

export const suppressions = defineFunction({
  name: 'suppressions',
  entry: 'functions/suppressions/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/suppressions', access: SEND_OR_READ, summary: 'List suppressed recipients' },
    { method: 'POST', path: '/v1/suppressions', access: SEND_LIVE, summary: 'Suppress a recipient' },
    { method: 'DELETE', path: '/v1/suppressions', access: SEND_LIVE, summary: 'Remove a suppression (query: channel, recipient)' },
    { method: 'POST', path: '/v1/suppressions/import', access: SEND_LIVE, summary: 'Upsert up to 10000 suppressions' },
  ],
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
  memoryMb: 1024,
  timeoutSeconds: 29,
});
