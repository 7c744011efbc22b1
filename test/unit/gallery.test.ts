// The built-in gallery, checked with the rules the template preview applies: every template
// renders from its own samples with nothing missing and nothing a mail client would trip over.
import Mustache from 'mustache';
import { describe, expect, it } from 'vitest';
import { GMAIL_CLIP_BYTES, mailClientWarnings, unresolvedVariables, usedVariables } from '../../shared/sending/templates/checks';
import { inlineStyles as inlineCss, textOfHtml as textPart } from '../../shared/sending/templates/text';
import { galleryTemplates } from '../../shared/sending/templates/gallery/index';
import { previewContent } from '../../shared/sending/templates/preview';

const render = (source: string, vars: Readonly<Record<string, unknown>>): string => Mustache.render(source, vars);
const decode = (s: string): string =>
  s.replace(/&#x2F;/g, '/').replace(/&#x3D;/g, '=').replace(/&#x60;/g, '`').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
const attributes = (html: string, name: string): string[] => [...html.matchAll(new RegExp(`\\s${name}="([^"]*)"`, 'g'))].map((m) => m[1] ?? '');

const EXPECTED_IDS = [
  'welcome', 'verify_email', 'password_reset', 'magic_link', 'receipt', 'invoice', 'shipping_update', 'trial_ending', 'payment_failed', 'team_invite',
  'weekly_digest', 'newsletter', 'product_announcement', 'event_invite', 'feedback_request', 'account_alert', 'login_alert', 'order_confirmation', 'back_in_stock', 'goodbye',
].map((k) => `gallery_${k}`);

describe('the gallery', () => {
  it('has exactly the 20 templates the issue names, with unique ids and the spec’s fields', () => {
    expect(galleryTemplates).toHaveLength(20);
    expect(new Set(galleryTemplates.map((t) => t.id)).size).toBe(20);
    expect([...galleryTemplates.map((t) => t.id)].sort()).toEqual([...EXPECTED_IDS].sort());
    for (const t of galleryTemplates) {
      for (const field of ['id', 'name', 'category', 'description', 'subject', 'body_html'] as const) {
        expect(typeof t[field], `${t.id}.${field}`).toBe('string');
        expect(t[field].trim().length, `${t.id}.${field}`).toBeGreaterThan(0);
      }
      expect(['onboarding', 'account', 'billing', 'commerce', 'marketing', 'engagement']).toContain(t.category);
      expect(typeof t.sample_variables).toBe('object');
      expect(Array.isArray(t.sample_variables)).toBe(false);
      for (const v of t.variables) {
        expect(typeof v.name).toBe('string');
        expect(typeof v.required).toBe('boolean');
        if (v.default_value !== undefined) expect(typeof v.default_value).toBe('string');
      }
    }
    expect(new Set(galleryTemplates.map((t) => t.name)).size).toBe(20);
  });

  describe.each(galleryTemplates.map((t) => [t.id, t] as const))('%s', (_id, t) => {
    const html = render(t.body_html, t.sample_variables);
    const subject = render(t.subject, t.sample_variables);
    const inlined = inlineCss(html);

    it('declares every variable it uses and uses every variable it declares', () => {
      const used = usedVariables(t).map((u) => u.name).sort();
      const declared = t.variables.map((v) => v.name).sort();
      expect(used).toEqual(declared);
      expect(new Set(declared).size).toBe(declared.length);
    });

    it('renders from its samples with no unresolved variable, even with the defaults taken away', () => {
      expect(unresolvedVariables(t, t.sample_variables)).toEqual([]);
      expect(unresolvedVariables({ ...t, variables: [] }, t.sample_variables)).toEqual([]);
      for (const v of t.variables) expect(t.sample_variables[v.name], v.name).toBeDefined();
      // Lists have two or three items (five score links in the feedback request).
      for (const [name, value] of Object.entries(t.sample_variables)) {
        if (Array.isArray(value)) expect(value.length, name).toBeGreaterThanOrEqual(2);
        if (Array.isArray(value) && t.id !== 'gallery_feedback_request') expect(value.length, name).toBeLessThanOrEqual(3);
      }
    });

    it('leaves no mustache tag behind and raises no mail-client warning', () => {
      expect(html).not.toContain('{{');
      expect(html).not.toContain('}}');
      expect(subject).not.toContain('{{');
      expect(mailClientWarnings(html, textPart(html))).toEqual([]);
      expect(mailClientWarnings(inlined, textPart(inlined))).toEqual([]);
    });

    it('previews from its samples with no warning and no error (POST /v1/templates/preview’s rules)', () => {
      const previewed = previewContent({ subject: t.subject, body_html: t.body_html, variables: { ...t.sample_variables } }, new Map());
      expect(previewed.errors).toEqual([]);
      expect(previewed.warnings).toEqual([]);
      expect(previewed.html).toBe(inlined);
      expect(previewed.text).toBe(textPart(html));
    });

    it('stays under Gmail’s clipping size after inlining', () => {
      expect(Buffer.byteLength(inlined, 'utf8')).toBeLessThan(GMAIL_CLIP_BYTES);
    });

    it('is responsive and accessible: 600px tables, a small-screen media query, a language, alt text on every image, no script', () => {
      expect(t.body_html).toContain('max-width: 600px');
      expect(t.body_html).toMatch(/<table role="presentation"/);
      expect(t.body_html).toMatch(/@media only screen and \(max-width: \d+px\)/);
      expect(t.body_html).toMatch(/<html lang="en"/);
      expect(t.body_html).toMatch(/<title>[^<]+<\/title>/);
      expect(t.body_html).toMatch(/<style>[\s\S]+<\/style>/);
      expect(t.body_html).not.toMatch(/<script/i);
      expect(t.body_html).not.toContain('{{>');
      for (const img of html.match(/<img\b[^>]*>/g) ?? []) expect(img).toMatch(/\salt="[^"\s][^"]*"/);
    });

    it('links only to absolute https URLs (or mailto), all from variables', () => {
      for (const href of [...attributes(t.body_html, 'href'), ...attributes(t.body_html, 'src')]) expect(href).toMatch(/^(mailto:)?\{\{ \w+ \}\}$/);
      const rendered = [...attributes(html, 'href'), ...attributes(html, 'src')].map(decode);
      expect(rendered.length).toBeGreaterThan(0);
      for (const url of rendered) expect(url).toMatch(/^(https:\/\/[^\s"<>]+|mailto:[^\s"<>]+@[^\s"<>]+)$/);
    });

    it('has a footer with the company name and address, and an unsubscribe link when it is marketing', () => {
      expect(html).toContain(String(t.sample_variables.company_name));
      expect(html).toContain(String(t.sample_variables.company_address));
      if (t.category === 'marketing') expect(attributes(html, 'href').map(decode)).toContain(t.sample_variables.unsubscribe_url);
    });

    it('keeps its mustache tags through inlining, so inlining can happen once, when the template is written', () => {
      const inlinedTemplate = inlineCss(t.body_html);
      expect(inlinedTemplate).toContain('style="');
      expect(Mustache.parse(inlinedTemplate).length).toBeGreaterThan(0);
      expect(usedVariables({ body_html: inlinedTemplate }).map((u) => u.name).sort()).toEqual(usedVariables({ body_html: t.body_html }).map((u) => u.name).sort());
      // Rendering the inlined template equals inlining the rendered one, except where HTML arrives
      // through a triple-brace variable: that HTML was not there to be inlined when the template was.
      if (!t.body_html.includes('{{{')) expect(render(inlinedTemplate, t.sample_variables)).toBe(inlined);
      else expect(render(inlinedTemplate, t.sample_variables)).not.toContain('{{');
    });

    it('has a text part that keeps the link URLs', () => {
      const text = textPart(html);
      for (const url of attributes(html, 'href').map(decode)) expect(text).toContain(url.replace(/^mailto:/, ''));
      expect(text).not.toContain('<');
    });
  });
});

describe('inlineCss', () => {
  it('writes a rule from the head into the style attribute and keeps the media query in a style block', () => {
    const t = galleryTemplates[0]!;
    const inlined = inlineCss(t.body_html);
    // .header { padding: 24px 32px; ... } from the <style> block, now on the header cell.
    expect(t.body_html).toContain('<td class="header">');
    expect(inlined).toMatch(/<td class="header" style="[^"]*padding: 24px 32px;[^"]*font-size: 20px;/);
    expect(inlined).toMatch(/<style>[\s\S]*@media only screen and \(max-width: 620px\)[\s\S]*<\/style>/);
    // Tags in text, attributes, sections and triple braces all survive.
    const small = '<style>p { color: red; }</style><table>{{#rows}}<tr><td><p>{{ a }} {{{ b }}}</p></td></tr>{{/rows}}</table><a href="{{ url }}">x</a>';
    const out = inlineCss(small);
    expect(out).toContain('<p style="color: red;">{{ a }} {{{ b }}}</p>');
    expect(out).toContain('{{#rows}}<tr>');
    expect(out).toContain('href="{{ url }}"');
  });
});

describe('textPart', () => {
  it('keeps link URLs, leaves out a URL that would repeat the link text, and skips the preheader and images', () => {
    const text = textPart(
      '<div class="preheader">hidden</div><p>Hi <a href="https://example.com/a?b=1&amp;c=2">open</a> or <a href="https://example.com/x">https://example.com/x</a></p><img src="https://example.com/i.png" alt="logo">',
    );
    expect(text).toContain('open [https://example.com/a?b=1&c=2]');
    expect(text).toContain('https://example.com/x');
    expect(text).not.toContain('[https://example.com/x]');
    expect(text).not.toContain('hidden');
    expect(text).not.toContain('i.png');
  });
});

describe('the checks catch each problem', () => {
  const good = '<html><body><p>Hi</p><img src="https://example.com/a.png" alt="A"></body></html>';

  it('passes a clean message', () => {
    expect(mailClientWarnings(good, 'Hi')).toEqual([]);
  });

  it('a missing plain-text part', () => {
    expect(mailClientWarnings(good).map((w) => w.code)).toEqual(['missing_text_part']);
    expect(mailClientWarnings(good, '  ').map((w) => w.code)).toEqual(['missing_text_part']);
    expect(mailClientWarnings(good, null).map((w) => w.code)).toEqual(['missing_text_part']);
  });

  it('an image without alt, with its line', () => {
    const warnings = mailClientWarnings('<p>x</p>\n<img alt="ok" src="a.png">\n<img src="https://example.com/b.png" title="a > b">', 'x');
    expect(warnings).toEqual([expect.objectContaining({ code: 'image_missing_alt', line: 3 })]);
    // An alt attribute anywhere in the tag counts; "data-alt" does not.
    expect(mailClientWarnings('<IMG SRC="a.png" ALT="x">', 'x')).toEqual([]);
    expect(mailClientWarnings('<img data-alt="x" src="a.png">', 'x').map((w) => w.code)).toEqual(['image_missing_alt']);
  });

  it('a script', () => {
    const warnings = mailClientWarnings('<p>x</p>\n\n<SCRIPT>alert(1)</SCRIPT>', 'x');
    expect(warnings).toEqual([expect.objectContaining({ code: 'script_tag', line: 3 })]);
  });

  it('a body over 102 KB, and not one just under', () => {
    const big = `<p>${'a'.repeat(103 * 1024)}</p>`;
    expect(mailClientWarnings(big, 'x').map((w) => w.code)).toEqual(['body_too_large']);
    expect(mailClientWarnings('a'.repeat(GMAIL_CLIP_BYTES), 'x')).toEqual([]);
    expect(mailClientWarnings('a'.repeat(GMAIL_CLIP_BYTES + 1), 'x').map((w) => w.code)).toEqual(['body_too_large']);
  });

  it('a missing variable, at top level, in the subject and inside list items, with defaults filling in', () => {
    const template = {
      subject: 'Hello {{ name }}',
      body_html: '<p>{{ greeting }}</p>\n{{#items}}<p>{{ title }} {{ price }}</p>{{/items}}\n<a href="{{ url }}">x</a>',
      variables: [{ name: 'greeting', default_value: 'Hi' }, { name: 'name' }, { name: 'items' }, { name: 'url' }],
    };
    const full = { name: 'Dana', items: [{ title: 'A', price: '$1' }], url: 'https://example.com' };
    expect(unresolvedVariables(template, full)).toEqual([]);
    expect(unresolvedVariables(template, { ...full, name: undefined })).toEqual([{ name: 'name', field: 'subject', line: 1 }]);
    expect(unresolvedVariables(template, { items: full.items, name: 'D' })).toEqual([{ name: 'url', field: 'body_html', line: 3 }]);
    expect(unresolvedVariables(template, { ...full, items: [{ title: 'A' }, { title: 'B', price: '$2' }] })).toEqual([{ name: 'price', field: 'body_html', line: 2 }]);
    // A field missing from an item but present at top level resolves, as Mustache looks outward.
    expect(unresolvedVariables(template, { ...full, price: '$0', items: [{ title: 'A' }] })).toEqual([]);
    expect(unresolvedVariables({ ...template, variables: [] }, full).map((u) => u.name)).toEqual(['greeting']);
    expect(unresolvedVariables({ body_html: '{{ a.b }}' }, { a: { c: 1 } }).map((u) => u.name)).toEqual(['a.b']);
    expect(unresolvedVariables({ body_html: '{{^items}}none {{ note }}{{/items}}' }, { items: [] }).map((u) => u.name)).toEqual(['note']);
  });

  it('lists the variables a template uses at top level, sections included and their items’ fields not', () => {
    expect(usedVariables({ subject: '{{ a }}', body_html: '{{{ b }}}\n{{#list}}{{ x }}{{/list}}{{^empty}}-{{/empty}}{{ user.name }}{{! note }}' })).toEqual([
      { name: 'a', field: 'subject', line: 1 },
      { name: 'b', field: 'body_html', line: 1 },
      { name: 'list', field: 'body_html', line: 2 },
      { name: 'empty', field: 'body_html', line: 2 },
      { name: 'user', field: 'body_html', line: 2 },
    ]);
  });
});
