import * as z from 'zod';
import type { ContractsOf } from '../../shared/http/contract';
import type { templateRender } from './definition';
import { previewTemplateBody, previewView, renderedView, renderTemplateBody } from '../../shared/sending/templates/schemas';

const templateId = z.object({ id: z.string().meta({ description: 'The template id, tmpl_…' }) });

const AS_MAILED = 'The HTML is what a send mails: rendered, with the CSS of its `<style>` blocks inlined onto the elements (what cannot be inlined, such as media queries, stays in a `<style>` block); without body_text, the text part is made from the rendered HTML (links kept as `text [url]`).';

export const contracts: ContractsOf<typeof templateRender> = {
  'POST /v1/templates/preview': {
    operationId: 'previewTemplate',
    description: [
      'Renders a template that is not stored, with `variables` as its values; the account’s snippets are its partials. Nothing is stored.',
      'The request answers 200 even when the template is broken: what a template write would refuse (a syntax error, a partial that is not a snippet of the account)',
      'or a send could not render is in `errors`, each with its part and line; what renders but may surprise is in `warnings`: a variable with no value,',
      'an image without alt text, a `<script>`, an HTML body over 102 KB once inlined (Gmail clips it), a message with no plain text. At most 100 of each are listed.',
      AS_MAILED,
    ].join('\n'),
    body: previewTemplateBody,
    responses: { 200: { description: 'The rendered subject, HTML and text, with the problems found', schema: previewView } },
    errors: [],
    examples: [
      {
        name: 'a clean preview',
        body: {
          subject: 'Welcome, {{ first_name }}',
          body_html: '<style>p { color: #333; }</style><p>Hello {{ first_name }}, <a href="https://example.com/start">get started</a>.</p>',
          variables: { first_name: 'Ada' },
        },
        status: 200,
      },
      {
        name: 'problems listed, not refused',
        body: { subject: 'Hi {{ name }}', body_html: '<p>\n{{# items }}<img src="https://example.com/a.png">\n</p>', variables: {} },
        status: 200,
      },
      { name: 'no body_html', body: { subject: 'Hi' }, status: 400 },
    ],
  },
  'POST /v1/templates/{id}/render': {
    operationId: 'renderTemplate',
    description: [
      'Renders the current version with `vars` and sends nothing. A variable without a value takes its `default_value`, else its `sample`;',
      'a required one with neither a value is 400 `missing_variable`. A render that fails (or produces more than 5 MiB) is 422 `template_error`.',
      AS_MAILED,
    ].join('\n'),
    params: templateId,
    body: renderTemplateBody,
    responses: { 200: { description: 'The rendered subject and parts, as mailed', schema: renderedView } },
    errors: ['template_not_found', 'missing_variable', 'template_error'],
    examples: [
      { name: 'render', params: { id: '{{template_id}}' }, body: { vars: { first_name: 'Grace' } }, status: 200 },
      { name: 'an unknown field', params: { id: '{{template_id}}' }, body: { variables: {} }, status: 400 },
      { name: 'no such template', params: { id: 'tmpl_missing' }, body: { vars: {} }, status: 404 },
    ],
  },
};
