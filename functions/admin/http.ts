import { functionNamed } from '../manifest';
import { admin } from './definition';
import { verifiedKeys } from '../../shared/accounts/api-keys/cache';
import { adminAuditQuery } from '../../shared/accounts/audit-schemas';
import { adminAccountQuery, createAccountBody } from '../../shared/accounts/schemas';
import { setAccountStatus } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { audited, listAccounts, listStaffAudit, readAccount, type StaffRequest } from '../../shared/accounts/staff';
import { setUserRoleBody } from '../../shared/auth/schemas';
import { findSession } from '../../shared/auth/session-lookup';
import { setUserRole } from '../../shared/auth/staff-role';
import { ApiError } from '../../shared/errors';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { createHttpHandler } from '../../shared/http/pipeline';
import { json, shownOnce } from '../../shared/http/respond';
import type { HttpRequest } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { liftReputation, reputationBoard } from '../../shared/billing/reputation/service';
import type { Container } from '../../shared/runtime/container';
import { listDeadLetters, queueNamedIn, redriveDeadLetters } from '../../shared/operations/dead-letters/service';
import { redriveBody } from '../../shared/operations/dead-letters/schemas';

/**
 * Who is acting, for the audit log. The pipeline let the request in with the staff token or a
 * staff user's session and, as it does, a session counts only when there is no Authorization
 * header; it keeps no staff identity on the request, so the session is read again here.
 */
async function staffRequest(c: Container, req: HttpRequest): Promise<StaffRequest> {
  const base = { requestId: req.requestId, sourceIp: req.sourceIp };
  if (req.headers.authorization !== undefined || req.sessionId === undefined) return { ...base, actor: { type: 'staff_token' } };
  const session = await findSession(c, req.sessionId);
  if (!session) throw new ApiError('unauthorized', 'your session has ended; sign in again');
  return { ...base, actor: { type: 'staff_session', userId: session.user_id } };
}

const accountIdOf = (req: HttpRequest): string => req.params.id ?? '';

export const handler = createHttpHandler(admin, {
  'POST /v1/admin/accounts': async (req, c) => {
    const body = parseInput(createAccountBody, req.body ?? {});
    const detail = { ...(body.name !== undefined ? { name: body.name } : {}), ...(body.email !== undefined ? { email: body.email } : {}) };
    const created = await audited(c, await staffRequest(c, req), { action: 'account.create', target: { type: 'account', id: null }, detail, targetOf: (a) => a.account_id }, () =>
      createAccount(c, body),
    );
    // The account and its keys only: the staff token is never answered (a session must not learn it).
    return shownOnce(201, created);
  },
  'GET /v1/admin/accounts': async (req, c) => {
    const { status, email } = parseInput(adminAccountQuery, req.query, 'query');
    return listed('accounts', await listAccounts(listing(c), { status, email }, pageOf(req)));
  },
  'GET /v1/admin/accounts/{id}': async (req, c) => json(200, await readAccount(c.store, accountIdOf(req))),
  'POST /v1/admin/accounts/{id}/suspend': async (req, c) =>
    json(200, await audited(c, await staffRequest(c, req), { action: 'account.suspend', target: { type: 'account', id: accountIdOf(req) } }, () => setAccountStatus(c, accountIdOf(req), 'suspended'))),
  'POST /v1/admin/accounts/{id}/unsuspend': async (req, c) =>
    json(200, await audited(c, await staffRequest(c, req), { action: 'account.unsuspend', target: { type: 'account', id: accountIdOf(req) } }, () => setAccountStatus(c, accountIdOf(req), 'active'))),
  'GET /v1/admin/reputation': async (_req, c) => json(200, { accounts: await reputationBoard(c.store) }),
  'POST /v1/admin/accounts/{id}/reputation/lift': async (req, c) =>
    json(
      200,
      await audited(c, await staffRequest(c, req), { action: 'account.reputation_lift', target: { type: 'account', id: accountIdOf(req) } }, async () => {
        const lifted = await liftReputation(c, accountIdOf(req));
        // Keys verified in this process carry the account: the lift holds here at once.
        verifiedKeys.forgetAccount(accountIdOf(req));
        return lifted;
      }),
    ),
  'POST /v1/admin/users/role': async (req, c) => {
    const body = parseInput(setUserRoleBody, req.body ?? {});
    const changed = await audited(
      c,
      await staffRequest(c, req),
      { action: 'user.set_role', target: { type: 'user', id: null }, detail: { email: body.email, role: body.role }, targetOf: (u) => u.user_id },
      () => setUserRole(c, body),
    );
    return json(200, changed);
  },
  'GET /v1/admin/dead-letters': async (_req, c) => json(200, { queues: await listDeadLetters(c) }),
  'POST /v1/admin/dead-letters/{queue}/redrive': async (req, c) => {
    const queue = queueNamedIn(req.params.queue ?? '');
    const { ids } = parseInput(redriveBody, req.body ?? {});
    const detail = { ids: ids ? ids.join(',') : 'all' };
    return json(200, await audited(c, await staffRequest(c, req), { action: 'dead_letters.redrive', target: { type: 'queue', id: queue }, detail }, () => redriveDeadLetters(c, queue, ids)));
  },
  'GET /v1/admin/audit': async (req, c) => {
    parseInput(adminAuditQuery, req.query, 'query');
    return listed('entries', await listStaffAudit(listing(c), pageOf(req)));
  },
});
