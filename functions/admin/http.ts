import { functionNamed } from '../manifest';
import { adminAccountQuery, createAccountBody, type CreatedAccountView } from '../../shared/accounts/schemas';
import { createAccount, setAccountStatus } from '../../shared/accounts/service';
import { listAccounts, readAccount } from '../../shared/accounts/staff';
import { setUserRoleBody } from '../../shared/auth/schemas';
import { setUserRole } from '../../shared/auth/staff-role';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { createHttpHandler } from '../../shared/http/pipeline';
import { json, shownOnce } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';

export const handler = createHttpHandler(functionNamed('admin'), {
  'POST /v1/admin/accounts': async (req, c) => {
    const body = parseInput(createAccountBody, req.body ?? {});
    const created = await createAccount(c, body);
    // Same fields as DATA_DIR/bootstrap.json; the caller already holds the staff token.
    return shownOnce(201, { ...created, staff_token: c.secrets.get('staff-token') } satisfies CreatedAccountView);
  },
  'GET /v1/admin/accounts': async (req, c) => {
    const { status, email } = parseInput(adminAccountQuery, req.query, 'query');
    return listed('accounts', await listAccounts(listing(c), { status, email }, pageOf(req)));
  },
  'GET /v1/admin/accounts/{id}': async (req, c) => json(200, await readAccount(c.store, req.params.id ?? '')),
  'POST /v1/admin/accounts/{id}/suspend': async (req, c) => json(200, await setAccountStatus(c, req.params.id ?? '', 'suspended')),
  'POST /v1/admin/accounts/{id}/unsuspend': async (req, c) => json(200, await setAccountStatus(c, req.params.id ?? '', 'active')),
  'POST /v1/admin/users/role': async (req, c) => json(200, await setUserRole(c, parseInput(setUserRoleBody, req.body ?? {}))),
});
