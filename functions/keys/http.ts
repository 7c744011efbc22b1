import { parseLimit } from '../../shared/pagination';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createKeyBody } from '../../shared/keys/schemas';
import { createKey, listKeys, revokeKey, rotateKey } from '../../shared/keys/service';

export const handler = createHttpHandler('keys', {
  'GET /v1/keys': async (req, c) => {
    const auth = authOf(req);
    const page = await listKeys(
      { ...c, cursorSecret: c.secrets.get('cursor-signing-key') },
      auth.accountId,
      { limit: parseLimit(req.query.limit), cursor: req.query.cursor },
    );
    return json(200, { keys: page.items, next_cursor: page.nextCursor });
  },
  'POST /v1/keys': async (req, c) => {
    const auth = authOf(req);
    const body = parseInput(createKeyBody, req.body ?? {});
    return json(201, await createKey(c, auth.accountId, body, auth));
  },
  'POST /v1/keys/{id}/rotate': async (req, c) => json(200, await rotateKey(c, authOf(req).accountId, req.params.id ?? '')),
  'DELETE /v1/keys/{id}': async (req, c) => {
    await revokeKey(c, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
});
