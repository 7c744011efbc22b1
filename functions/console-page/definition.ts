// The console-page function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { PUBLIC } from '../access';

export const consolePage = defineFunction({
  // The web console (issue 19): one static, public page at the root (script and style inline);
  // it runs the account through the /v1 API with the dashboard session's cookie. The table:
  // public routes are limited per client IP.
  name: 'console-page',
  entry: 'functions/console-page/http.ts',
  handler: 'handler',
  http: [{ method: 'GET', path: '/', access: PUBLIC, summary: 'The web console: sign up, sign in and run the account in a browser (public page; the API needs a session)' }],
  needs: { table: 'readwrite' },
  memoryMb: 256,
  timeoutSeconds: 5,
});
