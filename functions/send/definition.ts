// The send, send-worker and acceptance-sweep functions (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND } from '../access';

export const send = defineFunction({
  name: 'send',
  entry: 'functions/send/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/send', access: SEND, summary: 'Send one message (idempotent on idempotency_key)' },
    { method: 'POST', path: '/v1/send/batch', access: SEND, summary: 'Send up to 1000 messages, each independently' },
    { method: 'POST', path: '/v1/validate', access: SEND_OR_READ, summary: 'Check an address: syntax and a domain that takes mail' },
  ],
  // The bucket: content too large for the message item is written there (shared/sending/messages/content.ts).
  needs: { table: 'readwrite', sendTo: ['send'], scheduler: true, bucket: 'readwrite' },
  memoryMb: 1024,
  timeoutSeconds: 29,
});

export const sendWorker = defineFunction({
  name: 'send-worker',
  entry: 'functions/send/send-message.ts',
  handler: 'handler',
  queue: 'send',
  // The bucket: reads back content too large for the message item. The unsubscribe key and
  // links: marketing mail's unsubscribe link, in its headers and body (shared/sending/unsubscribe/).
  // reputation: the alert mail names the levels. The send queue: a job that came before its
  // message goes back on it for a later look (shared/sending/messages/dispatch.ts).
  needs: { table: 'readwrite', sesSend: true, sendTo: ['webhooks', 'send'], bucket: 'read', secrets: ['unsubscribe-signing-key'], links: true, reputation: true },
  memoryMb: 512,
  timeoutSeconds: 30,
});

export const acceptanceSweep = defineFunction({
  name: 'acceptance-sweep',
  entry: 'functions/send/sweep.ts',
  handler: 'handler',
  every: { minutes: 1, summary: 'Finishes sends a killed request left half accepted (shared/sending/messages/recovery.ts)' },
  needs: { table: 'readwrite', sendTo: ['send', 'webhooks'], scheduler: true },
  memoryMb: 512,
  timeoutSeconds: 60,
});
