import { getVerification } from '../../shared/accounts/service';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';

export const handler = createHttpHandler('account', {
  'GET /v1/account/verification': async (req, c) =>
    json(200, await getVerification(c, authOf(req).accountId, { sharedEmailSender: c.config.sharedEmailSender })),
});
