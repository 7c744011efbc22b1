import * as z from 'zod';
import { broadcastDetailView, broadcastView, bulkSendBody, updateBroadcastBody } from '../../shared/audiences/broadcasts/schemas';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { broadcasts } from './definition';
import { DEFAULT_SHARED_EMAIL_SENDER } from '../../shared/runtime/env-names';

const broadcastId = z.object({ id: z.string().meta({ description: 'The broadcast id, bcast_…' }) });

// The sandbox's shared sender when SHARED_EMAIL_SENDER is not set (shared/runtime/env-names.ts): the
// one from_email a new (sandbox) account may use.
const SHARED_SENDER = DEFAULT_SHARED_EMAIL_SENDER;

export const contracts: ContractsOf<typeof broadcasts> = {
  'POST /v1/send/bulk': {
    operationId: 'sendBulk',
    description: [
      'One email to many recipients, answered at once with the broadcast to poll (`status: sending`); the sends fan out asynchronously. ',
      'Content is inline (`subject` plus `body_html` or `body_text`, together at most 256 KiB) or `template_id`; recipients are inline ',
      '`recipients` (at most 10000 entries, counted before de-duplication) or `audience_list_id`, never both. ',
      'Checked before anything is stored: the shape, the content, the recipients, the `scheduled_at` window and the sender rules of a single send ',
      '(`from_email` must be the shared sender while the account is in the sandbox, else an address on a verified domain of the account). ',
      'Recipients are normalized and de-duplicated; invalid addresses and suppressed or unsubscribed recipients are skipped, not failed. ',
      'Each recipient\'s send is idempotent within the broadcast and runs through the single-send rules (sandbox recipients included). ',
      'With `template_id` (the account\'s template; another account\'s or an unknown one is 404 `template_not_found`, an inactive one 422 `template_error`) ',
      'the template\'s current version is pinned when the broadcast is created, so an edit during the fan-out changes no later recipient, ',
      'and each recipient\'s message is rendered with that recipient\'s `data` as its variables and records `template_id` and `template_version`; ',
      'a recipient whose `data` lacks a required variable is not sent and counts in `failed_count` (`missing_variable`). ',
      '`audience_list_id` names a static or dynamic contact list of the account (404 `not_found` otherwise); it is read page by page during the fan-out, ',
      'not in this request, so `total_recipients` grows as the walk goes; unsubscribed contacts are skipped, and with `template_id` a contact\'s variables are its `data` plus `email`, `first_name` and `last_name`. ',
      'A retry of this call creates another broadcast (there is no request-level idempotency key yet). `send_now` is accepted and ignored here; ',
      '`scheduled_at` schedules each recipient\'s message (the broadcast itself fans out at once).',
    ].join(''),
    body: bulkSendBody,
    responses: { 202: { description: 'The broadcast, sending', schema: broadcastView } },
    errors: ['not_found', 'template_not_found', 'template_error', 'invalid_schedule', 'from_not_verified', 'domain_not_verified', 'no_verified_domain'],
    examples: [
      {
        name: 'inline content to inline recipients',
        body: { from_email: SHARED_SENDER, name: 'Launch {{unique}}', subject: 'We are live', body_text: 'Hello from Postbox', recipients: [{ email: '{{owner_email}}' }] },
        status: 202,
      },
      {
        name: 'a template rendered per recipient with their data',
        body: { from_email: SHARED_SENDER, template_id: '{{template_id}}', recipients: [{ email: '{{owner_email}}', data: { first_name: 'Ada' } }] },
        status: 202,
      },
      {
        name: 'a template the account does not have',
        body: { from_email: SHARED_SENDER, template_id: 'tmpl_missing', recipients: [{ email: '{{owner_email}}' }] },
        status: 404,
      },
      {
        name: 'from a domain whose DNS is not verified yet',
        body: { from_email: 'news@{{domain}}', subject: 'We are live', body_text: 'Hello', recipients: [{ email: '{{owner_email}}' }] },
        status: 422,
      },
      { name: 'no recipients', body: { from_email: SHARED_SENDER, subject: 'We are live', body_text: 'Hello' }, status: 400 },
      { name: 'to a static contact list', body: { from_email: SHARED_SENDER, subject: 'We are live', body_text: 'Hello', audience_list_id: '{{list_id}}' }, status: 202 },
      { name: 'a list the account does not have', body: { from_email: SHARED_SENDER, subject: 'We are live', body_text: 'Hello', audience_list_id: 'lst_missing' }, status: 404 },
    ],
  },
  'POST /v1/broadcasts': {
    operationId: 'createBroadcast',
    description: [
      'A broadcast from the same body as POST /v1/send/bulk, checked by the same rules before anything is stored. ',
      'It is a `draft` (edit it with PATCH, send it with /send, cancel it) unless `send_now` is true (`sending`: the fan-out starts at once) ',
      'or `scheduled_at` is given (`scheduled`: the scheduler starts the fan-out at that time, 1 minute in the past to 90 days ahead, else 422 `invalid_schedule`); ',
      'both together are 400. A list audience is read when the fan-out runs, not now.',
    ].join(''),
    body: bulkSendBody,
    responses: { 201: { description: 'The broadcast: draft, scheduled or sending', schema: broadcastView } },
    errors: ['not_found', 'template_not_found', 'template_error', 'invalid_schedule', 'from_not_verified', 'domain_not_verified', 'no_verified_domain'],
    examples: [
      { name: 'a draft to a static list', body: { from_email: SHARED_SENDER, name: 'News {{unique}}', subject: 'News', body_text: 'Hello', audience_list_id: '{{list_id}}' }, status: 201 },
      { name: 'a draft to a dynamic list', body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', audience_list_id: '{{dynamic_list_id}}' }, status: 201 },
      { name: 'sent at once', body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', recipients: [{ email: '{{owner_email}}' }], send_now: true }, status: 201 },
      {
        name: 'scheduled past the 90-day window',
        body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', recipients: [{ email: '{{owner_email}}' }], scheduled_at: '2099-01-01T00:00:00Z' },
        status: 422,
      },
      { name: 'inline content and a template', body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', template_id: '{{template_id}}', recipients: [{ email: '{{owner_email}}' }] }, status: 400 },
      { name: 'neither inline content nor a template', body: { from_email: SHARED_SENDER, recipients: [{ email: '{{owner_email}}' }] }, status: 400 },
      { name: 'a list the account does not have', body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', audience_list_id: 'lst_missing' }, status: 404 },
      { name: 'from a domain whose DNS is not verified yet', body: { from_email: 'news@{{domain}}', subject: 'News', body_text: 'Hello', recipients: [{ email: '{{owner_email}}' }] }, status: 422 },
      { name: 'read key', body: { from_email: SHARED_SENDER, subject: 'News', body_text: 'Hello', recipients: [{ email: '{{owner_email}}' }] }, status: 403, as: 'read' },
    ],
  },
  'PATCH /v1/broadcasts/{id}': {
    operationId: 'updateBroadcast',
    description: [
      'Edits a draft: the fields sent replace the stored ones and null clears an optional one (to switch between inline content and `template_id`, ',
      'or between `recipients` and `audience_list_id`). The draft as edited must pass the creation rules again; a template is pinned again at its current version. ',
      'Any status but `draft` is 409 `conflict`, and so is an edit that loses a race to another edit or a send. ',
      '`scheduled_at` and `send_now` are not edits: send a draft with POST /v1/broadcasts/{id}/send. ',
      'A test-mode key edits test broadcasts only: a live one answers 404 `not_found`, as an unknown id does.',
    ].join(''),
    params: broadcastId,
    body: updateBroadcastBody,
    responses: { 200: { description: 'The draft as edited', schema: broadcastView } },
    errors: ['not_found', 'conflict', 'template_not_found', 'template_error', 'from_not_verified', 'domain_not_verified', 'no_verified_domain'],
    examples: [
      { name: 'rename a draft', params: { id: '{{draft_broadcast_id}}' }, body: { name: 'Renamed {{unique}}', subject: 'New subject' }, status: 200 },
      { name: 'a broadcast that is sending', params: { id: '{{broadcast_id}}' }, body: { name: 'Renamed' }, status: 409 },
      { name: 'both inline content and a template', params: { id: '{{draft_broadcast_id}}' }, body: { template_id: '{{template_id}}' }, status: 400 },
      { name: 'a list the account does not have', params: { id: '{{draft_broadcast_id}}' }, body: { audience_list_id: 'lst_missing', recipients: null }, status: 404 },
      { name: 'no such broadcast', params: { id: 'bcast_missing' }, body: { name: 'Renamed' }, status: 404 },
      { name: 'a live broadcast, with a test-mode key', params: { id: '{{draft_broadcast_id}}' }, body: { name: 'Renamed' }, status: 404, as: 'test' },
    ],
  },
  'POST /v1/broadcasts/{id}/send': {
    operationId: 'sendBroadcast',
    description:
      'A draft, or a scheduled broadcast ahead of its time, starts sending now (202; the fan-out runs asynchronously). A scheduled broadcast sent this way ' +
      'loses its schedule and its `scheduled_at` becomes null. The sender rules are checked again. Any other status is 409 `conflict`. ' +
      'A test-mode key sends test broadcasts only: a live one answers 404 `not_found`, as an unknown id does.',
    params: broadcastId,
    responses: { 202: { description: 'The broadcast, sending', schema: broadcastView } },
    errors: ['not_found', 'conflict', 'from_not_verified', 'domain_not_verified', 'no_verified_domain'],
    examples: [
      { name: 'send a draft', params: { id: '{{draft_broadcast_id}}' }, status: 202 },
      { name: 'a broadcast that is sending', params: { id: '{{broadcast_id}}' }, status: 409 },
      { name: 'no such broadcast', params: { id: 'bcast_missing' }, status: 404 },
      { name: 'a live broadcast, with a test-mode key', params: { id: '{{draft_broadcast_id}}' }, status: 404, as: 'test' },
    ],
  },
  'POST /v1/broadcasts/{id}/cancel': {
    operationId: 'cancelBroadcast',
    description:
      'A draft or scheduled broadcast becomes `cancelled` and never sends (a scheduled one\'s schedule is removed, and a schedule that fires anyway finds it cancelled). ' +
      'Any other status is 409 `conflict` (the spec leaves that code open: docs/api-decisions.md). ' +
      'A test-mode key cancels test broadcasts only: a live one answers 404 `not_found`, as an unknown id does.',
    params: broadcastId,
    responses: { 200: { description: 'The broadcast, cancelled', schema: broadcastView } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'cancel a draft', params: { id: '{{draft_broadcast_id}}' }, status: 200 },
      { name: 'a broadcast that is sending', params: { id: '{{broadcast_id}}' }, status: 409 },
      { name: 'no such broadcast', params: { id: 'bcast_missing' }, status: 404 },
      { name: 'a live broadcast, with a test-mode key', params: { id: '{{draft_broadcast_id}}' }, status: 404, as: 'test' },
    ],
  },
  'GET /v1/broadcasts': {
    operationId: 'listBroadcasts',
    description: 'The account\'s broadcasts, newest first.',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of broadcasts', schema: listOf('broadcasts', broadcastView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'read key', status: 200, as: 'read' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/broadcasts/{id}': {
    operationId: 'getBroadcast',
    description:
      'A broadcast of the account with its counts; another account\'s id is 404. `stats` come from the timelines of the ' +
      "broadcast's messages as events arrive: each message counts once per type (a duplicate notification or a second open " +
      'adds nothing); `total` is the fan-out\'s, and `failed` adds the recipients the fan-out refused.',
    params: broadcastId,
    responses: { 200: { description: 'The broadcast and its stats', schema: broadcastDetailView } },
    errors: [],
    examples: [
      { name: 'a broadcast', params: { id: '{{broadcast_id}}' }, status: 200 },
      { name: 'no such broadcast', params: { id: 'bcast_missing' }, status: 404 },
    ],
  },
};
