// The snippets function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND, SEND_LIVE } from '../access';

export const snippets = defineFunction({
  // Its own function, so the templates bundle does not grow. Literal paths win over
  // /v1/templates/{id} in API Gateway and in the local matcher alike.
  name: 'snippets',
  entry: 'functions/snippets/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/templates/snippets', access: SEND, summary: 'Create a snippet, a partial templates include as {{> name }}' },
    { method: 'GET', path: '/v1/templates/snippets', access: SEND_OR_READ, summary: 'List snippets, newest first' },
    { method: 'GET', path: '/v1/templates/snippets/{id}', access: SEND_OR_READ, summary: 'A snippet' },
    { method: 'PATCH', path: '/v1/templates/snippets/{id}', access: SEND_LIVE, summary: 'Change a snippet; a rename is refused while a template includes it' },
    { method: 'DELETE', path: '/v1/templates/snippets/{id}', access: SEND_LIVE, summary: 'Delete a snippet; refused while a template includes it' },
  ],
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
  memoryMb: 256,
  timeoutSeconds: 10,
});
