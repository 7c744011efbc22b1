// A template as mailed, before any send: the preview of one that is not stored, and the render of a
// stored one. Its own function, since both carry juice and html-to-text (shared/sending/templates/preview.ts).
import { authOf, createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { parseInput } from '../../shared/http/validate';
import { previewTemplate, renderAsMailed } from '../../shared/sending/templates/preview';
import { previewTemplateBody, renderTemplateBody } from '../../shared/sending/templates/schemas';
import { functionNamed } from '../manifest';
import { templateRender } from './definition';

export const handler = createHttpHandler(templateRender, {
  'POST /v1/templates/preview': async (req, c) => json(200, await previewTemplate(c.store, authOf(req).accountId, parseInput(previewTemplateBody, req.body))),
  'POST /v1/templates/{id}/render': async (req, c) => {
    const body = parseInput(renderTemplateBody, req.body ?? {});
    return json(200, await renderAsMailed(c.store, authOf(req).accountId, req.params.id ?? '', body.vars ?? {}));
  },
});
