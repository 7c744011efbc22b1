// Parsed templates are cached per process, keyed by their source text (shared/sending/templates/engine.ts):
// a second render of the same version parses nothing, and a new version or an edited snippet is new
// text, so it is parsed afresh and never served stale.
import { describe, expect, it } from 'vitest';
import { clearTemplateCache, templateCacheStats } from '../../shared/sending/templates/engine';
import type { VersionContent } from '../../shared/sending/templates/repository';
import { renderContent, type Partials } from '../../shared/sending/templates/render';

const content = (body: string): VersionContent => ({
  subject: 'Hi {{ name }}',
  body_html: `{{> header }}<p>${body} {{ name }}</p>{{> footer }}`,
  body_text: null,
  variables: [{ name: 'name', required: true, default_value: null, sample: null }],
});

const partials = (header: string, footer: string): Partials => {
  const bodies: Record<string, string> = { header, footer };
  return { html: (n) => bodies[n], text: (n) => bodies[n] };
};

describe('the parsed-template cache', () => {
  it('parses a version and its snippets once; a second render parses nothing', () => {
    clearTemplateCache();
    // The count of parses is the process's (other files in this worker may have parsed before).
    const before = templateCacheStats().parses;
    const v1 = content('Hello');
    const snippets = partials('<h1>{{ name }}</h1>', '<small>bye</small>');
    const first = renderContent(v1, { name: 'Ada' }, { samples: false, partials: snippets });
    const parsed = templateCacheStats().parses;
    expect(parsed - before).toBe(4); // subject, body_html and the two snippets
    const second = renderContent(structuredClone(v1), { name: 'Ada' }, { samples: false, partials: snippets });
    expect(second).toEqual(first);
    expect(templateCacheStats().parses).toBe(parsed);
  });

  it('renders a new version and an edited snippet at once, not from the cache', () => {
    clearTemplateCache();
    renderContent(content('Hello'), { name: 'Ada' }, { samples: false, partials: partials('<h1>{{ name }}</h1>', '<small>bye</small>') });
    const before = templateCacheStats().parses;

    const v2 = renderContent(content('Welcome back'), { name: 'Ada' }, { samples: false, partials: partials('<h1>{{ name }}</h1>', '<small>bye</small>') });
    expect(v2.body_html).toBe('<h1>Ada</h1><p>Welcome back Ada</p><small>bye</small>');
    expect(templateCacheStats().parses).toBe(before + 1); // only the new body_html

    const edited = renderContent(content('Welcome back'), { name: 'Ada' }, { samples: false, partials: partials('<h2>Dear {{ name }}</h2>', '<small>bye</small>') });
    expect(edited.body_html).toBe('<h2>Dear Ada</h2><p>Welcome back Ada</p><small>bye</small>');
    expect(templateCacheStats().parses).toBe(before + 2); // only the edited snippet
  });

  it('stays bounded', () => {
    clearTemplateCache();
    for (let i = 0; i < 500; i++) renderContent(content(`Body ${i}`), { name: 'Ada' }, { samples: false, partials: partials('h', 'f') });
    expect(templateCacheStats().entries).toBeLessThanOrEqual(200);
  });
});
