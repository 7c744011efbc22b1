import { functionNamed } from '../manifest';
import { createAccountBody, type CreatedAccountView } from '../../shared/accounts/schemas';
import { createAccount, setAccountStatus } from '../../shared/accounts/service';
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
  'POST /v1/admin/accounts/{id}/suspend': async (req, c) => json(200, await setAccountStatus(c, req.params.id ?? '', 'suspended')),
  'POST /v1/admin/accounts/{id}/unsuspend': async (req, c) => json(200, await setAccountStatus(c, req.params.id ?? '', 'active')),
});
