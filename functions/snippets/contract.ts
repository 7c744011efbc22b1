import * as z from 'zod';
import { listOf, pageQuery, type ContractsOf } from '../../shared/http/contract';
import type { snippets } from './definition';
import { createSnippetBody, snippetView, updateSnippetBody } from '../../shared/sending/templates/schemas';

const snippetId = z.object({ id: z.string().meta({ description: 'The snippet id, snip_…' }) });

const ABOUT = [
  'A snippet is Mustache that templates include by name: `{{> name }}` in a template’s body_html includes the snippet’s body_html,',
  'in its body_text the snippet’s body_text (its body_html as written when it has none). Names are unique per account regardless of case,',
  'and a snippet may not include another snippet. Templates render a snippet’s current bodies.',
].join('\n');

const footer = { name: 'footer_{{unique}}', body_html: '<p>Sent by {{ company }}</p>', body_text: 'Sent by {{ company }}' };

export const contracts: ContractsOf<typeof snippets> = {
  'POST /v1/templates/snippets': {
    operationId: 'createSnippet',
    description: ABOUT,
    body: createSnippetBody,
    responses: { 201: { description: 'The snippet', schema: snippetView } },
    errors: ['invalid_template', 'conflict'],
    examples: [
      { name: 'a footer', body: footer, status: 201 },
      { name: 'a snippet including another', body: { name: 'nested_{{unique}}', body_html: '<p>{{> footer }}</p>' }, status: 400 },
      { name: 'no body', body: { name: 'empty_{{unique}}' }, status: 400 },
    ],
  },
  'GET /v1/templates/snippets': {
    operationId: 'listSnippets',
    query: pageQuery,
    paginated: true,
    responses: { 200: { description: "The account's snippets, newest first", schema: listOf('snippets', snippetView) } },
    errors: [],
    examples: [
      { name: 'first page', status: 200 },
      { name: 'a cursor from elsewhere', query: { cursor: 'not-a-cursor' }, status: 400 },
    ],
  },
  'GET /v1/templates/snippets/{id}': {
    operationId: 'getSnippet',
    params: snippetId,
    responses: { 200: { description: 'The snippet', schema: snippetView } },
    errors: ['not_found'],
    examples: [
      { name: 'a snippet', params: { id: '{{snippet_id}}' }, status: 200 },
      { name: 'no such snippet', params: { id: 'snip_missing' }, status: 404 },
    ],
  },
  'PATCH /v1/templates/snippets/{id}': {
    operationId: 'updateSnippet',
    description: 'Only the fields sent change. A rename is 409 `conflict` while a template includes the snippet, or when another snippet has the name.',
    params: snippetId,
    body: updateSnippetBody,
    responses: { 200: { description: 'The snippet', schema: snippetView } },
    errors: ['invalid_template', 'not_found', 'conflict'],
    examples: [
      { name: 'a new body', params: { id: '{{snippet_id}}' }, body: { body_html: '<p>Sent with care by {{ company }}</p>' }, status: 200 },
      { name: 'an empty name', params: { id: '{{snippet_id}}' }, body: { name: '' }, status: 400 },
      { name: 'no such snippet', params: { id: 'snip_missing' }, body: { body_text: null }, status: 404 },
    ],
  },
  'DELETE /v1/templates/snippets/{id}': {
    operationId: 'deleteSnippet',
    description: '409 `conflict` while a template includes the snippet: change or delete those templates first.',
    params: snippetId,
    responses: { 204: { description: 'Deleted' } },
    errors: ['not_found', 'conflict'],
    examples: [
      { name: 'delete', params: { id: '{{snippet_id}}' }, status: 204 },
      { name: 'no such snippet', params: { id: 'snip_missing' }, status: 404 },
    ],
  },
};
