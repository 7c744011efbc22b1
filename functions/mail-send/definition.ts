// The mail-send function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_LIVE } from '../access';

export const mailSend = defineFunction({
  // The Mail app's sending (compose, reply, forward), apart from its reading so neither bundle
  // carries the other: it writes large content to the bucket and hands messages to the send
  // queue like POST /v1/send (never to the scheduler: the Mail app sends at once).
  name: 'mail-send',
  entry: 'functions/mail-send/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/mail/compose', access: SEND_LIVE, summary: 'Send a new message from a verified domain; it starts a thread' },
    { method: 'POST', path: '/v1/mail/threads/{id}/reply', access: SEND_LIVE, summary: 'Reply in a thread to its newest received message' },
    { method: 'POST', path: '/v1/mail/threads/{id}/forward', access: SEND_LIVE, summary: 'Forward the newest received message of a thread, the original attached' },
  ],
  needs: { table: 'readwrite', bucket: 'readwrite', sendTo: ['send'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
