// Snippets: pieces of Mustache templates include as partials (`{{> name }}`). A function of its
// own, so the templates bundle does not grow.
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json, noContent } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createSnippetBody, updateSnippetBody } from '../../shared/sending/templates/schemas';
import { createSnippet, deleteSnippet, listSnippets, readSnippet, updateSnippet } from '../../shared/sending/templates/snippets';
import { functionNamed } from '../manifest';
import { snippets } from './definition';

export const handler = createHttpHandler(snippets, {
  'POST /v1/templates/snippets': async (req, c) => json(201, await createSnippet(c, authOf(req).accountId, parseInput(createSnippetBody, req.body))),
  'GET /v1/templates/snippets': async (req, c) => listed('snippets', await listSnippets(listing(c), authOf(req).accountId, pageOf(req))),
  'GET /v1/templates/snippets/{id}': async (req, c) => json(200, await readSnippet(c.store, authOf(req).accountId, req.params.id ?? '')),
  'PATCH /v1/templates/snippets/{id}': async (req, c) =>
    json(200, await updateSnippet(c, authOf(req).accountId, req.params.id ?? '', parseInput(updateSnippetBody, req.body))),
  'DELETE /v1/templates/snippets/{id}': async (req, c) => {
    await deleteSnippet(c, authOf(req).accountId, req.params.id ?? '');
    return noContent();
  },
});
