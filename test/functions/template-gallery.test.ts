// GET /v1/templates/gallery: the 20 built-in templates with exactly the spec's fields, for any key.
import { describe, expect, it } from 'vitest';
import { galleryTemplates } from '../../shared/sending/templates/gallery';
import { call } from '../support/api';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

describe('GET /v1/templates/gallery', () => {
  it('lists the 20 built-in templates with the spec fields only', async () => {
    const res = await call({ method: 'GET', path: '/v1/templates/gallery', key: bed.account.admin_key });

    expect(res.status).toBe(200);
    expect(res.body.templates).toHaveLength(20);
    expect(res.body.templates.map((t: { id: string }) => t.id)).toEqual(galleryTemplates.map((t) => t.id));
    for (const t of res.body.templates) {
      expect(Object.keys(t).sort()).toEqual(['body_html', 'category', 'description', 'id', 'name', 'sample_variables', 'subject']);
    }
  });

  it('needs a key', async () => {
    const res = await call({ method: 'GET', path: '/v1/templates/gallery' });

    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('unauthorized');
  });
});
