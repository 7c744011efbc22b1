// The account function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { ADMIN_LIVE, READ, ANY_KEY } from '../access';

export const account = defineFunction({
  name: 'account',
  entry: 'functions/account/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/account/verification', access: ANY_KEY, summary: 'Per-channel sending readiness' },
    { method: 'GET', path: '/v1/usage', access: READ, summary: 'Sends and estimated cost of a period (YYYY-MM)' },
    { method: 'PUT', path: '/v1/account/channels/{channel}', access: ADMIN_LIVE, summary: 'Turn a channel on or off (email, webhook)' },
  ],
  // reputation: GET /v1/usage shows the rates against the levels.
  needs: { table: 'readwrite', reputation: true },
  memoryMb: 512,
  timeoutSeconds: 10,
});
