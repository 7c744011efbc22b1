// The spend-caps function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN_LIVE, READ } from '../access';

export const spendCaps = defineFunction({
  name: 'spend-caps',
  entry: 'functions/spend-caps/http.ts',
  handler: 'handler',
  http: [
    { method: 'PUT', path: '/v1/spend-caps', access: ADMIN_LIVE, summary: 'Set the account\'s or one key\'s monthly spend cap (hard and soft limits)' },
    { method: 'GET', path: '/v1/spend-caps', access: READ, summary: 'The account cap and the key caps' },
    { method: 'DELETE', path: '/v1/spend-caps', access: ADMIN_LIVE, summary: 'Remove the account cap, or a key\'s with ?key_id=' },
  ],
  needs: { table: 'readwrite' },
  memoryMb: 512,
  timeoutSeconds: 10,
});
