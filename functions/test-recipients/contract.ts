import * as z from 'zod';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { testRecipients } from './definition';
import { createTestRecipientBody, testRecipientView, verifiedTestRecipientView, verifyLinkQuery } from '../../shared/sending/test-recipients/schemas';

const recipientId = z.object({ id: z.string().meta({ description: 'The test recipient id, trc_…' }) });

export const contracts: ContractsOf<typeof testRecipients> = {
  'GET /v1/test-recipients': {
    operationId: 'listTestRecipients',
    description: 'The addresses a sandbox account may mail besides its own, pending or verified, newest first.',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'The test recipients; never a link token', schema: listOf('test_recipients', testRecipientView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'with a read key', status: 200, as: 'read' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'POST /v1/test-recipients': {
    operationId: 'createTestRecipient',
    description:
      'Registers an address and mails it a one-time link from the shared sender; it becomes `verified` when the link is opened. At most 3 per account, pending ones included (422 `too_many_test_recipients`; delete one first). ' +
      'An address already registered answers 200 with its entry, and a pending one gets a fresh link (the older link stops working). At most 3 link mails per address per hour (429 `rate_limit_exceeded` with Retry-After). ' +
      'A test-mode key cannot register (403): the link is real mail. 503 `test_send_not_configured` when the deployment cannot send the link mail; the registration is then undone.',
    body: createTestRecipientBody,
    responses: {
      201: { description: 'Registered; the link is mailed', schema: testRecipientView },
      200: { description: 'Already registered: its entry (a pending one got a fresh link)', schema: testRecipientView },
    },
    errors: ['too_many_test_recipients', 'rate_limit_exceeded', 'test_send_not_configured'],
    examples: [
      { name: 'register an address', body: { email: 'tester-{{unique}}@example.com' }, status: 201 },
      { name: 'not an address', body: { email: 'not-an-address' }, status: 400 },
      { name: 'with a test-mode key', body: { email: 'tester-{{unique}}@example.com' }, status: 403, as: 'test' },
    ],
  },
  'DELETE /v1/test-recipients/{id}': {
    operationId: 'deleteTestRecipient',
    description: 'Removes the entry and its outstanding link, freeing a slot.',
    params: recipientId,
    responses: { 204: { description: 'Removed' } },
    errors: [],
    examples: [
      { name: 'remove', params: { id: '{{test_recipient_id}}' }, status: 204 },
      { name: 'no such test recipient', params: { id: 'trc_missing' }, status: 404 },
    ],
  },
  'GET /v1/test-recipients/verify': {
    operationId: 'verifyTestRecipient',
    description:
      'The one-time link mailed to a test recipient: it works once, for 24 hours, and verifies the address. ' +
      'Answered by content negotiation: when `Accept` ranks `text/html` above `application/json` (a browser following the link) the answer is a small HTML page, `text/html; charset=utf-8` ' +
      '(200 "Address confirmed", or 400 "Link not valid" for an invalid token), served with `Cache-Control: no-store`, `Referrer-Policy: no-referrer` and a `default-src \'none\'` policy; ' +
      'otherwise (no `Accept`, `*/*`, `application/json`) it is the JSON documented here. A missing, malformed, unknown, used or expired token, or the link of a deleted entry, is 400 `invalid_token`. Limited per client IP.',
    query: verifyLinkQuery,
    responses: { 200: { description: 'Verified (JSON; a browser gets an HTML page)', schema: verifiedTestRecipientView } },
    errors: ['invalid_token'],
    examples: [
      { name: 'a malformed token', query: { token: 'not-a-token' }, status: 400, as: 'none' },
      { name: 'an unknown token', query: { token: '0123456789abcdefghijABCDEFGHIJ0123456789' }, status: 400, as: 'none' },
    ],
  },
};
