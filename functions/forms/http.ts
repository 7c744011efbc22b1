// Hosted sign-up forms: managed behind a key; the config, the page, the sign-up and the
// confirmation link are public (limited per client IP by the pipeline).
import { ApiError, InvalidRequestError } from '../../shared/errors';
import { confirmBody, confirmQuery, formBody } from '../../shared/audiences/forms/schemas';
import {
  confirmSignup,
  createForm,
  deleteForm,
  describePending,
  listForms,
  publicForm,
  readForm,
  replaceForm,
  submitSignup,
  successMessageOf,
  toFormConfig,
  toFormView,
} from '../../shared/audiences/forms/service';
import { confirmedPage, confirmPage, formNotFoundPage, formPage, invalidLinkPage, thanksPage } from '../../shared/audiences/forms/pages';
import { prefersHtml } from '../../shared/http/negotiate';
import { checkSubmission, fieldPath, isFormPost, readSubmission } from '../../shared/audiences/forms/signup';
import { parseJsonBody } from '../../shared/http/json-body';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { htmlPage, json, noContent, redirect } from '../../shared/http/respond';
import type { HttpRequest, HttpResult } from '../../shared/http/types';
import { parseInput } from '../../shared/http/validate';
import { mapPage } from '../../shared/pagination';
import { functionNamed } from '../manifest';
import { forms } from './definition';

/** Public JSON an embed on any site may read (no credentials are involved). */
const CORS: Record<string, string> = { 'access-control-allow-origin': '*' };

/**
 * The pages run no script and load nothing; a form on them may post only to this API (and the
 * redirect target the form names, since browsers hold a post's redirect to form-action too).
 */
function page(req: HttpRequest, status: number, body: string, options: { formTargets?: string[]; cache?: string } = {}): HttpResult {
  const targets = ["'self'", new URL(req.baseUrl).origin, ...(options.formTargets ?? [])];
  const csp = `default-src 'none'; style-src 'unsafe-inline'; base-uri 'none'; form-action ${[...new Set(targets)].join(' ')}`;
  return htmlPage(status, body, csp, { 'cache-control': options.cache ?? 'no-store', vary: 'Accept' });
}

const isCode = (error: unknown, code: string): error is ApiError => error instanceof ApiError && error.code === code;

/** Public answers that a script on another site may read carry the CORS header, errors included. */
function withCors(error: unknown): unknown {
  if (error instanceof ApiError) Object.assign(error.headers, CORS);
  return error;
}

const formId = (req: HttpRequest): string => req.params.id ?? '';

/** The token of POST /v1/forms/confirm, JSON `{token}` or form-encoded `token=` (the confirm page's button). */
function tokenOf(req: HttpRequest): string {
  if (isFormPost(req.headers['content-type'])) {
    const token = new URLSearchParams(req.rawBody.toString('utf8')).get('token');
    if (!token) throw new InvalidRequestError('body.token: required');
    return token;
  }
  const text = req.rawBody.toString('utf8');
  return parseInput(confirmBody, text.trim() === '' ? undefined : parseJsonBody(text)).token;
}

