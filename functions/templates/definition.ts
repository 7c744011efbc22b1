// The templates function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND, SEND_LIVE } from '../access';

export const templates = defineFunction({
  name: 'templates',
  entry: 'functions/templates/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/templates', access: SEND, summary: 'Create a template (Mustache; checked on write); version 1' },
    { method: 'GET', path: '/v1/templates', access: SEND_OR_READ, summary: 'List templates, newest first' },
    { method: 'GET', path: '/v1/templates/{id}', access: SEND_OR_READ, summary: 'A template; ?version=N for an earlier version' },
    { method: 'PUT', path: '/v1/templates/{id}', access: SEND_LIVE, summary: 'Change a template; content or variables make a new version' },
    { method: 'DELETE', path: '/v1/templates/{id}', access: SEND_LIVE, summary: 'Delete a template; sends with its id answer 404' },
  ],
  needs: { table: 'readwrite', secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
