import type { ContractsOf } from '../../shared/http/contract';
import type { mailPage } from './definition';

export const contracts: ContractsOf<typeof mailPage> = {
  'GET /mail': {
    operationId: 'getMailApp',
    description:
      'The Mail app: a static page (no external CDN, its script and style inline) that signs in with an API key kept in the tab’s session storage and reads, searches and answers mail through the Mail API. Served under a strict Content-Security-Policy; never framed.',
    responses: { 200: { description: 'The Mail app page', contentType: 'text/html' } },
    errors: [],
    examples: [{ name: 'the page', status: 200, as: 'none' }],
  },
};
