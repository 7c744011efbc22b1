import * as z from 'zod';
import type { ContractsOf } from '../../shared/http/contract';
import type { templateGallery } from './definition';
import { galleryTemplateView } from '../../shared/sending/templates/schemas';

export const contracts: ContractsOf<typeof templateGallery> = {
  'GET /v1/templates/gallery': {
    operationId: 'listGalleryTemplates',
    description: 'The 20 built-in templates (welcome, verify email, password reset, receipt, newsletter, …): copy one into POST /v1/templates, with its `sample_variables` as a first `template_vars`.',
    responses: { 200: { description: 'The gallery', schema: z.object({ templates: z.array(galleryTemplateView) }).strict() } },
    errors: [],
    examples: [
      { name: 'the gallery', status: 200, as: 'read' },
      { name: 'without a key', status: 401, as: 'none' },
    ],
  },
};
