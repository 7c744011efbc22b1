import { functionNamed } from '../manifest';
import { ApiError } from '../../shared/errors';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { invalidLinkPage, pageHeaders, prefersHtml, verifiedPage } from '../../shared/test-recipients/pages';
import { createTestRecipientBody } from '../../shared/test-recipients/schemas';
import {
  listTestRecipients,
  registerTestRecipient,
  removeTestRecipient,
  verifyTestRecipient,
} from '../../shared/test-recipients/service';

export const handler = createHttpHandler(functionNamed('test-recipients'), {
  'GET /v1/test-recipients': async (req, c) => {
    return listed('test_recipients', await listTestRecipients(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'POST /v1/test-recipients': async (req, c) => {
    const auth = authOf(req);
    const body = parseInput(createTestRecipientBody, req.body);
    const { created, recipient } = await registerTestRecipient(c, auth.accountId, body, { testMode: auth.testMode, baseUrl: req.baseUrl });
    return json(created ? 201 : 200, recipient);
  },
  'DELETE /v1/test-recipients/{id}': async (req, c) => {
    await removeTestRecipient(c, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
  // Opened from the mail, usually in a browser: a page for people, JSON for everyone else.
  'GET /v1/test-recipients/verify': async (req, c) => {
    const html = prefersHtml(req.headers.accept);
    try {
      const verified = await verifyTestRecipient(c, req.query.token);
      return html ? { status: 200, body: verifiedPage(verified), headers: pageHeaders } : json(200, verified);
    } catch (error) {
      if (html && error instanceof ApiError && error.code === 'invalid_token') return { status: 400, body: invalidLinkPage(), headers: pageHeaders };
      throw error;
    }
  },
});
