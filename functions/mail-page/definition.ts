// The mail-page function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { PUBLIC } from '../access';

export const mailPage = defineFunction({
  // The Mail app's web page (issue 17): one static, public page (script and style inline: every
  // route costs the stack two resources); it reads mail through the Mail API with the key the
  // person signs in with. The table: public routes are limited per client IP.
  name: 'mail-page',
  entry: 'functions/mail-page/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/mail', access: PUBLIC, summary: 'The Mail app: a web page to read, search and answer mail (public page; the API needs a key)' },
  ],
  needs: { table: 'readwrite' },
  memoryMb: 256,
  timeoutSeconds: 5,
});
