// The messages function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { READ, SEND } from '../access';

export const messages = defineFunction({
  name: 'messages',
  entry: 'functions/messages/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/messages', access: READ, summary: 'List messages, newest first; or one by idempotency_key' },
    { method: 'GET', path: '/v1/messages/{id}', access: READ, summary: 'A message with its event timeline' },
    { method: 'POST', path: '/v1/messages/{id}/cancel', access: SEND, summary: 'Cancel a scheduled message before it is sent' },
  ],
  needs: { table: 'readwrite', scheduler: true, secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
