import * as z from 'zod';
import { listOf, type ContractsOf } from '../../shared/http/contract';
import type { mail } from './definition';
import type { mailSend } from '../mail-send/definition';
import { composeBody, forwardBody, replyBody } from '../../shared/inbound-mail/mailbox/compose-schemas';
import { sendResponse } from '../../shared/sending/messages/schemas';
import {
  createInboxBody,
  createLabelBody,
  folderBody,
  folderView,
  idView,
  inboxView,
  labelsBody,
  labelView,
  messageParams,
  messageStarView,
  readBody,
  readView,
  starBody,
  starView,
  threadDetail,
  threadId,
  threadListQuery,
  threadSummary,
} from '../../shared/inbound-mail/mailbox/schemas';
import { exportDocument, exportQuery, searchAnswer, searchQuery } from '../../shared/inbound-mail/mailbox/search-schemas';

const GATED = 'Deployment-gated: 404 `not_found` where inbound email is off (`INBOUND_ENABLED`).';
const inboxId = z.object({ id: z.string().meta({ description: 'The inbox id, mbx_…' }) });
const labelId = z.object({ id: z.string().meta({ description: 'The label id, lbl_…' }) });
const THREAD_404 = { name: 'no such thread', params: { id: 'thr_missing' }, status: 404 } as const;

/** What the Mail app's sends answer beyond the gate: the send rules' codes that an inline email from an own domain can meet. */
const MAIL_SEND_ERRORS = [
  'not_found',
  'payload_too_large',
  'channel_not_enabled',
  'invalid_destination',
  'from_not_verified',
  'domain_not_verified',
  'no_verified_domain',
  'spend_cap_exceeded',
  'recipient_suppressed',
  'idempotency_key_reused',
] as const;
const SENT = { 201: { description: 'Accepted: the message is queued and already in its thread (the `sent` view)', schema: sendResponse } };
const MAIL_SEND_RULES =
  'It goes through the send pipeline like POST /v1/send (suppressions, spend caps, usage, the sender rules). The Mail app sends only from a verified domain ' +
  'of the account outside the sandbox: in sandbox mode 422 `domain_not_verified` (a registered domain whose DNS is unfinished) or `no_verified_domain`. ' +
  'Give `idempotency_key` to retry safely (keyed `mail_<key>`); without it each call is a new send keyed `mail_<ulid>`.';

/** The Mail app's sending routes, served by the mail-send function. */
const sendingContracts: ContractsOf<typeof mailSend> = {
  'POST /v1/mail/compose': {
    operationId: 'composeMail',
    description: `A new message to one address; it starts a thread of its own. \`from\` omitted: the oldest inbox on a verified domain, else mail@ the oldest verified domain. ${MAIL_SEND_RULES} ${GATED}`,
    body: composeBody,
    responses: SENT,
    errors: MAIL_SEND_ERRORS,
    idempotent: true,
    examples: [
      { name: 'a new message', body: { to: '{{owner_email}}', from: 'team@{{inbound_domain}}', subject: 'Hello', body_text: 'Hi there', idempotency_key: '{{unique}}' }, status: 201 },
      { name: 'from a domain not verified yet', body: { to: '{{owner_email}}', from: 'team@{{domain}}', subject: 'Hello', body_text: 'Hi' }, status: 422 },
      { name: 'no body', body: { to: '{{owner_email}}', from: 'team@{{inbound_domain}}', subject: 'Hello' }, status: 400 },
      { name: 'read key', body: { to: '{{owner_email}}', subject: 'Hello', body_text: 'Hi' }, status: 403, as: 'read' },
    ],
  },
  'POST /v1/mail/threads/{id}/reply': {
    operationId: 'replyToMailThread',
    description:
      'A reply in the thread to its newest received message, from the address that message came to: `In-Reply-To` and `References` join it to the conversation, ' +
      'the subject is `Re: ` and that message\'s. `to` omitted: the sender of the thread\'s first received message. `cc` must be empty until the send pipeline carries Cc (400). ' +
      `409 \`conflict\` for a thread without received mail. ${MAIL_SEND_RULES} ${GATED}`,
    params: threadId,
    body: replyBody,
    responses: SENT,
    errors: [...MAIL_SEND_ERRORS, 'conflict'],
    idempotent: true,
    examples: [
      { ...THREAD_404, body: { body_text: 'Thanks!' } },
      { name: 'cc', params: { id: 'thr_missing' }, body: { body_text: 'Thanks!', cc: ['someone@example.com'] }, status: 400 },
    ],
  },
  'POST /v1/mail/threads/{id}/forward': {
    operationId: 'forwardMailThread',
    description:
      'Forwards the thread\'s newest received message to `to`, from the address it came to: the original attached as message/rfc822 when it fits SES\'s limit, ' +
      `the text part (when given) followed by the quoted original. \`subject\` omitted: \`Fwd: \` and the original's. Filed in the same thread. ${MAIL_SEND_RULES} ${GATED}`,
    params: threadId,
    body: forwardBody,
    responses: SENT,
    errors: [...MAIL_SEND_ERRORS, 'conflict'],
    idempotent: true,
    examples: [
      { ...THREAD_404, body: { to: 'someone@example.com', body_text: 'FYI' } },
      { name: 'no to', params: { id: 'thr_missing' }, body: { body_text: 'FYI' }, status: 400 },
    ],
  },
};

