// The template-render function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ } from '../access';

export const templateRender = defineFunction({
  // Its own function: showing a template as mailed takes the CSS inliner and the HTML-to-text
  // converter (juice, html-to-text), which the templates and send APIs must not carry.
  name: 'template-render',
  entry: 'functions/template-render/http.ts',
  handler: 'handler',
  http: [
    { method: 'POST', path: '/v1/templates/preview', access: SEND_OR_READ, summary: 'Preview a template that is not stored: rendered, with its warnings and errors' },
    { method: 'POST', path: '/v1/templates/{id}/render', access: SEND_OR_READ, summary: 'Render the current version with vars, as mailed; sends nothing' },
  ],
  needs: { table: 'readwrite' },
  memoryMb: 1024,
  timeoutSeconds: 10,
});
