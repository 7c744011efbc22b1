import * as z from 'zod';
import { broadcastDetailView, broadcastView, bulkSendBody } from '../../shared/broadcasts/schemas';
import { listOf, pageQuery, type Contracts } from '../../shared/http/contract';
import { DEFAULT_SHARED_EMAIL_SENDER } from '../../shared/runtime/env-names';

const broadcastId = z.object({ id: z.string().meta({ description: 'The broadcast id, bcast_…' }) });

// The sandbox's shared sender when SHARED_EMAIL_SENDER is not set (shared/runtime/env-names.ts): the
// one from_email a new (sandbox) account may use.
const SHARED_SENDER = DEFAULT_SHARED_EMAIL_SENDER;

export const contracts: Contracts = {
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
      'Until contact lists exist, `audience_list_id` is 404 `not_found`. ',
      'A retry of this call creates another broadcast (there is no request-level idempotency key yet). `send_now` is accepted and ignored here.',
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
