// The forms function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ, SEND_LIVE, PUBLIC } from '../access';

export const forms = defineFunction({
  // Hosted sign-up forms bound to a static list. The public routes (config, page, submit,
  // confirm) are limited per client IP; a double opt-in sign-up mails its confirmation link.
  name: 'forms',
  entry: 'functions/forms/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/forms', access: SEND_LIVE, summary: 'Create a sign-up form bound to a static list' },
    { method: 'GET', path: '/v1/forms', access: SEND_OR_READ, summary: 'List sign-up forms, newest first' },
    { method: 'GET', path: '/v1/forms/{id}', access: SEND_OR_READ, summary: 'A sign-up form' },
    { method: 'PUT', path: '/v1/forms/{id}', access: SEND_LIVE, summary: 'Replace a sign-up form' },
    { method: 'DELETE', path: '/v1/forms/{id}', access: SEND_LIVE, summary: 'Delete a sign-up form; its confirmation links stop working' },
    { method: 'GET', path: '/v1/forms/{id}/config', access: PUBLIC, summary: 'What an embed needs to draw a form (public JSON, any origin)' },
    { method: 'GET', path: '/v1/forms/{id}/page', access: PUBLIC, summary: 'The hosted sign-up page (public HTML)' },
    { method: 'POST', path: '/v1/forms/{id}/submit', access: PUBLIC, body: 'raw', summary: 'Sign up through a form, JSON or form-encoded (public; 202)' },
    { method: 'GET', path: '/v1/forms/confirm', access: PUBLIC, summary: 'The mailed confirmation link: a page with a button (public)' },
    { method: 'POST', path: '/v1/forms/confirm', access: PUBLIC, body: 'raw', summary: 'Confirm a double opt-in sign-up with its one-time token (public)' },
  ],
  needs: { table: 'readwrite', sesSend: true, secrets: ['cursor-signing-key'] },
  memoryMb: 512,
  timeoutSeconds: 10,
});
