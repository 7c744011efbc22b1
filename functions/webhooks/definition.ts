// The webhooks and webhook-worker functions (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND } from '../access';

export const webhooks = defineFunction({
  name: 'webhooks',
  entry: 'functions/webhooks/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/webhooks', access: SEND, summary: 'Subscribe an HTTPS endpoint; the signing secret is shown once' },
    { method: 'GET', path: '/v1/webhooks', access: SEND_OR_READ, summary: 'List webhook subscriptions' },
    { method: 'GET', path: '/v1/webhooks/{id}', access: SEND_OR_READ, summary: 'A subscription (never its secret)' },
    { method: 'PUT', path: '/v1/webhooks/{id}', access: SEND, summary: 'Change endpoint_url, event_types or is_active' },
    { method: 'DELETE', path: '/v1/webhooks/{id}', access: SEND, summary: 'Remove a subscription; its retries stop' },
    { method: 'POST', path: '/v1/webhooks/{id}/rotate-secret', access: SEND, summary: 'New signing secret, shown once' },
    { method: 'GET', path: '/v1/webhooks/{id}/deliveries', access: SEND_OR_READ, summary: 'Delivery log, most recent first' },
    { method: 'POST', path: '/v1/webhooks/{id}/deliveries/{delivery_id}/replay', access: SEND, summary: 'Deliver a logged event again, as a new delivery' },
    { method: 'POST', path: '/v1/webhooks/{id}/replay-failed', access: SEND, summary: 'Deliver every exhausted event of the log again' },
    { method: 'POST', path: '/v1/webhooks/{id}/test', access: SEND, summary: 'Deliver a signed webhook.test event' },
  ],
  // sendTo webhooks: replays and test events are queued attempts, made by the webhook worker.
  needs: { table: 'readwrite', sendTo: ['webhooks'], secrets: ['cursor-signing-key', 'data-encryption-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});

export const webhookWorker = defineFunction({
  name: 'webhook-worker',
  entry: 'functions/webhooks/deliver-webhook.ts',
  handler: 'handler',
  queue: 'webhooks',
  needs: { table: 'readwrite', sendTo: ['webhooks'], scheduler: true, secrets: ['data-encryption-key'] },
  memoryMb: 512,
  timeoutSeconds: 35,
});
