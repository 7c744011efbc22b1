import { functionNamed } from '../manifest';
import { keys } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { noContent, shownOnce } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createKeyBody } from '../../shared/accounts/api-keys/schemas';
import { createKey, listKeys, revokeKey, rotateKey } from '../../shared/accounts/api-keys/service';

export const handler = createHttpHandler(keys, {
  'GET /v1/keys': async (req, c) => listed('keys', await listKeys(listing(c), authOf(req).accountId, pageOf(req), authOf(req))),
  'POST /v1/keys': async (req, c) => {
    const auth = authOf(req);
    const body = parseInput(createKeyBody, req.body ?? {});
    return shownOnce(201, await createKey(c, auth.accountId, body, auth));
  },
  'POST /v1/keys/{id}/rotate': async (req, c) => shownOnce(200, await rotateKey(c, authOf(req).accountId, req.params.id ?? '', authOf(req))),
  'DELETE /v1/keys/{id}': async (req, c) => {
    await revokeKey(c, authOf(req).accountId, req.params.id ?? '', authOf(req));
    return noContent();
  },
});
