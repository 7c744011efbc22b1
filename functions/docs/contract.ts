import * as z from 'zod';
import type { ContractsOf } from '../../shared/http/contract';
import type { docs } from './definition';

export const contracts: ContractsOf<typeof docs> = {
  'GET /v1/openapi.json': {
    operationId: 'getOpenApiDocument',
    description: 'This document. Cacheable for five minutes.',
    responses: { 200: { description: 'The OpenAPI 3.1 document', schema: z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({}), paths: z.looseObject({}) }) } },
    errors: [],
    examples: [{ name: 'the document', status: 200, as: 'none' }],
  },
  'GET /docs': {
    operationId: 'getReferencePage',
    description: 'A readable reference rendered from this document by a static page served with the API (no external CDN).',
    responses: { 200: { description: 'The reference page', contentType: 'text/html' } },
    errors: [],
    examples: [{ name: 'the page', status: 200, as: 'none' }],
  },
};
