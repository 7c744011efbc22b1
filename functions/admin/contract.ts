import * as z from 'zod';
import { adminAuditQuery, staffAuditEntryView } from '../../shared/accounts/audit-schemas';
import { accountStatusView, adminAccountQuery, adminAccountView, createAccountBody, createdAccount } from '../../shared/accounts/schemas';
import { setUserRoleBody, userRoleView } from '../../shared/auth/schemas';
import { listOf, type ContractsOf } from '../../shared/http/contract';
import type { admin } from './definition';
import { reputationBoardEntry, reputationLifted } from '../../shared/billing/reputation/schemas';
import { deadLettersView, redriveBody, redriveView } from '../../shared/operations/dead-letters/schemas';

const queueParam = z.object({ queue: z.string().meta({ description: 'A queue name: send, fanout, webhooks, ses-events, imports, inbound' }) });
const accountId = z.object({ id: z.string().meta({ description: 'The account id, acct_…' }) });

export const contracts: ContractsOf<typeof admin> = {
  'POST /v1/admin/accounts': {
    operationId: 'createAccount',
    description:
      'Creates an account, in the sandbox, with one live and one test-mode admin key, shown in this answer only. ' +
      'The answer never carries the staff token (the local runtime\'s `DATA_DIR/bootstrap.json` does, beside the same three fields). The body may be omitted. ' +
      'The creation is written to the staff audit log (`GET /v1/admin/audit`).',
    body: createAccountBody,
    responses: { 201: { description: 'The account id and its admin keys, shown once', schema: createdAccount, secret: true } },
    errors: [],
    examples: [
      { name: 'an account', body: { name: 'Example {{unique}}' }, status: 201, as: 'staff' },
      { name: 'a malformed email', body: { email: 'not-an-address' }, status: 400, as: 'staff' },
      { name: 'an API key instead of the staff token', body: {}, status: 401, as: 'admin' },
    ],
  },
  'GET /v1/admin/accounts': {
    operationId: 'listAccounts',
    description:
      'Newest first. `status` keeps the accounts with that status; `email` finds the accounts with that address (trimmed and lower-cased; ' +
      'several accounts may share one, and an address no account has gives an empty page). A cursor walks only the filters it was made with. ' +
      'Accounts created before this list existed are not in it; `GET /v1/admin/accounts/{id}` reads any account.',
    query: adminAccountQuery,
    paginated: true,
    responses: { 200: { description: 'A page of accounts', schema: listOf('accounts', adminAccountView) } },
    errors: [],
    examples: [
      { name: 'first page', query: { limit: '10' }, status: 200, as: 'staff' },
      { name: 'suspended accounts', query: { status: 'suspended' }, status: 200, as: 'staff' },
      { name: 'by address', query: { email: '{{owner_email}}' }, status: 200, as: 'staff' },
      { name: 'an unknown status', query: { status: 'deleted' }, status: 400, as: 'staff' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400, as: 'staff' },
      { name: 'an API key instead of the staff token', status: 401, as: 'admin' },
    ],
  },
  'GET /v1/admin/accounts/{id}': {
    operationId: 'getAccount',
    params: accountId,
    responses: { 200: { description: 'The account', schema: adminAccountView } },
    errors: [],
    examples: [
      { name: 'an account', params: { id: '{{account_id}}' }, status: 200, as: 'staff' },
      { name: 'no such account', params: { id: 'acct_missing' }, status: 404, as: 'staff' },
    ],
  },
  'POST /v1/admin/accounts/{id}/suspend': {
    operationId: 'suspendAccount',
    description:
      'Every request of the account, by API key or console session, gets 403 `account_suspended` (at once in the process that took this call, within 10 seconds in every other), ' +
      'and the rest of its bulk sends fail. Suspending a suspended account changes nothing.',
    params: accountId,
    responses: { 200: { description: 'The account\'s new status', schema: accountStatusView } },
    errors: [],
    examples: [
      { name: 'suspend', params: { id: '{{account_id}}' }, status: 200, as: 'staff' },
      { name: 'no such account', params: { id: 'acct_missing' }, status: 404, as: 'staff' },
    ],
  },
  'POST /v1/admin/accounts/{id}/unsuspend': {
    operationId: 'unsuspendAccount',
    description: 'Lifts a suspension; lifting none changes nothing.',
    params: accountId,
    responses: { 200: { description: 'The account\'s new status', schema: accountStatusView } },
    errors: [],
    examples: [
      { name: 'unsuspend', params: { id: '{{account_id}}' }, status: 200, as: 'staff' },
      { name: 'no such account', params: { id: 'acct_missing' }, status: 404, as: 'staff' },
    ],
  },
  'GET /v1/admin/reputation': {
    operationId: 'listReputation',
    description:
      'Every account whose sending reputation was ever judged (at a hard bounce, a complaint or a lift), paused first, then warned, then by complaint and bounce rate, highest first: ' +
      'the rates over the last 7 days as of `judged_at`. Sends since then are not in them; `GET /v1/usage` shows an account\'s rates now.',
    responses: { 200: { description: 'The accounts by rate', schema: z.object({ accounts: z.array(reputationBoardEntry) }).strict() } },
    errors: [],
    examples: [
      { name: 'the board', status: 200, as: 'staff' },
      { name: 'an API key instead of the staff token', status: 401, as: 'admin' },
    ],
  },
  'POST /v1/admin/accounts/{id}/reputation/lift': {
    operationId: 'liftReputation',
    description:
      'Lifts a reputation warning or pause: the account is `ok` and may send live again (at once in the process that took this call, within 10 seconds in every other), ' +
      'and its window restarts at the next whole UTC hour, so the bounces that paused it are not judged again. Written to the staff audit log. Lifting an `ok` account restarts its window too.',
    params: accountId,
    responses: { 200: { description: 'The account\'s reputation state and where its window restarts', schema: reputationLifted } },
    errors: [],
    examples: [
      { name: 'lift', params: { id: '{{account_id}}' }, status: 200, as: 'staff' },
      { name: 'no such account', params: { id: 'acct_missing' }, status: 404, as: 'staff' },
    ],
  },
  'POST /v1/admin/users/role': {
    operationId: 'setUserRole',
    description:
      'Makes the user who signs in with `email` staff (their console session may then list, look up and suspend accounts under /v1/admin), ' +
      'or an owner again. Only a verified address may be made staff (409 `conflict` otherwise). A change ends the user\'s sessions: the new role holds from their next sign-in.',
    body: setUserRoleBody,
    responses: { 200: { description: 'The user and their role', schema: userRoleView } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'no such user', body: { email: 'nobody-{{unique}}@example.com', role: 'staff' }, status: 404, as: 'staff' },
      { name: 'an unknown role', body: { email: 'ops@example.com', role: 'root' }, status: 400, as: 'staff' },
      { name: 'an API key instead of the staff token', body: { email: 'ops@example.com', role: 'staff' }, status: 401, as: 'admin' },
    ],
  },
  'GET /v1/admin/audit': {
    operationId: 'listStaffAudit',
    description:
      'Every staff action (account creation, suspension, lifting one, a role change), newest first: who (the staff token, or a staff user\'s session), ' +
      'what, on which account or user, when, from which IP, in which request, and how it ended. An entry is written before its action runs, so a request ' +
      'whose entry cannot be written fails and changes nothing; `pending` means the outcome was never recorded.',
    query: adminAuditQuery,
    paginated: true,
    responses: { 200: { description: 'A page of the audit log', schema: listOf('entries', staffAuditEntryView) } },
    errors: [],
    examples: [
      { name: 'first page', query: { limit: '10' }, status: 200, as: 'staff' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400, as: 'staff' },
      { name: 'an API key instead of the staff token', status: 401, as: 'admin' },
    ],
  },
  'GET /v1/admin/dead-letters': {
    operationId: 'listDeadLetters',
    description:
      'Every queue\'s dead-letter queue: its approximate depth and up to 10 of its messages (SQS has no peek: this is one ReceiveMessage whose messages are ' +
      'made visible again at once, so a deeper DLQ shows a sample), each with a body preview, when it was sent, and why it failed: the note the consumer ' +
      'wrote on its last failed receive (the error, or why it is poison). A message with no note (its consumer timed out or crashed) has null reason and failure times.',
    responses: { 200: { description: 'The DLQs, one entry per queue', schema: deadLettersView } },
    errors: [],
    examples: [
      { name: 'the DLQs', status: 200, as: 'staff' },
      { name: 'an API key instead of the staff token', status: 401, as: 'admin' },
    ],
  },
  'POST /v1/admin/dead-letters/{queue}/redrive': {
    operationId: 'redriveDeadLetters',
    description:
      'Puts DLQ messages back on their queue exactly as they were sent, once the fault is fixed: the `ids` given, or every message when `ids` is omitted ' +
      '(up to 1,000 a call; call again for more). Each redrive is written to the staff audit log. A message that fails again returns to the DLQ after the ' +
      'queue\'s receives, with a new reason. Locally the redrive is journaled before it happens, so a kill does not lose it. An unknown queue is 404.',
    params: queueParam,
    body: redriveBody,
    responses: { 200: { description: 'The ids put back', schema: redriveView } },
    errors: [],
    examples: [
      { name: 'all of a queue', params: { queue: 'webhooks' }, body: {}, status: 200, as: 'staff' },
      { name: 'an unknown queue', params: { queue: 'nope' }, body: {}, status: 404, as: 'staff' },
      { name: 'ids not a list', params: { queue: 'send' }, body: { ids: 'x' }, status: 400, as: 'staff' },
    ],
  },
};
