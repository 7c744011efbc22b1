import { functionNamed } from '../manifest';
import { templates } from './definition';
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { listed, listing, pageOf } from '../../shared/http/lists';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { createTemplateBody, templateQuery, updateTemplateBody } from '../../shared/sending/templates/schemas';
import { createTemplate, deleteTemplate, listTemplates, readTemplate, updateTemplate } from '../../shared/sending/templates/service';

export const handler = createHttpHandler(templates, {
  'POST /v1/templates': async (req, c) => {
    const body = parseInput(createTemplateBody, req.body);
    return json(201, await createTemplate(c, authOf(req).accountId, body));
  },
  'GET /v1/templates': async (req, c) => listed('templates', await listTemplates(listing(c), authOf(req).accountId, pageOf(req))),
  'GET /v1/templates/{id}': async (req, c) => {
    const { version } = parseInput(templateQuery, req.query, 'query');
    return json(200, await readTemplate(c.store, authOf(req).accountId, req.params.id ?? '', version === undefined ? undefined : Number(version)));
  },
  'PUT /v1/templates/{id}': async (req, c) => {
    const body = parseInput(updateTemplateBody, req.body);
    return json(200, await updateTemplate(c, authOf(req).accountId, req.params.id ?? '', body));
  },
  'DELETE /v1/templates/{id}': async (req, c) => {
    await deleteTemplate(c, authOf(req).accountId, req.params.id ?? '');
    return json(200, { message: 'template deleted' });
  },
});
