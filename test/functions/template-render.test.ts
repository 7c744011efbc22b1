// The template-render function through the handler: POST /v1/templates/preview (a template that is
// not stored, its problems answered in warnings and errors with a 200) and the render of a stored
// template as mailed (CSS inlined, a text part).
import { describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { MAX_PROBLEMS } from '../../shared/sending/templates/preview';
import { useTestbed } from '../support/testbed';
import { expectError } from '../support/errors';

const bed = useTestbed({ scopedKeys: true });

const request = bed.request;
const preview = (body: unknown, key = bed.readKey) => request({ method: 'POST', path: '/v1/templates/preview', key, body });
const createSnippet = (body: unknown, key = bed.sendKey) => request({ method: 'POST', path: '/v1/templates/snippets', key, body });
const createTemplate = (body: unknown) => request({ method: 'POST', path: '/v1/templates', key: bed.sendKey, body });
const render = (id: string, vars: Record<string, unknown> = {}) => request({ method: 'POST', path: `/v1/templates/${id}/render`, key: bed.readKey, body: { vars } });

interface Problem {
  code: string;
  field: string;
  line: number | null;
  message: string;
}

async function previewed(body: Record<string, unknown>, key = bed.readKey): Promise<{ subject: string | null; html: string | null; text: string | null; warnings: Problem[]; errors: Problem[] }> {
  const res = await preview(body, key);
  expect(res.status).toBe(200);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  return res.body;
}

const codes = (problems: Problem[]): string[] => problems.map((p) => p.code);

const clean = {
  subject: 'Welcome, {{ first_name }}',
  body_html: '<style>p { color: #333333; }</style>\n<p>Hello {{ first_name }}, <a href="https://example.com/start">get started</a>.</p>',
  variables: { first_name: 'Ada <3' },
};

describe('POST /v1/templates/preview', () => {
  it('renders as a send would mail it, CSS inlined and a text part made from the HTML, with nothing to report and nothing stored', async () => {
    const res = await previewed(clean);

    expect(res.subject).toBe('Welcome, Ada <3');
    expect(res.html).toContain('<p style="color: #333333;">Hello Ada &lt;3, <a href="https://example.com/start">get started</a>.</p>');
    expect(res.text).toBe('Hello Ada <3, get started [https://example.com/start].');
    expect(res.warnings).toEqual([]);
    expect(res.errors).toEqual([]);
    expect((await request({ method: 'GET', path: '/v1/templates', key: bed.readKey })).body.templates).toEqual([]);
  });

  it('uses body_text as written when given, never escaped', async () => {
    const res = await previewed({ ...clean, body_text: 'Hi {{ first_name }}\n{{# items }}- {{ . }}\n{{/ items }}', variables: { first_name: '<Ada>', items: ['a', 'b'] } });
    expect(res.text).toBe('Hi <Ada>\n- a\n- b\n');
    expect(res.warnings).toEqual([]);
  });

  it('lists a syntax error with its part and line instead of refusing, and renders the parts that parse', async () => {
    const res = await previewed({ subject: 'Hi {{ name }}', body_html: '<ul>\n{{# items }}<li>{{ . }}</li>\n</ul>', variables: { name: 'Ada' } });
    expect(res.errors).toEqual([{ code: 'syntax_error', field: 'body_html', line: 2, message: 'section "items" is opened and never closed' }]);
    expect(res.subject).toBe('Hi Ada');
    expect(res.html).toBeNull();
    expect(res.text).toBeNull();
  });

  it('lists a syntax error of the text part and of the subject too', async () => {
    const res = await previewed({ subject: 'Hi {{/ name }}', body_html: '<p>x</p>', body_text: 'one\ntwo {{# a }}' });
    expect(res.errors.map((e) => [e.code, e.field, e.line])).toEqual([
      ['syntax_error', 'subject', 1],
      ['syntax_error', 'body_text', 2],
    ]);
    expect(res.subject).toBeNull();
    expect(res.html).toContain('<p>x</p>');
    expect(res.text).toBeNull();
  });

  it("uses the account's snippets as partials, case-insensitively, each body its own part, and lists every unknown one with its line", async () => {
    expect((await createSnippet({ name: 'Footer', body_html: '<p class="f">Sent by {{ company }}</p>', body_text: 'Sent by {{ company }}' })).status).toBe(201);
    const res = await previewed({
      subject: 'News',
      body_html: '<style>.f { color: gray; }</style><p>Body</p>\n{{> footer }}\n{{> missing }}',
      body_text: 'Body\n{{> FOOTER }}\n{{> gone }}',
      variables: { company: 'Acme' },
    });
    expect(res.errors).toEqual([
      { code: 'unknown_partial', field: 'body_html', line: 3, message: 'partial "missing" is not a snippet of this account' },
      { code: 'unknown_partial', field: 'body_text', line: 3, message: 'partial "gone" is not a snippet of this account' },
    ]);
    // An unknown partial renders empty; the rest renders.
    expect(res.html).toContain('<p class="f" style="color: gray;">Sent by Acme</p>');
    expect(res.text).toBe('Body\nSent by Acme');
  });

  it("never uses another account's snippet", async () => {
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expect((await createSnippet({ name: 'theirs', body_html: '<p>theirs</p>' }, other.admin_key)).status).toBe(201);
    const res = await previewed({ subject: 'x', body_html: '<p>mine</p>{{> theirs }}' });
    expect(codes(res.errors)).toEqual(['unknown_partial']);
    expect(res.html).not.toContain('theirs');
  });

  it('refuses a partial in the subject as a write would', async () => {
    expect((await createSnippet({ name: 'footer', body_html: '<p>f</p>' })).status).toBe(201);
    const res = await previewed({ subject: 'Hi {{> footer }}', body_html: '<p>x</p>' });
    expect(res.errors).toEqual([{ code: 'partial_not_allowed', field: 'subject', line: 1, message: 'partial "footer": only body_html and body_text may include snippets' }]);
  });

  it('lists more than 20 distinct snippets as an error', async () => {
    const names = Array.from({ length: 21 }, (_, i) => `s${i}`);
    const res = await previewed({ subject: 'x', body_html: names.map((n) => `{{> ${n} }}`).join('\n') });
    expect(res.errors.filter((e) => e.code === 'too_many_snippets')).toEqual([
      { code: 'too_many_snippets', field: 'body_html', line: null, message: 'the template includes 21 snippets; a template may include at most 20' },
    ]);
  });

  it('warns about each variable without a value, once, at its first use, into sections and snippets', async () => {
    expect((await createSnippet({ name: 'sign', body_html: '<p>\n{{ signature }}</p>' })).status).toBe(201);
    const res = await previewed({
      subject: 'Hi {{ first_name }}',
      body_html: '<p>{{ first_name }}</p>\n{{# orders }}<p>{{ id }} {{ total }}</p>{{/ orders }}\n{{> sign }}',
      variables: { orders: [{ id: 1, total: 2 }, { id: 2 }] },
    });
    expect(res.errors).toEqual([]);
    expect(res.warnings).toEqual([
      { code: 'missing_variable', field: 'subject', line: 1, message: 'variable "first_name" has no value and renders empty' },
      { code: 'missing_variable', field: 'body_html', line: 2, message: 'variable "total" has no value and renders empty' },
      { code: 'missing_variable', field: 'snippets.sign', line: 2, message: 'variable "signature" has no value and renders empty' },
    ]);
    expect(res.subject).toBe('Hi ');
  });

  it('warns about images without alt text and <script>, with their lines, in the body and in its snippets', async () => {
    expect((await createSnippet({ name: 'logo', body_html: '<p>\n<img src="https://example.com/l.png"></p>' })).status).toBe(201);
    const res = await previewed({
      subject: 'x',
      body_html: '<p>Hi</p>\n<img src="https://example.com/a.png" alt="A">\n<img src="https://example.com/b.png">\n<script>alert(1)</script>\n{{> logo }}',
    });
    expect(res.warnings.map((w) => [w.code, w.field, w.line])).toEqual([
      ['image_missing_alt', 'body_html', 3],
      ['script_tag', 'body_html', 4],
      ['image_missing_alt', 'snippets.logo', 2],
    ]);
    expect(res.errors).toEqual([]);
  });

  it('warns when the HTML, CSS inlined, is over Gmail’s 102 KB clipping size', async () => {
    const paragraph = '<p class="x">' + 'word '.repeat(40) + '</p>\n';
    const small = await previewed({ subject: 'x', body_html: '<style>.x { color: red; }</style>' + paragraph.repeat(100) });
    expect(codes(small.warnings)).toEqual([]);
    // 90 KB as written, past 102 KB once every paragraph carries its style.
    const body_html = '<style>.x { color: red; font-family: Helvetica, Arial, sans-serif; line-height: 1.5; }</style>' + paragraph.repeat(420);
    expect(Buffer.byteLength(body_html)).toBeLessThan(102 * 1024);
    const large = await previewed({ subject: 'x', body_html });
    expect(large.warnings).toEqual([{ code: 'body_too_large', field: 'body_html', line: null, message: expect.stringMatching(/^The HTML body is 1\d\d\.\d KB; Gmail clips bodies over 102 KB\.$/) }]);
  });

  it('warns when the message would have no plain text: an HTML of images only, or a text part that renders empty', async () => {
    const images = await previewed({ subject: 'x', body_html: '<img src="https://example.com/a.png" alt="">' });
    expect(images.warnings.map((w) => [w.code, w.field])).toEqual([['missing_text_part', 'body_text']]);
    expect(images.text).toBe('');
    const empty = await previewed({ subject: 'x', body_html: '<p>Hi</p>', body_text: '{{ nothing }}', variables: { nothing: '  ' } });
    expect(codes(empty.warnings)).toEqual(['missing_text_part']);
  });

  it('lists a render that cannot finish as an error, not a 422', async () => {
    const nested = '{{# a }}{{# a }}{{# a }}{{# a }}x{{/ a }}{{/ a }}{{/ a }}{{/ a }}';
    const res = await previewed({ subject: 'x', body_html: nested, variables: { a: Array.from({ length: 100 }, () => 1) } });
    expect(res.errors).toEqual([{ code: 'render_failed', field: 'body_html', line: null, message: expect.stringMatching(/^body_html: rendering took more than/) }]);
    expect(res.html).toBeNull();
    expect(res.text).toBeNull();
  });

  it('keeps at most 100 problems of each kind', async () => {
    const body_html = Array.from({ length: 150 }, (_, i) => `<img src="https://example.com/${i}.png">{{ v${i} }}`).join('\n');
    const res = await previewed({ subject: 'x', body_html });
    expect(res.warnings).toHaveLength(MAX_PROBLEMS);
    expect(res.warnings[0]).toMatchObject({ code: 'missing_variable', field: 'body_html', line: 1 });
  });

  it('answers every scope and test keys alike', async () => {
    expect((await preview(clean, bed.sendKey)).status).toBe(200);
    expect((await preview(clean, bed.account.admin_key)).status).toBe(200);
    expect((await preview(clean, bed.account.test_admin_key)).status).toBe(200);
  });

  it('answers 400 invalid_request naming the field for a body of the wrong shape', async () => {
    expectError(await preview({ subject: 'x' }), 400, 'invalid_request', /^body\.body_html:/);
    expectError(await preview({ body_html: '<p>x</p>' }), 400, 'invalid_request', /^body\.subject:/);
    expectError(await preview({ subject: '', body_html: '<p>x</p>' }), 400, 'invalid_request', /^body\.subject:/);
    expectError(await preview({ ...clean, variables: ['a'] }), 400, 'invalid_request', /^body\.variables:/);
    expectError(await preview({ ...clean, body_text: 3 }), 400, 'invalid_request', /^body\.body_text:/);
    expectError(await preview({ ...clean, vars: {} }), 400, 'invalid_request', /vars/);
    expectError(await preview({ ...clean, subject: 'x'.repeat(999) }), 400, 'invalid_request', /^body\.subject:/);
    expectError(await preview([clean]), 400, 'invalid_request');
    expectError(await preview(undefined), 400, 'invalid_request');
  });

  it('answers 401 without a key', async () => {
    expectError(await request({ method: 'POST', path: '/v1/templates/preview', body: clean }), 401, 'unauthorized');
  });
});

describe('POST /v1/templates/{id}/render, as mailed', () => {
  it('inlines the CSS of the <style> blocks onto the elements, keeping media queries in a <style> block', async () => {
    const created = await createTemplate({
      name: 'styled',
      channel: 'email',
      subject: 'Hi',
      body_html: '<style>p { color: #123456; } @media (max-width: 600px) { p { color: red; } }</style><p>Hello {{ name }}</p>',
      variables: [{ name: 'name', sample: 'Ada' }],
    });
    expect(created.status).toBe(201);
    const res = await render(created.body.id);
    expect(res.status).toBe(200);
    expect(res.body.body_html).toContain('<p style="color: #123456;">Hello Ada</p>');
    expect(res.body.body_html).toContain('@media (max-width: 600px)');
    expect(res.body.body_text).toBe('Hello Ada');
  });

  it("answers 404 template_not_found for another account's template", async () => {
    const created = await createTemplate({ name: 't', channel: 'email', subject: 'Hi', body_html: '<p>x</p>' });
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await request({ method: 'POST', path: `/v1/templates/${created.body.id}/render`, key: other.admin_key, body: {} }), 404, 'template_not_found');
  });
});
