import * as z from 'zod';
import { listOf, type ContractsOf } from '../../shared/http/contract';
import type { messages } from './definition';
import { canceledView, listMessagesQuery, messageSummaryView, messageView } from '../../shared/sending/messages/schemas';

const messageId = z.object({ id: z.string().meta({ description: 'The message id, msg_…' }) });

export const contracts: ContractsOf<typeof messages> = {
  'GET /v1/messages': {
    operationId: 'listMessages',
    description:
      'The account’s messages (live and test mode), newest first, filtered by `channel`, `status` and `created_at` bounds; the filters are bound to the cursor, so keep them identical on every page. ' +
      'With `idempotency_key` the answer is instead the one Message sent with that key, with its timeline (404 when none).',
    query: listMessagesQuery,
    paginated: true,
    responses: {
      200: {
        description: 'A page of MessageSummary; or, with idempotency_key, the full Message',
        schema: z.union([listOf('messages', messageSummaryView), messageView]),
      },
    },
    errors: ['not_found'],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'suppressed email, two a page', query: { channel: 'email', status: 'suppressed', limit: '2' }, status: 200 },
      { name: 'a time window', query: { from: '2020-01-01T00:00:00Z', to: '2999-12-31T23:59:59Z' }, status: 200 },
      { name: 'by idempotency key', query: { idempotency_key: '{{idempotency_key}}' }, status: 200 },
      { name: 'an unknown idempotency key', query: { idempotency_key: 'never-used-{{unique}}' }, status: 404 },
      { name: 'a date without a zone', query: { from: '2020-01-01' }, status: 400 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/messages/{id}': {
    operationId: 'getMessage',
    description: 'A message with its event timeline, oldest first. Another account’s message is 404, as an unknown one.',
    params: messageId,
    responses: { 200: { description: 'The message and its timeline', schema: messageView } },
    errors: ['not_found'],
    examples: [
      { name: 'a sent message', params: { id: '{{message_id}}' }, status: 200 },
      { name: 'no such message', params: { id: 'msg_missing' }, status: 404 },
    ],
  },
  'POST /v1/messages/{id}/cancel': {
    operationId: 'cancelMessage',
    description:
      'Cancels a scheduled message that has not been dispatched yet; its status becomes `canceled` and it is never sent. ' +
      '404 for anything else: already dispatched or sent, already canceled, never scheduled, unknown, another account’s. A test-mode key cancels test messages only.',
    params: messageId,
    responses: { 200: { description: 'Canceled', schema: canceledView } },
    errors: ['not_found'],
    examples: [
      { name: 'a scheduled message', params: { id: '{{scheduled_message_id}}' }, status: 200 },
      { name: 'a message already sent', params: { id: '{{message_id}}' }, status: 404 },
      { name: 'no such message', params: { id: 'msg_missing' }, status: 404 },
    ],
  },
};
