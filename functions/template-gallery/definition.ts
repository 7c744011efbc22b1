// The template-gallery function (functions/manifest.ts lists every area's): routes with
// their access rules, triggers, least-privilege `needs`, memory and timeout. Data only, never handler code.
import { defineFunction } from '../../shared/platform';
import { SEND_OR_READ } from '../access';

export const templateGallery = defineFunction({
  // Its own function: the 20 built-in templates are data the templates API need not carry.
  name: 'template-gallery',
  entry: 'functions/template-gallery/http.ts',
  handler: 'handler',
  http: [{ method: 'GET', path: '/v1/templates/gallery', access: SEND_OR_READ, summary: 'The 20 built-in templates to start from, with sample variables' }],
  needs: { table: 'readwrite' },
  memoryMb: 256,
  timeoutSeconds: 5,
});
