import * as z from 'zod';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { templates } from './definition';
import {
  createTemplateBody,
  templateDeletedView,
  templateQuery,
  templateSummaryView,
  templateUpdatedView,
  templateView,
  updateTemplateBody,
} from '../../shared/sending/templates/schemas';

const templateId = z.object({ id: z.string().meta({ description: 'The template id, tmpl_…' }) });

const SYNTAX = [
  'Templates are [Mustache](https://mustache.github.io/mustache.5.html): `{{ name }}` is HTML-escaped in body_html, `{{{ name }}}` is not,',
  '`{{# list }}…{{/ list }}` and `{{^ name }}…{{/ name }}` are sections and inverted sections; subject and body_text are never escaped.',
  'Each write checks the template: an unclosed section, a partial (`{{> name }}`) that is not one of the account’s snippets, or, once `variables` is given,',
  'a variable the subject or a body uses at top level that `variables` does not list is 400 `invalid_template`, whose message names the part, the line and the problem.',
  'Without body_text, a send makes the text part from the rendered body_html (links kept as `text [url]`).',
].join('\n');

const welcome = {
  name: 'welcome {{unique}}',
  channel: 'email',
  subject: 'Welcome, {{ first_name }}',
  body_html: '<p>Hello {{ first_name }}, <a href="https://example.com/start">get started</a>.</p>',
  variables: [{ name: 'first_name', required: true, sample: 'Ada' }],
};

export const contracts: ContractsOf<typeof templates> = {
  'POST /v1/templates': {
    operationId: 'createTemplate',
    description: SYNTAX,
    body: createTemplateBody,
    responses: { 201: { description: 'The template at version 1', schema: templateView } },
    errors: ['invalid_template'],
    examples: [
      { name: 'a welcome template', body: welcome, status: 201 },
      { name: 'an unclosed section', body: { ...welcome, body_html: '<ul>\n{{# items }}<li>{{ . }}</li>\n</ul>', variables: [{ name: 'items' }] }, status: 400 },
      { name: 'no subject', body: { name: 'no subject', channel: 'email', body_html: '<p>hi</p>' }, status: 400 },
    ],
  },
  'GET /v1/templates': {
    operationId: 'listTemplates',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: "The account's templates, newest first", schema: listOf('templates', templateSummaryView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'two a page', query: { limit: '2' }, status: 200 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/templates/{id}': {
    operationId: 'getTemplate',
    description: 'The current version, or with `?version=N` an earlier one as it was written (its subject, bodies, variables and `updated_at`).',
    params: templateId,
    query: templateQuery,
    responses: { 200: { description: 'The template', schema: templateView } },
    errors: ['template_not_found'],
    examples: [
      { name: 'a template', params: { id: '{{template_id}}' }, status: 200 },
      { name: 'its first version', params: { id: '{{template_id}}' }, query: { version: '1' }, status: 200 },
      { name: 'a version that does not exist', params: { id: '{{template_id}}' }, query: { version: '99' }, status: 404 },
      { name: 'no such template', params: { id: 'tmpl_missing' }, status: 404 },
    ],
  },
  'PUT /v1/templates/{id}': {
    operationId: 'updateTemplate',
    description: [
      'Only the fields sent change. A change to subject, body_html, body_text or variables makes a new version; earlier versions stay readable.',
      'name and is_active alone do not. An inactive template still renders, but sends with it are 422 `template_error`.',
      'Body and variables are checked as on create; variables listed once keep being checked.',
    ].join('\n'),
    params: templateId,
    body: updateTemplateBody,
    responses: { 200: { description: 'The template id, name and (new) version', schema: templateUpdatedView } },
    errors: ['invalid_template', 'template_not_found', 'conflict'],
    examples: [
      { name: 'a new subject', params: { id: '{{template_id}}' }, body: { subject: 'Hello {{ first_name }}' }, status: 200 },
      { name: 'an undeclared variable', params: { id: '{{template_id}}' }, body: { body_html: '<p>{{ last_name }}</p>' }, status: 400 },
      { name: 'no such template', params: { id: 'tmpl_missing' }, body: { name: 'x' }, status: 404 },
    ],
  },
  'DELETE /v1/templates/{id}': {
    operationId: 'deleteTemplate',
    description: 'Deletes the template and its versions; sends with its id answer 404 `template_not_found`. Messages sent with it keep what was sent.',
    params: templateId,
    responses: { 200: { description: 'Deleted', schema: templateDeletedView } },
    errors: ['template_not_found'],
    examples: [
      { name: 'delete', params: { id: '{{template_id}}' }, status: 200 },
      { name: 'no such template', params: { id: 'tmpl_missing' }, status: 404 },
    ],
  },
};
