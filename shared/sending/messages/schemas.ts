// The messages area's zod wire shapes: what the send routes take and answer, the message views,
// and the validate answer. The TypeScript types are inferred from them, so the code's answers and
// the OpenAPI document (functions/send/contract.ts, functions/messages/contract.ts) cannot drift.
import * as z from 'zod';
import { channels } from '../../accounts/service';
import type { ErrorCode } from '../../errors';
import { pageQuery } from '../../pagination/schemas';
import { trackingRequest } from '../tracking/schemas';

/** A message's kind: marketing mail carries its one-click unsubscribe; broadcasts choose one too. */
export const messageTypes = ['transactional', 'marketing'] as const;
export type MessageType = (typeof messageTypes)[number];

const object = z.record(z.string(), z.unknown());
const timestamp = z.string().meta({ description: 'RFC 3339 UTC timestamp with milliseconds' });

/** SendRequest as the spec writes it. Channel rules beyond shape are business checks (422). */
export const sendRequest = z
  .object({
    channel: z.enum(channels),
    idempotency_key: z.string().min(1).max(256).meta({ description: 'Unique per logical send; a retry with the same key and body gets the first answer again' }),
    message_type: z.enum(messageTypes).optional().meta({ description: 'Default transactional' }),
    destination: object.meta({ description: 'email: {email}; webhook: {url} (https). Extra keys allowed' }),
    payload: object.optional().meta({ description: 'email: {subject, body_html and/or body_text}; webhook: {data}. Extra keys allowed' }),
    template_id: z.string().min(1).optional().meta({ description: 'Email: render this template of the account (its current version) instead of an inline payload; 404 template_not_found, 422 template_error (inactive, or the render failed), 400 missing_variable' }),
    template_vars: object.optional().meta({ description: 'Values of the template variables (with template_id)' }),
    metadata: object.optional().meta({ description: 'Per-send options: email {from_email} as `address` or `Name <address>`' }),
    tracking: trackingRequest
      .optional()
      .meta({ description: 'Email: open and click tracking of this send. Unset: transactional mail is not tracked; marketing mail follows the sending domain\'s open_tracking and click_tracking' }),
    validate_recipient: z.boolean().optional().meta({ description: 'When true, the recipient domain must publish an MX, A or AAAA record (422 recipient_undeliverable)' }),
    scheduled_at: z.iso
      .datetime({ offset: true })
      .optional()
      .meta({ description: 'RFC 3339 with a zone; no more than 1 minute in the past and 90 days ahead (422 invalid_schedule)' }),
  })
  .strict();

export type SendRequest = z.infer<typeof sendRequest>;

export const MAX_BATCH = 1000;

/**
 * POST /v1/send/batch. The handler checks the array and its length itself (more than MAX_BATCH is
 * 413 batch_too_large, not 400); each item is then checked on its own, so an item that is not a
 * valid SendRequest is that item's error (invalid_request naming `body.<index>.…`), not a 400.
 */
export const sendBatchBody = z
  .array(sendRequest)
  .min(1)
  .max(MAX_BATCH)
  .meta({ description: `1 to ${MAX_BATCH} SendRequest objects (more is 413 batch_too_large); an invalid item is that item's error, not the request's` });

export const sendResponse = z
  .object({
    id: z.string().meta({ description: 'The message id, msg_…' }),
    status: z.enum(['queued', 'scheduled']).meta({ description: '`scheduled` when scheduled_at was given, until dispatch' }),
    channel: z.enum(channels),
    idempotency_key: z.string(),
    created_at: timestamp,
  })
  .strict();

export type SendResponse = z.infer<typeof sendResponse>;

/**
 * The codes one send's own rules can answer, single or as a batch item: the checks before the
 * idempotency claim (shape, size, channel, destination, payload, template, sender, sandbox,
 * schedule, recipient check, test-send limit), then the claim's answers and the suppression list.
 */
export const sendErrorCodes = [
  'invalid_request',
  'payload_too_large',
  'channel_not_enabled',
  'invalid_destination',
  'invalid_channel_payload',
  'template_not_found',
  'missing_variable',
  'template_error',
  'from_required',
  'from_not_verified',
  'domain_not_verified',
  'no_verified_domain',
  'recipient_not_verified',
  'invalid_schedule',
  'validation_not_configured',
  'recipient_undeliverable',
  'test_send_daily_limit',
  'recipient_suppressed',
  'idempotency_key_reused',
] as const satisfies readonly ErrorCode[];

