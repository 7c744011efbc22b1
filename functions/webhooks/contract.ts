import * as z from 'zod';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { webhooks } from './definition';
import {
  createWebhookBody,
  deliveryView,
  replayFailedView,
  subscriptionView,
  subscriptionWithSecretView,
  updateWebhookBody,
  webhookDeletedView,
} from '../../shared/webhooks/schemas';

const webhookId = z.object({ id: z.string().meta({ description: 'The subscription id, whk_…' }) });
const deliveryId = webhookId.extend({ delivery_id: z.string().meta({ description: 'A delivery id of the log, dlv_…' }) });

/** Who may replay or test: the rule of every change to a subscription. */
const TEST_MODE_RULE = 'A test-mode caller may do this only on a subscription a test-mode caller made; a live one answers it 404, as an unknown id does.';

/**
 * How a receiver checks a delivery: shared/webhooks/deliver.ts (signedHeaders, signatureOf) and
 * shared/crypto/crypto.ts (hmacSha256) are what this describes; the typed client's verifySignature and
 * the README's snippet implement it.
 */
const SIGNATURE_SCHEME = [
  '**Deliveries and their signature.** Each event is POSTed to `endpoint_url` as JSON, the envelope',
  '`{event_id, event_type, message_id, account_id, payload, occurred_at, created_at}`, with these headers:',
  '',
  '- `Content-Type: application/json`',
  '- `Service-Event-Id`: the envelope\'s `event_id`, the same on every retry: deduplicate on it (delivery is at least once, in no guaranteed order)',
  '- `Service-Event-Type`: the envelope\'s `event_type`',
  '- `Service-Timestamp`: when this attempt was signed, in Unix seconds (decimal)',
  '- `Service-Signature`: lowercase hex of `HMAC-SHA256(key = signing_secret, message = Service-Timestamp + "." + raw body)`',
  '- `User-Agent: Postbox-Webhooks/1.0`',
  '',
  'The HMAC key is the `signing_secret` string exactly as shown (its 64 characters as UTF-8 bytes; do not hex-decode it).',
  'The message is the `Service-Timestamp` header value, one `.` (0x2E), then the raw request body bytes as received, before any JSON parsing.',
  'To verify: recompute the HMAC, compare it with the hex-decoded `Service-Signature` in constant time, and refuse a timestamp more than 300 seconds from the current time (the recommended tolerance).',
  'Every attempt is signed afresh (new timestamp) with the secret current at that moment, so after a rotation an attempt already in flight may still carry a signature from the previous secret.',
  '',
  'Answer 2xx within 30 seconds. Anything else (another status, 3xx included: redirects are not followed; a timeout; a connection error) fails the attempt,',
  'retried 30 s × 2^(n−1) after the n-th (±25 % jitter) until 12 attempts or 24 hours; the delivery log (`GET /v1/webhooks/{id}/deliveries`) shows each delivery\'s state.',
].join('\n');

