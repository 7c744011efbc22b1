import { functionNamed } from '../manifest';
import { testRecipients } from './definition';
import { ApiError } from '../../shared/errors';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { htmlPage, json, noContent } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { prefersHtml } from '../../shared/http/negotiate';
import { parseInput } from '../../shared/http/validate';
import { invalidLinkPage, verifiedPage } from '../../shared/sending/test-recipients/pages';
import { createTestRecipientBody } from '../../shared/sending/test-recipients/schemas';
import {
  listTestRecipients,
  registerTestRecipient,
  removeTestRecipient,
  verifyTestRecipient,
} from '../../shared/sending/test-recipients/service';

/** The link leaks nothing onward: no scripts, no referrer, no caching of a page reached by token. */
const PAGE_CSP = "default-src 'none'; style-src 'unsafe-inline'";
const linkPage = (status: number, body: string): HttpResult => htmlPage(status, body, PAGE_CSP, { 'x-content-type-options': 'nosniff' });

export const handler = createHttpHandler(testRecipients, {
  'GET /v1/test-recipients': async (req, c) => {
    return listed('test_recipients', await listTestRecipients(listing(c), authOf(req).accountId, pageOf(req)));
  },
  'POST /v1/test-recipients': async (req, c) => {
    const auth = authOf(req);
    const body = parseInput(createTestRecipientBody, req.body);
    const { created, recipient } = await registerTestRecipient(c, auth.accountId, body, { testMode: auth.testMode });
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
      return html ? linkPage(200, verifiedPage(verified)) : json(200, verified);
    } catch (error) {
      if (html && error instanceof ApiError && error.code === 'invalid_token') return linkPage(400, invalidLinkPage());
      throw error;
    }
  },
});