export const contracts: ContractsOf<typeof mail> & ContractsOf<typeof mailSend> = {
  'GET /v1/mail/inboxes': {
    operationId: 'listMailInboxes',
    description: `The account's inboxes, newest first. ${GATED}`,
    responses: { 200: { description: 'Inboxes', schema: z.object({ inboxes: z.array(inboxView) }).strict() } },
    errors: ['not_found'],
    examples: [{ name: 'all inboxes', status: 200 }],
  },
  'POST /v1/mail/inboxes': {
    operationId: 'createMailInbox',
    description: [
      'An inbox for `local_part@domain`. The domain must be a verified domain of the account, outside the sandbox, with inbound enabled',
      '(422 `domain_not_ready` otherwise; 404 for a domain that is not the account\'s). An address holds one inbox (409 `conflict`); an account',
      'at most 100. Mail that reached the address before keeps showing in it; mail to addresses without an inbox still lands in the threads',
      `(the catch-all stays active). ${GATED}`,
    ].join(' '),
    body: createInboxBody,
    responses: { 201: { description: 'The inbox', schema: inboxView } },
    errors: ['domain_not_ready', 'not_found', 'conflict'],
    examples: [
      { name: 'an inbox', body: { domain: '{{inbound_domain}}', local_part: 'support' }, status: 201 },
      { name: 'a domain not verified yet', body: { domain: '{{domain}}', local_part: 'support' }, status: 422 },
      { name: 'not a domain of the account', body: { domain: 'nobody-has-this.example.org', local_part: 'support' }, status: 404 },
      { name: 'no local_part', body: { domain: '{{inbound_domain}}' }, status: 400 },
      { name: 'read key', body: { domain: '{{inbound_domain}}', local_part: 'x' }, status: 403, as: 'read' },
    ],
  },
  'DELETE /v1/mail/inboxes/{id}': {
    operationId: 'deleteMailInbox',
    description: `Deletes an inbox. Its mail keeps its recipient address and thread and reads with \`inbox_id\` null. ${GATED}`,
    params: inboxId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found'],
    examples: [{ name: 'no such inbox', params: { id: 'mbx_missing' }, status: 404 }],
  },
  'GET /v1/mail/threads': {
    operationId: 'listMailThreads',
    description: [
      'Threads of one folder (default `inbox`; `starred` and `sent` are views, not folders), newest `last_message_at` first. `inbox_id`',
      '(404 for an unknown inbox) or `inbox` (any address of the account\'s inbound domains) narrows the list to threads that reached that address.',
      'A non-empty `q` (the search\'s syntax, 400 `invalid_request` when malformed) keeps the threads with a matching message, newest match first; such a page',
      `reads a bounded part of the index and may come back short with a \`next_cursor\`. ${GATED}`,
    ].join(' '),
    query: threadListQuery,
    paginated: true,
    responses: { 200: { description: 'Threads, newest first', schema: listOf('threads', threadSummary) } },
    errors: ['not_found'],
    examples: [
      { name: 'the inbox', status: 200 },
      { name: 'archive', query: { folder: 'archive' }, status: 200 },
      { name: 'not a folder', query: { folder: 'elsewhere' }, status: 400 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
      { name: 'no such inbox', query: { inbox_id: 'mbx_missing' }, status: 404 },
    ],
  },
  'GET /v1/mail/threads/{id}': {
    operationId: 'getMailThread',
    description: `A thread with its messages, oldest first (inbound ones with their verdicts, outbound ones with status and timeline). Marks the thread read. ${GATED}`,
    params: threadId,
    responses: { 200: { description: 'The thread', schema: threadDetail } },
    errors: ['not_found'],
    examples: [THREAD_404],
  },
  'GET /v1/mail/search': {
    operationId: 'searchMail',
    description: [
      'The account\'s inbound and outbound mail matching `q`, newest first, at most `limit` (default 50, at most 100): every word, phrase and',
      'operator must hold. Words are matched whole, without regard to case or accents, in the subject and the first 4,000 characters of the text;',
      'common words (the, and, …) only inside a phrase. `from:`/`to:` take an address, the part before its @ or its domain. `inbox_id` (404 for an',
      'unknown inbox) or `inbox` narrows it to the mail of one address. A malformed `q` (an unknown `has:`, a date not YYYY-MM-DD, nothing to',
      `search for) is 400 \`invalid_request\`. A search reads a bounded part of the index, so a query whose terms are each common but rare together may answer fewer results than exist. ${GATED}`,
    ].join(' '),
    query: searchQuery,
    responses: { 200: { description: 'Matching messages, newest first', schema: searchAnswer } },
    errors: ['not_found'],
    examples: [
      { name: 'words and an operator', query: { q: 'invoice from:billing@example.com' }, status: 200 },
      { name: 'operators alone', query: { q: 'has:attachment after:2026-01-01' }, status: 200 },
      { name: 'a date not YYYY-MM-DD', query: { q: 'after:yesterday' }, status: 400 },
      { name: 'no q', status: 400 },
      { name: 'no such inbox', query: { q: 'hello', inbox_id: 'mbx_missing' }, status: 404 },
    ],
  },
  'GET /v1/mail/export': {
    operationId: 'exportMail',
    description: [
      'The mail of a thread list (`folder`, `inbox_id`, `inbox`, `q` as on GET /v1/mail/threads) as the Export document (`format=json`, the',
      'default) or as mbox (`format=mbox`, RFC 4155 with `From ` lines quoted by one more `>`, `application/mbox`: each inbound message as',
      'received, outbound ones composed as text/plain). A call answers a page of at most 100 messages and 4 MiB; `next_cursor` (json) or the',
      '`Postbox-Next-Cursor` header (mbox) continues it, absent or null on the last page. Without `q`: threads newest first, each thread\'s',
      `messages oldest first; with \`q\`: the matching messages newest first. ${GATED}`,
    ].join(' '),
    query: exportQuery,
    responses: { 200: { description: 'The Export document (format=json), or mbox text (format=mbox)', schema: exportDocument } },
    errors: ['not_found'],
    examples: [
      { name: 'the inbox as json', status: 200 },
      { name: 'not a format', query: { format: 'pst' }, status: 400 },
      { name: 'a malformed q', query: { q: 'has:nothing' }, status: 400 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'PUT /v1/mail/threads/{id}/read': {
    operationId: 'setMailThreadRead',
    description: `Marks a thread read (the default) or unread. ${GATED}`,
    params: threadId,
    body: readBody,
    responses: { 200: { description: 'The read state', schema: readView } },
    errors: ['not_found'],
    examples: [{ ...THREAD_404, body: { read: false } }, { name: 'not a boolean', params: { id: 'thr_missing' }, body: { read: 'yes' }, status: 400 }],
  },
  'PUT /v1/mail/threads/{id}/star': {
    operationId: 'setMailThreadStarred',
    description: `Stars a thread (the default) or unstars it; unstarring also unstars its messages. ${GATED}`,
    params: threadId,
    body: starBody,
    responses: { 200: { description: 'The star', schema: starView } },
    errors: ['not_found'],
    examples: [{ ...THREAD_404, body: {} }],
  },
  'PUT /v1/mail/threads/{id}/folder': {
    operationId: 'setMailThreadFolder',
    description: `Moves a thread to inbox, archive, trash or spam (\`sent\` is not a target: 400). ${GATED}`,
    params: threadId,
    body: folderBody,
    responses: { 200: { description: 'The folder', schema: folderView } },
    errors: ['not_found'],
    examples: [{ ...THREAD_404, body: { folder: 'archive' } }, { name: 'sent is not a target', params: { id: 'thr_missing' }, body: { folder: 'sent' }, status: 400 }],
  },
  'PUT /v1/mail/threads/{id}/labels': {
    operationId: 'setMailThreadLabels',
    description: `Adds and removes labels by name, without regard to case; names of no label are ignored. ${GATED}`,
    params: threadId,
    body: labelsBody,
    responses: { 200: { description: 'Done', schema: idView } },
    errors: ['not_found'],
    examples: [{ ...THREAD_404, body: { add: ['Work'] } }, { name: 'not a list', params: { id: 'thr_missing' }, body: { add: 'Work' }, status: 400 }],
  },
  'PUT /v1/mail/messages/{source}/{id}/star': {
    operationId: 'setMailMessageStarred',
    description: `Stars one message (the default) or unstars it; \`source\` is inbound or outbound (400 otherwise). A starred message stars its thread in lists. ${GATED}`,
    params: messageParams,
    body: starBody,
    responses: { 200: { description: 'The star', schema: messageStarView } },
    errors: ['not_found'],
    examples: [
      { name: 'no such message', params: { source: 'inbound', id: 'inb_missing' }, body: {}, status: 404 },
      { name: 'not a source', params: { source: 'elsewhere', id: 'inb_missing' }, body: {}, status: 400 },
    ],
  },
  'GET /v1/mail/labels': {
    operationId: 'listMailLabels',
    description: `The account's labels, ordered by name without regard to case. ${GATED}`,
    responses: { 200: { description: 'Labels', schema: z.object({ labels: z.array(labelView) }).strict() } },
    errors: ['not_found'],
    examples: [{ name: 'all labels', status: 200 }],
  },
  'POST /v1/mail/labels': {
    operationId: 'createMailLabel',
    description: `A label: its name is unique without regard to case (409 \`conflict\`), its colour \`#rgb\` or \`#rrggbb\`; an account holds at most 200. ${GATED}`,
    body: createLabelBody,
    responses: { 201: { description: 'The label', schema: labelView } },
    errors: ['conflict'],
    examples: [
      { name: 'a label', body: { name: 'work-{{unique}}', color: '#1a73e8' }, status: 201 },
      { name: 'not a hex colour', body: { name: 'work', color: 'blue' }, status: 400 },
    ],
  },
  'DELETE /v1/mail/labels/{id}': {
    operationId: 'deleteMailLabel',
    description: `Deletes a label; it leaves every thread at once. ${GATED}`,
    params: labelId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found'],
    examples: [{ name: 'no such label', params: { id: 'lbl_missing' }, status: 404 }],
  },
  ...sendingContracts,
};
