// The test-recipients function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND_LIVE, PUBLIC } from '../access';

export const testRecipients = defineFunction({
  name: 'test-recipients',
  entry: 'functions/test-recipients/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/test-recipients', access: SEND_OR_READ, summary: 'Sandbox test recipients and their state' },
    { method: 'POST', path: '/v1/test-recipients', access: SEND_LIVE, summary: 'Register a test recipient (at most 3); mails a one-time link' },
    { method: 'DELETE', path: '/v1/test-recipients/{id}', access: SEND_LIVE, summary: 'Remove a test recipient' },
    { method: 'GET', path: '/v1/test-recipients/verify', access: PUBLIC, summary: 'The one-time link: verifies a test recipient (public)' },
  ],
  needs: { table: 'readwrite', sesSend: true, secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
