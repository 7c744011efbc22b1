// The inbound and receive-email functions (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ } from '../access';

export const inbound = defineFunction({
  // Received mail (issue 16): reads. The routes answer 404 unless INBOUND_ENABLED (spec: deployment-gated).
  // Table writes: the pipeline's rate limiter and key checks write, as on every key route.
  name: 'inbound',
  entry: 'functions/inbound/http.ts',
  handler: 'handler',
  http: [
    { method: 'GET', path: '/v1/inbound', access: SEND_OR_READ, summary: 'List received emails, newest first (no bodies)' },
    { method: 'GET', path: '/v1/inbound/{id}', access: SEND_OR_READ, summary: 'A received email, with its text, html and headers' },
    { method: 'GET', path: '/v1/inbound/{id}/raw', access: SEND_OR_READ, summary: 'The received message as it arrived (message/rfc822)' },
    { method: 'GET', path: '/v1/inbound/{id}/attachments/{index}', access: SEND_OR_READ, summary: "One attachment's bytes, by its 0-based index" },
  ],
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'], bucket: 'read' },
  memoryMb: 512,
  timeoutSeconds: 10,
});

export const receiveEmail = defineFunction({
  // SES receiving's notifications (and the local SMTP listener's): parse, store, email.received.
  name: 'receive-email',
  entry: 'functions/inbound/receive-email.ts',
  handler: 'handler',
  queue: 'inbound',
  // The bucket: reads the raw message, writes its attachments (and large content) beside it. The
  // queues: email.received and a route's webhook forward go to webhooks, a route's email forward to send.
  needs: { table: 'readwrite', sendTo: ['webhooks', 'send'], bucket: 'readwrite' },
  // A 40 MB message is read whole, and each attachment is held while it is stored.
  memoryMb: 1024,
  timeoutSeconds: 120,
});
