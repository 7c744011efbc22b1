// The unsubscribe function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { PUBLIC } from '../access';

export const unsubscribe = defineFunction({
  // The one-click unsubscribe link of marketing mail and the tracking links: public, the signed token is the credential.
  name: 'unsubscribe',
  entry: 'functions/unsubscribe/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/unsubscribe/{token}', access: PUBLIC, summary: 'The unsubscribe link: a page whose button unsubscribes; changes nothing (public)' },
    { method: 'POST', path: '/v1/unsubscribe/{token}', access: PUBLIC, body: 'raw', summary: 'One-click unsubscribe (RFC 8058): the recipient stops getting mail on the channel (public)' },
    // The local runtime's open and click tracking (shared/sending/tracking/; SES tracks in AWS): the same
    // kind of signed link, keyed from the same secret, so they share this function.
    { method: 'GET', path: '/v1/t/o/{token}', access: PUBLIC, summary: 'Open tracking pixel of a tracked message: records opened, answers a 1×1 GIF (public)' },
    { method: 'GET', path: '/v1/t/c/{token}', access: PUBLIC, summary: 'Tracked link of a message: records clicked, answers 302 to the link its token signs (public)' },
  ],
  // The table: public routes are limited per client IP. The webhooks queue: opened and clicked fan out.
  needs: { table: 'readwrite', secrets: ['unsubscribe-signing-key'], sendTo: ['webhooks'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
