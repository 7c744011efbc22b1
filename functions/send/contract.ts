import {
  batchResponse,
  sendBatchBody,
  sendErrorCodes,
  sendRequest,
  sendResponse,
  validateBody,
  validationView,
} from '../../shared/sending/messages/schemas';
import type { ContractsOf } from '../../shared/http/contract';
import type { send } from './definition';

const email = (to: string, subject = 'Hello from the contract test') => ({
  channel: 'email',
  idempotency_key: '{{unique}}',
  destination: { email: to },
  payload: { subject, body_text: 'Hello.' },
});

const IDEMPOTENCY =
  'Send again with the same `idempotency_key` and the same body (the same JSON value: key order and whitespace do not matter) to get the first answer again; ' +
  'nothing is sent twice. The same key with another body is 409 `idempotency_key_reused`. Requests with the same key that overlap get the one message: ' +
  'its id follows from the account and the key, so whichever stores it first answers for all of them. ' +
  'Refusals decided before the key is claimed (400, 403, 413, 422 and 429 test_send_daily_limit) are not remembered: a retry is checked again.';

export const contracts: ContractsOf<typeof send> = {
  'POST /v1/send': {
    operationId: 'send',
    description:
      `Accepts one message: 201 once it is stored and queued (or scheduled); delivery is reported on its timeline (GET /v1/messages/{id}) and to webhooks. ${IDEMPOTENCY}\n\n` +
      'A recipient on the suppression list for the channel is 409 `recipient_suppressed`: the message is stored with status `suppressed` and never sent, and a retry answers the same. ' +
      'While the account is in the sandbox (no verified domain of its own), live email goes only from the shared sender and only to the account’s address or a verified test recipient (403 `recipient_not_verified`); ' +
      'a test-mode key sends nothing and is not held to that. A test recipient takes 10 sends a day, a signed-up account’s own address 50 (UTC days; 429 `test_send_daily_limit` with `Retry-After`). ' +
      'The shared sender takes no display name of the account’s choosing: `metadata.from_email` names it bare or is omitted (400 `invalid_request` otherwise).',
    body: sendRequest,
    idempotent: true,
    responses: { 201: { description: 'Accepted: queued, or scheduled when scheduled_at was given', schema: sendResponse } },
    errors: sendErrorCodes,
    examples: [
      { name: 'an email to the account’s own address', body: email('{{owner_email}}'), status: 201 },
      { name: 'a test-mode send to anyone', body: email('someone@example.com'), status: 201, as: 'test' },
      {
        name: 'an existing key with another body',
        body: { ...email('{{owner_email}}', 'Another body {{unique}}'), idempotency_key: '{{idempotency_key}}' },
        status: 409,
      },
      { name: 'a suppressed recipient', body: email('{{suppressed_email}}'), status: 409, as: 'test' },
      { name: 'a sandbox account mailing a stranger', body: email('stranger@example.com'), status: 403 },
      { name: 'no idempotency_key', body: { channel: 'email', destination: { email: '{{owner_email}}' }, payload: { subject: 'Hi', body_text: 'Hi' } }, status: 400 },
      { name: 'no body text', body: { ...email('{{owner_email}}'), payload: { subject: 'Hi' } }, status: 422 },
      { name: 'scheduled in the past', body: { ...email('{{owner_email}}'), scheduled_at: '2000-01-01T00:00:00Z' }, status: 422 },
    ],
  },
  'POST /v1/send/batch': {
    operationId: 'sendBatch',
    description:
      'Up to 1000 sends in one request, each accepted or refused on its own exactly as POST /v1/send would (partial success is normal). ' +
      'The answer is 200 with one result per item in request order: `{"success": true, "response": <SendResponse>}` or ' +
      '`{"success": false, "error": {"code", "message", "status"}}`, the error object the single send would have answered (for example ' +
      '`recipient_suppressed` with status 409), and field errors name the item (`body.3.destination`). ' +
      `${IDEMPOTENCY} Items repeating a key within one batch are retries of the first item with that key. ` +
      'An item has no headers of its own: an item refused with `test_send_daily_limit` carries no `Retry-After`; resend it after 00:00 UTC. The request fails as a whole only for what concerns all of it: not an array or an empty one (400), more than 1000 items (413 `batch_too_large`), credentials, rate limit.',
    body: sendBatchBody,
    idempotent: true,
    responses: { 200: { description: 'One result per item, in request order', schema: batchResponse } },
    errors: ['batch_too_large'],
    examples: [
      { name: 'two sends', body: [email('{{owner_email}}'), { ...email('{{owner_email}}', 'Second'), idempotency_key: 'second-{{unique}}' }], status: 200 },
      {
        name: 'partial success: one sent, one suppressed, one malformed',
        body: [email('someone@example.com'), { ...email('{{suppressed_email}}'), idempotency_key: 'suppressed-{{unique}}' }, { channel: 'email' }],
        status: 200,
        as: 'test',
      },
      { name: 'an empty batch', body: [], status: 400 },
      { name: 'not an array', body: email('{{owner_email}}'), status: 400 },
    ],
  },
  'POST /v1/validate': {
    operationId: 'validateAddress',
    description:
      'Checks an address without sending: its syntax, then whether its domain publishes an MX, A or AAAA record. ' +
      'An invalid address is a 200 with `valid: false` and the reason; a resolver that does not answer is `dns_unavailable`, not an error. Any key scope may call it.',
    body: validateBody,
    responses: { 200: { description: 'The normalized address and the verdict', schema: validationView } },
    errors: ['validation_not_configured'],
    examples: [
      { name: 'not an address', body: { email: 'not-an-address' }, status: 200 },
      { name: 'with a read key', body: { email: 'no at sign' }, status: 200, as: 'read' },
      { name: 'no email field', body: { address: 'someone@example.com' }, status: 400 },
    ],
  },
};
