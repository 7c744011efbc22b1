// The built-in gallery: 20 hand-written templates to start from (shared/sending/templates/gallery).
import { createHttpHandler } from '../../shared/http/pipeline';
import { json } from '../../shared/http/respond';
import { galleryEntry, galleryTemplates } from '../../shared/sending/templates/gallery';
import type { GalleryTemplateView } from '../../shared/sending/templates/schemas';
import { functionNamed } from '../manifest';
import { templateGallery } from './definition';

const templates: GalleryTemplateView[] = galleryTemplates.map(galleryEntry);

export const handler = createHttpHandler(templateGallery, {
  'GET /v1/templates/gallery': async () => json(200, { templates }),
});
