// The broadcasts and broadcast-fan-out functions (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND } from '../access';

export const broadcasts = defineFunction({
  name: 'broadcasts',
  entry: 'functions/broadcasts/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/send/bulk', access: SEND, summary: 'Bulk email to inline recipients or a contact list; fans out asynchronously (202)' },
    { method: 'GET', path: '/v1/broadcasts', access: SEND_OR_READ, summary: 'List broadcasts, newest first' },
    { method: 'GET', path: '/v1/broadcasts/{id}', access: SEND_OR_READ, summary: 'A broadcast with its send counts' },
    { method: 'POST', path: '/v1/broadcasts', access: SEND, summary: 'Create a broadcast: draft, scheduled (scheduled_at) or sending (send_now)' },
    { method: 'PATCH', path: '/v1/broadcasts/{id}', access: SEND, summary: 'Edit a draft broadcast' },
    { method: 'POST', path: '/v1/broadcasts/{id}/send', access: SEND, summary: 'Send a draft or scheduled broadcast now (202)' },
    { method: 'POST', path: '/v1/broadcasts/{id}/cancel', access: SEND, summary: 'Cancel a draft or scheduled broadcast' },
  ],
  // The scheduler: a scheduled broadcast starts from its schedule, which a cancel removes.
  needs: { table: 'readwrite', sendTo: ['fanout'], scheduler: true, secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 29,
});

export const broadcastFanOut = defineFunction({
  name: 'broadcast-fan-out',
  entry: 'functions/broadcasts/fan-out.ts',
  handler: 'handler',
  queue: 'fanout',
  // The bucket: each recipient's send writes content too large for its message item there.
  needs: { table: 'readwrite', sendTo: ['send', 'fanout', 'webhooks'], scheduler: true, bucket: 'readwrite' },
  memoryMb: 1024,
  timeoutSeconds: 120,
});
