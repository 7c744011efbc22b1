// The API's own description: the OpenAPI document (docs/openapi.json, written by `npm run openapi`
// from the route table and the contracts) and a readable reference page rendered from it.
import document from '../../docs/openapi.json';
import { createHttpHandler } from '../../shared/http/pipeline';
import { functionNamed } from '../manifest';
import { docs } from './definition';
import { referencePage, referencePagePolicy } from './reference-page';

const body = JSON.stringify(document);
const cacheable = 'public, max-age=300';

export const handler = createHttpHandler(docs, {
  'GET /v1/openapi.json': async () => ({ status: 200, body, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': cacheable } }),
  'GET /docs': async () => ({
    status: 200,
    body: referencePage,
    headers: { 'content-type': 'text/html; charset=utf-8', 'cache-control': cacheable, 'content-security-policy': referencePagePolicy },
  }),
});
