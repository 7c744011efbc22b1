import type { Contracts } from '../../shared/http/contract';

const page = (operationId: string, description: string, contentType: string, what: string): Contracts[string] => ({
  operationId,
  description,
  responses: { 200: { description: what, contentType } },
  errors: [],
  examples: [{ name: what, status: 200, as: 'none' }],
});

export const contracts: Contracts = {
  'GET /mail': page(
    'getMailApp',
    'The Mail app: a static page (no external CDN) that signs in with an API key kept in the tab’s session storage and reads, searches and answers mail through the Mail API. Served under a strict Content-Security-Policy; never framed.',
    'text/html',
    'The Mail app page',
  ),
  'GET /mail/app.js': page('getMailAppScript', 'The Mail app’s script (an ES module).', 'text/javascript', 'The script'),
  'GET /mail/app.css': page('getMailAppStyle', 'The Mail app’s style sheet.', 'text/css', 'The style sheet'),
};
