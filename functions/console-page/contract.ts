import type { ContractsOf } from '../../shared/http/contract';
import type { consolePage } from './definition';

export const contracts: ContractsOf<typeof consolePage> = {
  'GET /': {
    operationId: 'getConsole',
    description:
      'The web console: a static page (no external CDN, its script and style inline and allowed by hash) to sign up, sign in and run the account through the /v1 API with the dashboard session (an HttpOnly cookie, and X-CSRF-Token on every state-changing request). Never framed.',
    responses: { 200: { description: 'The console page', contentType: 'text/html' } },
    errors: [],
    examples: [{ name: 'the page', status: 200, as: 'none' }],
  },
};
