import { functionNamed } from '../manifest';
import { ApiError } from '../../shared/errors';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import type { HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { invalidLinkPage, verifiedPage } from '../../shared/test-recipients/pages';
import { createTestRecipientBody } from '../../shared/test-recipients/schemas';
import {
  listTestRecipients,
  registerTestRecipient,
  removeTestRecipient,
  verifyTestRecipient,
} from '../../shared/test-recipients/service';

/** The link leaks nothing onward: no scripts, no referrer, no caching of a page reached by token. */
const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
};

const htmlPage = (status: number, body: string): HttpResult => ({ status, body, headers: PAGE_HEADERS });

/**
 * True when the Accept header ranks text/html above application/json (a browser following the
 * link); API clients, `*\/*` and no header at all get JSON.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  const ranges = accept.split(',').map((part) => {
    const [type = '', ...params] = part.split(';').map((s) => s.trim().toLowerCase());
    const q = params.find((p) => p.startsWith('q='));
    const weight = q ? Number(q.slice(2)) : 1;
    return { type, q: Number.isFinite(weight) ? weight : 0 };
  });
  const weightOf = (media: string): number => {
    const family = `${media.split('/')[0]}/*`;
    const match = ranges.find((r) => r.type === media) ?? ranges.find((r) => r.type === family) ?? ranges.find((r) => r.type === '*/*');
    return match?.q ?? 0;
  };
  return weightOf('text/html') > weightOf('application/json');
}

export const handler = createHttpHandler(functionNamed('test-recipients'), {
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
      return html ? htmlPage(200, verifiedPage(verified)) : json(200, verified);
    } catch (error) {
      if (html && error instanceof ApiError && error.code === 'invalid_token') return htmlPage(400, invalidLinkPage());
      throw error;
    }
  },
});