export const contracts: ContractsOf<typeof webhooks> = {
  'POST /v1/webhooks': {
    operationId: 'createWebhook',
    description: [
      'Subscribes an endpoint to events of the account\'s messages, test mode included. The `signing_secret` is in this answer only.',
      '`endpoint_url` must be `https://` and every address its host resolves to must be public (loopback, private, link-local,',
      'CGNAT, documentation and cloud metadata addresses are refused, as is a host that does not resolve): 400 `invalid_request` naming `body.endpoint_url`.',
      'An account holds at most 20 subscriptions (400 past that).',
      '',
      SIGNATURE_SCHEME,
    ].join('\n'),
    body: createWebhookBody,
    responses: { 201: { description: 'The subscription with its signing secret, shown once', schema: subscriptionWithSecretView, secret: true } },
    errors: [],
    examples: [
      // A public address literal needs no DNS; email.received never fires here, so nothing is ever delivered to it.
      { name: 'a subscription', body: { endpoint_url: 'https://93.184.215.14/postbox-events', event_types: ['email.received'] }, status: 201 },
      { name: 'no endpoint_url', body: { event_types: ['delivered'] }, status: 400 },
      { name: 'an event type that is not subscribable', body: { endpoint_url: 'https://93.184.215.14/postbox-events', event_types: ['queued'] }, status: 400 },
    ],
  },
  'GET /v1/webhooks': {
    operationId: 'listWebhooks',
    description: 'The account\'s subscriptions, newest first; never a secret.',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of subscriptions', schema: listOf('webhooks', subscriptionView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'read key', status: 200, as: 'read' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/webhooks/{id}': {
    operationId: 'getWebhook',
    description: 'A subscription of the account, without its secret; another account\'s id is 404.',
    params: webhookId,
    responses: { 200: { description: 'The subscription', schema: subscriptionView } },
    errors: [],
    examples: [
      { name: 'a subscription', params: { id: '{{webhook_id}}' }, status: 200 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
  'PUT /v1/webhooks/{id}': {
    operationId: 'updateWebhook',
    description: [
      'Only the fields sent change; `{}` answers the subscription unchanged. A new `endpoint_url` is checked as on create ',
      '(a refused URL rejects the whole change). `is_active: false` pauses delivery: no new deliveries, and retries that come due wait ',
      '(no attempt is spent) until it is active again or their 24-hour window closes.',
    ].join(''),
    params: webhookId,
    body: updateWebhookBody,
    responses: { 200: { description: 'The subscription as changed', schema: subscriptionView } },
    errors: [],
    examples: [
      { name: 'pause', params: { id: '{{webhook_id}}' }, body: { is_active: false }, status: 200 },
      { name: 'an unknown field', params: { id: '{{webhook_id}}' }, body: { active: false }, status: 400 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, body: { is_active: true }, status: 404 },
    ],
  },
  'DELETE /v1/webhooks/{id}': {
    operationId: 'deleteWebhook',
    description: 'Removes the subscription for good; its pending retries stop.',
    params: webhookId,
    responses: { 200: { description: 'Deleted', schema: webhookDeletedView } },
    errors: [],
    examples: [
      { name: 'delete', params: { id: '{{webhook_id}}' }, status: 200 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
  'POST /v1/webhooks/{id}/rotate-secret': {
    operationId: 'rotateWebhookSecret',
    description: [
      'A new `signing_secret`, in this answer only; the previous one is never shown again and signs no new attempt.',
      'Two rotations at once: the later one gets 409 `conflict`, so nobody holds a secret that does not work.',
      '',
      SIGNATURE_SCHEME,
    ].join('\n'),
    params: webhookId,
    responses: { 200: { description: 'The subscription with its new signing secret, shown once', schema: subscriptionWithSecretView, secret: true } },
    errors: ['conflict'],
    examples: [
      { name: 'rotate', params: { id: '{{webhook_id}}' }, status: 200 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
  'GET /v1/webhooks/{id}/deliveries': {
    operationId: 'listWebhookDeliveries',
    description: [
      'The subscription\'s delivery log, most recent first: one record per event delivered to it, kept 30 days. ',
      'The cursor is bound to the subscription. How deliveries are made, signed and retried: see `createWebhook`.',
    ].join(''),
    params: webhookId,
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of delivery records', schema: listOf('deliveries', deliveryView) } },
    errors: [],
    examples: [
      { name: 'first page', params: { id: '{{webhook_id}}' }, status: 200 },
      { name: 'a cursor from elsewhere', params: { id: '{{webhook_id}}' }, query: { cursor: 'not-a-cursor' }, status: 400 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
  'POST /v1/webhooks/{id}/deliveries/{delivery_id}/replay': {
    operationId: 'replayWebhookDelivery',
    description: [
      'Delivers a logged event again as a **new delivery** (new `dlv_` id, attempt 1, its own retry schedule): the same body bytes, the same ',
      '`Service-Event-Id` (deduplicate on it), a fresh `Service-Timestamp` and a signature by the secret current when it is attempted. ',
      'The original delivery stays in the log as it ended. Any delivery of the log may be replayed, a succeeded one included. ',
      TEST_MODE_RULE,
    ].join(''),
    params: deliveryId,
    responses: { 202: { description: 'The new delivery, pending; its outcome shows in the delivery log', schema: deliveryView } },
    errors: [],
    examples: [
      { name: 'no such delivery', params: { id: '{{webhook_id}}', delivery_id: 'dlv_missing' }, status: 404 },
      { name: 'no such subscription', params: { id: 'whk_missing', delivery_id: 'dlv_missing' }, status: 404 },
    ],
  },
  'POST /v1/webhooks/{id}/replay-failed': {
    operationId: 'replayFailedWebhookDeliveries',
    description: [
      'Replays (as `replayWebhookDelivery` does) every **exhausted** delivery of the log, oldest first, one per event, at most 100 a call ',
      '(`has_more`: call again). A `failed` delivery still has a retry scheduled and an event with a delivery under way is left to it, ',
      'so a second call does not deliver an event twice. ',
      TEST_MODE_RULE,
    ].join(''),
    params: webhookId,
    responses: { 202: { description: 'The new deliveries, pending', schema: replayFailedView } },
    errors: [],
    examples: [
      { name: 'nothing to replay', params: { id: '{{webhook_id}}' }, status: 202 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
  'POST /v1/webhooks/{id}/test': {
    operationId: 'testWebhook',
    description: [
      'Delivers a test event to this subscription only, whatever its `event_types`: the usual envelope with `event_type` `webhook.test`, ',
      '`message_id` empty and `payload` `{test: true, subscription_id, note}`, signed and retried as any delivery and logged. ',
      'A paused subscription keeps it waiting as any delivery. ',
      TEST_MODE_RULE,
    ].join(''),
    params: webhookId,
    responses: { 202: { description: 'The test delivery, pending; its outcome shows in the delivery log', schema: deliveryView } },
    errors: [],
    examples: [
      { name: 'a test event', params: { id: '{{webhook_id}}' }, status: 202 },
      { name: 'no such subscription', params: { id: 'whk_missing' }, status: 404 },
    ],
  },
};
