import * as z from 'zod';
import { accountStatusView, createAccountBody, createdAccountView } from '../../shared/accounts/schemas';
import type { Contracts } from '../../shared/http/contract';

const accountId = z.object({ id: z.string().meta({ description: 'The account id, acct_…' }) });

export const contracts: Contracts = {
  'POST /v1/admin/accounts': {
    operationId: 'createAccount',
    description:
      'Creates an account, in the sandbox, with one live and one test-mode admin key, shown in this answer only. ' +
      'The answer has the same fields as the local runtime\'s `DATA_DIR/bootstrap.json`, so scripts can treat both alike. The body may be omitted.',
    body: createAccountBody,
    responses: { 201: { description: 'The account id and its admin keys, shown once', schema: createdAccountView, secret: true } },
    errors: [],
    examples: [
      { name: 'an account', body: { name: 'Example {{unique}}' }, status: 201, as: 'staff' },
      { name: 'a malformed email', body: { email: 'not-an-address' }, status: 400, as: 'staff' },
      { name: 'an API key instead of the staff token', body: {}, status: 401, as: 'admin' },
    ],
  },
  'POST /v1/admin/accounts/{id}/suspend': {
    operationId: 'suspendAccount',
    description:
      'Every key-authenticated request of the account gets 403 `account_suspended` (at once in the process that took this call, within 10 seconds in every other), ' +
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
};
