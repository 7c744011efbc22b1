import * as z from 'zod';
import {
  confirmBody,
  confirmedView,
  confirmQuery,
  formBody,
  formConfigView,
  formView,
  pendingSignupView,
  submitBody,
  submitForm,
  submitResult,
} from '../../shared/audiences/forms/schemas';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { forms } from './definition';

const formId = z.object({ id: z.string().meta({ description: 'The form id, frm_…' }) });

const dynamicRefused = { code: 'invalid_request', status: 422 } as const;

const FORMS = [
  'A form signs people up to one static list: its `fields` (email always, plus `first_name`, `last_name`, `data.<key>`), `double_opt_in` and `redirect_url` (https).',
  'A list the account lacks is 404, a dynamic one 422. Test-mode keys cannot write forms (a form makes the deployment mail strangers).',
].join('\n');

const unknownToken = '0123456789abcdefghijABCDEFGHIJ0123456789';

export const contracts: ContractsOf<typeof forms> = {
  'POST /v1/forms': {
    operationId: 'createForm',
    description: FORMS,
    body: formBody,
    responses: { 201: { description: 'The form', schema: formView } },
    errors: ['not_found', dynamicRefused],
    examples: [
      {
        name: 'a form',
        body: {
          name: 'Newsletter',
          list_id: '{{list_id}}',
          fields: [
            { key: 'email', label: 'Email address' },
            { key: 'first_name', label: 'First name', required: true },
            { key: 'data.company', label: 'Company' },
          ],
          double_opt_in: true,
          redirect_url: 'https://example.com/thanks',
        },
        status: 201,
      },
      { name: 'email only', body: { name: 'Updates', list_id: '{{list_id}}' }, status: 201, as: 'send' },
      { name: 'a dynamic list', body: { name: 'Pro', list_id: '{{dynamic_list_id}}' }, status: 422 },
      { name: 'no such list', body: { name: 'Lost', list_id: 'lst_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
      { name: 'a plain-http redirect', body: { name: 'Bad', list_id: '{{list_id}}', redirect_url: 'http://example.com/' }, status: 400 },
      { name: 'with a test-mode key', body: { name: 'Test', list_id: '{{list_id}}' }, status: 403, as: 'test' },
    ],
  },
  'GET /v1/forms': {
    operationId: 'listForms',
    description: 'The account\'s forms, newest first.',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: 'A page of forms', schema: listOf('forms', formView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200, as: 'read' },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/forms/{id}': {
    operationId: 'getForm',
    params: formId,
    responses: { 200: { description: 'The form', schema: formView } },
    errors: ['not_found'],
    examples: [
      { name: 'a form', params: { id: '{{form_id}}' }, status: 200, as: 'read' },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
    ],
  },
  'PUT /v1/forms/{id}': {
    operationId: 'replaceForm',
    description: 'Replaces the whole form: a field the body leaves out takes its default. Its id, URLs and created_at stay.',
    params: formId,
    body: formBody,
    responses: { 200: { description: 'The form', schema: formView } },
    errors: ['not_found', dynamicRefused],
    examples: [
      { name: 'replace', params: { id: '{{form_id}}' }, body: { name: 'Renamed', list_id: '{{list_id}}', submit_label: 'Join' }, status: 200 },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, body: { name: 'x', list_id: '{{list_id}}' }, status: 404 },
      { name: 'email not required', params: { id: '{{form_id}}' }, body: { name: 'x', list_id: '{{list_id}}', fields: [{ key: 'email', label: 'Email', required: false }] }, status: 400 },
    ],
  },
  'DELETE /v1/forms/{id}': {
    operationId: 'deleteForm',
    description: 'Deletes the form; its page and config answer 404 and its pending confirmation links stop working. The list and its contacts stay.',
    params: formId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found'],
    examples: [
      { name: 'delete', params: { id: '{{form_id}}' }, status: 204 },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
    ],
  },
  'GET /v1/forms/{id}/config': {
    operationId: 'getFormConfig',
    description:
      'Public: what an embed needs to draw the form and post it. Answered with `Access-Control-Allow-Origin: *` (errors too), so a script on any site can read it; ' +
      'it is a simple GET, so no preflight is needed (OPTIONS is not answered). Cacheable for a minute. Limited per client IP.',
    params: formId,
    responses: { 200: { description: 'The form\'s public configuration', schema: formConfigView } },
    errors: ['not_found'],
    examples: [
      { name: 'a form', params: { id: '{{form_id}}' }, status: 200 },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
    ],
  },
  'GET /v1/forms/{id}/page': {
    operationId: 'getFormPage',
    description:
      'Public: the hosted sign-up page, `text/html`: one labelled input per field, a honeypot input hidden from people and screen readers, and a plain form post to the submit URL, so it works without JavaScript. ' +
      'No script runs on it (`default-src \'none\'`). An unknown form is 404: a page for a browser, the error envelope otherwise. Limited per client IP.',
    params: formId,
    responses: { 200: { description: 'The sign-up page', contentType: 'text/html' } },
    errors: ['not_found'],
    examples: [
      { name: 'a form', params: { id: '{{form_id}}' }, status: 200 },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, status: 404 },
    ],
  },
  'POST /v1/forms/{id}/submit': {
    operationId: 'submitForm',
    description: [
      'Public: signs an address up, JSON or form-encoded (`data.<key>` for a data field; multipart too); 202, with `Access-Control-Allow-Origin: *`.',
      'Without double opt-in the contact joins the list at once; with it, a one-time link (7 days) is mailed, at most 3 times per address and account an hour.',
      'A filled honeypot (`website`) is answered as a success and stores nothing; a repeat makes no second contact or membership.',
      'A browser form post gets a page (202, 400 with the errors) or a 303 to `redirect_url`. Unknown inputs, missing required ones or a bad address are 400.',
    ].join('\n'),
    params: formId,
    body: submitBody,
    otherBodies: { 'application/x-www-form-urlencoded': submitForm, 'multipart/form-data': submitForm },
    responses: {
      202: { description: 'Signed up, or a confirmation link mailed (a browser\'s form post gets a page)', schema: submitResult },
      303: { description: 'A browser\'s form post, when the form has a redirect_url: Location is the redirect_url' },
    },
    errors: ['not_found', 'recipient_not_verified', 'service_unavailable'],
    examples: [
      { name: 'sign up', params: { id: '{{form_id}}' }, body: { email: 'signup-{{unique}}@example.com', first_name: 'Ada' }, status: 202 },
      { name: 'the honeypot filled', params: { id: '{{form_id}}' }, body: { email: 'bot-{{unique}}@example.com', website: 'http://spam.example' }, status: 202 },
      { name: 'not an address', params: { id: '{{form_id}}' }, body: { email: 'not-an-address' }, status: 400 },
      { name: 'an input the form lacks', params: { id: '{{form_id}}' }, body: { email: 'x-{{unique}}@example.com', phone: '123' }, status: 400 },
      { name: 'no such form', params: { id: 'frm_01jzzzzzzzzzzzzzzzzzzzzzzz' }, body: { email: 'x-{{unique}}@example.com' }, status: 404 },
    ],
  },
  'GET /v1/forms/confirm': {
    operationId: 'describeFormConfirmation',
    description:
      'Public: the link mailed for a double opt-in sign-up. It confirms nothing by itself (mail scanners open links): a browser gets a page whose button posts the token to `POST /v1/forms/confirm`; ' +
      'a program gets the pending sign-up as JSON. A missing, unknown, used or expired token (7 days), or one whose form is gone, is 400 `invalid_token` (a page for a browser). Limited per client IP.',
    query: confirmQuery,
    responses: { 200: { description: 'The pending sign-up (JSON; a browser gets a page with the button)', schema: pendingSignupView } },
    errors: ['invalid_token'],
    examples: [
      { name: 'an unknown token', query: { token: unknownToken }, status: 400 },
      { name: 'a malformed token', query: { token: 'nope' }, status: 400 },
    ],
  },
  'POST /v1/forms/confirm': {
    operationId: 'confirmFormSignup',
    description:
      'Public: confirms a double opt-in sign-up with the token of its mailed link, JSON `{token}` or form-encoded (the confirmation page\'s button, which gets a page back). The contact joins the list ' +
      '(and, the address owner having asked, is no longer `unsubscribed`). The token works once, for 7 days: a used, expired or unknown one, or one whose form is gone, is 400 `invalid_token`. Limited per client IP.',
    body: confirmBody,
    otherBodies: { 'application/x-www-form-urlencoded': confirmBody },
    responses: { 200: { description: 'Confirmed (a browser\'s form post gets a page)', schema: confirmedView } },
    errors: ['invalid_token', 'service_unavailable'],
    examples: [
      { name: 'an unknown token', body: { token: unknownToken }, status: 400 },
      { name: 'no token', body: {}, status: 400 },
    ],
  },
};