export type SendErrorCode = (typeof sendErrorCodes)[number];

/** An item's error: the error object the single send would have answered, status included. */
export const sendItemError = z
  .object({
    code: z.enum(sendErrorCodes),
    message: z.string(),
    status: z.int().min(400).max(599).meta({ description: 'The HTTP status the single send would have answered with' }),
  })
  .strict();

/** One entry of the batch answer, in request order: `response` on success, `error` otherwise. */
export const batchItemResult = z.discriminatedUnion('success', [
  z.object({ success: z.literal(true), response: sendResponse }).strict(),
  z.object({ success: z.literal(false), error: sendItemError }).strict(),
]);

export type BatchItemResult = z.infer<typeof batchItemResult>;

export const batchResponse = z.array(batchItemResult).meta({ description: 'One result per item, in request order' });

export const validateBody = z.object({ email: z.string().max(320) }).strict();

export const validationView = z
  .object({
    email: z.string().meta({ description: 'The address, trimmed and lower-cased' }),
    valid: z.boolean(),
    reason: z.enum(['', 'invalid_syntax', 'no_mail_records', 'dns_unavailable']).meta({ description: 'Empty when valid' }),
  })
  .strict();

export type Validation = z.infer<typeof validationView>;

// ---- Messages and their timeline ------------------------------------------------------------------

export const messageStatuses = [
  'queued',
  'scheduled',
  'canceled',
  'sent',
  'delivered',
  'opened',
  'clicked',
  'delivery_delayed',
  'bounced',
  'complained',
  'failed',
  'suppressed',
  'unsubscribed',
] as const;

export const messageStatus = z.enum(messageStatuses);

/** Timeline event types: every status but the three that are statuses only. */
export const eventType = messageStatus.exclude(['queued', 'scheduled', 'canceled']);
export const eventSource = z.enum(['worker', 'router', 'ses', 'sns']);

export const timelineEventView = z
  .object({
    id: z.string().meta({ description: 'evt_… for provider and worker events; the message id for the router (suppression) event' }),
    type: eventType,
    message_id: z.string(),
    account_id: z.string(),
    source: eventSource.meta({ description: 'worker (send pipeline), router (suppression before dispatch), ses or sns (the mail provider)' }),
    provider_event_id: z.string().meta({ description: 'The dedup key: the provider’s id, wkr_… for worker events, supp_… for router events' }),
    payload: object.meta({ description: 'Shape follows the source; {} when no detail' }),
    occurred_at: timestamp,
    created_at: timestamp,
  })
  .strict();

export const messageSummaryView = z
  .object({
    id: z.string(),
    channel: z.enum(channels),
    status: messageStatus,
    message_type: z.enum(messageTypes),
    created_at: timestamp,
  })
  .strict();

export const messageView = messageSummaryView
  .extend({
    idempotency_key: z.string(),
    provider_message_id: z.string().meta({ description: 'Empty until the provider accepts the message' }),
    updated_at: timestamp,
    test_mode: z.boolean(),
    scheduled_at: timestamp.nullable().meta({ description: 'Null unless the message was scheduled' }),
    template_id: z.string().nullable().meta({ description: 'The template the send rendered (its template_id); null when the content was given inline' }),
    template_version: z
      .number()
      .int()
      .min(1)
      .nullable()
      .meta({ description: 'The version of that template the message was rendered from (a later edit never changes it); null when not templated' }),
    events: z.array(timelineEventView).meta({ description: 'The timeline, oldest first by occurred_at' }),
  })
  .strict();

export const canceledView = z.object({ id: z.string(), status: z.literal('canceled') }).strict();

export type CanceledView = z.infer<typeof canceledView>;

/** GET /v1/messages: filters bound to the cursor, or one message by its idempotency key. */
export const listMessagesQuery = z.object({
  channel: z.enum(channels).optional(),
  status: z.string().min(1).max(40).optional().meta({ description: 'Any status name' }),
  from: z.iso.datetime({ offset: true }).optional().meta({ description: 'RFC 3339, inclusive lower bound on created_at' }),
  to: z.iso.datetime({ offset: true }).optional().meta({ description: 'RFC 3339, inclusive upper bound on created_at' }),
  idempotency_key: z
    .string()
    .min(1)
    .max(256)
    .optional()
    .meta({ description: 'Answer the one Message sent with this key (with its timeline) instead of a list; 404 when none' }),
  ...pageQuery.shape,
});

export type ListMessagesQuery = z.infer<typeof listMessagesQuery>;