export const handler = createHttpHandler(forms, {
  'POST /v1/forms': async (req, c) => json(201, toFormView(await createForm(c, authOf(req).accountId, parseInput(formBody, req.body)), req.baseUrl)),
  'GET /v1/forms': async (req, c) => {
    const page = await listForms(listing(c), authOf(req).accountId, pageOf(req));
    return listed('forms', mapPage(page, (item) => toFormView(item, req.baseUrl)));
  },
  'GET /v1/forms/{id}': async (req, c) => json(200, toFormView(await readForm(c.store, authOf(req).accountId, formId(req)), req.baseUrl)),
  'PUT /v1/forms/{id}': async (req, c) =>
    json(200, toFormView(await replaceForm(c, authOf(req).accountId, formId(req), parseInput(formBody, req.body)), req.baseUrl)),
  'DELETE /v1/forms/{id}': async (req, c) => {
    await deleteForm(c, authOf(req).accountId, formId(req));
    return noContent();
  },

  'GET /v1/forms/{id}/config': async (req, c) => {
    try {
      return json(200, toFormConfig(await publicForm(c.store, formId(req)), req.baseUrl), { ...CORS, 'cache-control': 'public, max-age=60' });
    } catch (error) {
      throw withCors(error);
    }
  },

  'GET /v1/forms/{id}/page': async (req, c) => {
    try {
      const form = await publicForm(c.store, formId(req));
      const submitUrl = toFormConfig(form, req.baseUrl).submit_url;
      const redirect = form.redirect_url ? [new URL(form.redirect_url).origin] : [];
      return page(req, 200, formPage(form, submitUrl), { formTargets: redirect, cache: 'public, max-age=60' });
    } catch (error) {
      if (isCode(error, 'not_found') && prefersHtml(req.headers.accept)) return page(req, 404, formNotFoundPage());
      throw error;
    }
  },

  // A browser's form post (the hosted page) gets a page, or a 303 to the form's redirect_url;
  // everything else, a form-encoded post asking for JSON included, gets JSON.
  'POST /v1/forms/{id}/submit': async (req, c) => {
    const contentType = req.headers['content-type'];
    const browser = isFormPost(contentType) && prefersHtml(req.headers.accept);
    try {
      const form = await publicForm(c.store, formId(req));
      const checked = checkSubmission(form, readSubmission(contentType, req.rawBody));
      if (checked.kind === 'invalid') {
        if (!browser) throw new InvalidRequestError(`${fieldPath(checked.errors[0]!.key)}: ${checked.errors[0]!.message}`);
        const submitUrl = toFormConfig(form, req.baseUrl).submit_url;
        return page(req, 400, formPage(form, submitUrl, { values: checked.values, errors: checked.errors }));
      }
      // A filled honeypot is answered as a success would be, and nothing is stored or mailed.
      const result =
        checked.kind === 'honeypot'
          ? { status: form.double_opt_in ? ('pending_confirmation' as const) : ('subscribed' as const), message: successMessageOf(form) }
          : await submitSignup(c, form, checked.signup, req.baseUrl);
      if (!browser) return json(202, result, { ...CORS, vary: 'Accept' });
      if (form.redirect_url) return redirect(303, form.redirect_url, { vary: 'Accept' });
      return page(req, 202, thanksPage(form, result.message));
    } catch (error) {
      if (browser && isCode(error, 'not_found')) return page(req, 404, formNotFoundPage());
      throw withCors(error);
    }
  },

  // The mailed link: a page with a button (opening the link confirms nothing), or JSON for programs.
  'GET /v1/forms/confirm': async (req, c) => {
    const browser = prefersHtml(req.headers.accept);
    try {
      const query = parseInput(confirmQuery.partial(), req.query, 'query');
      const pending = await describePending(c, query.token);
      if (!browser) {
        const { title: _title, language: _language, ...view } = pending;
        return json(200, view, { 'cache-control': 'no-store', vary: 'Accept' });
      }
      const action = `${req.baseUrl}/v1/forms/confirm`;
      return page(req, 200, confirmPage({ title: pending.title, language: pending.language, email: pending.email, token: query.token!, action }));
    } catch (error) {
      if (browser && error instanceof ApiError && error.status === 400) return page(req, 400, invalidLinkPage());
      throw error;
    }
  },

  'POST /v1/forms/confirm': async (req, c) => {
    const browser = isFormPost(req.headers['content-type']) && prefersHtml(req.headers.accept);
    try {
      const confirmed = await confirmSignup(c, tokenOf(req));
      if (browser) return page(req, 200, confirmedPage(confirmed));
      const { title: _title, language: _language, ...view } = confirmed;
      return json(200, view, { 'cache-control': 'no-store', vary: 'Accept' });
    } catch (error) {
      if (browser && error instanceof ApiError && error.status === 400) return page(req, 400, invalidLinkPage());
      throw error;
    }
  },
});
