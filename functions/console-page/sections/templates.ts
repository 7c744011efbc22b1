// Templates: the list, an editor with a live preview (POST /v1/templates/preview as you type, the
// HTML sanitized into a frame where nothing runs), save as new or as a new version, and the gallery.
import { sanitizeScript } from '../../mail-page/sanitize-script';
import { field, view, type Section } from '../section';

const markup = view(
  'templates',
  'Templates',
  `<div id="template-list"></div>
<div class="split"><form id="template-form"><h3 id="template-editor-title">New template</h3>
${field('template-name', 'Name', '<input id="template-name" name="name" required maxlength="200">')}
${field('template-subject', 'Subject', '<input id="template-subject" name="subject" required>')}
${field('template-html', 'HTML body', '<textarea id="template-html" name="body_html" rows="12" required spellcheck="false"></textarea>')}
${field('template-text', 'Text body (optional)', '<textarea id="template-text" name="body_text" rows="4"></textarea>')}
${field('template-vars', 'Preview variables (JSON)', '<textarea id="template-vars" name="vars" rows="3" spellcheck="false">{}</textarea>')}
<button type="submit">Save</button> <button type="button" id="template-new">New</button></form>
<div class="preview"><h3>Preview</h3><p id="template-preview-subject"></p><ul id="template-problems"></ul>
<iframe id="template-preview" title="Template preview" sandbox="allow-same-origin"></iframe></div></div>
<h3>Gallery</h3><div id="template-gallery"></div>`,
);

const script = String.raw`
let editing = null;
let previewTimer = 0;

/**
 * Style attributes and elements renamed in markup text (data-style, template.css), best effort: the
 * page's policy allows no inline style, and Chromium logs each one it meets as a violation.
 */
const quietAttributes = (text) => text.replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])style(\s*=)/gi, '$1data-style$2'));
const quietStyles = (text) => quietAttributes(text).replace(/<style\b[^>]*>/gi, '<template class="css">').replace(/<\/style\s*>/gi, '</template>');

/**
 * The sanitized HTML (the sanitizer keeps the style elements that fetch nothing) in the preview frame (sandboxed: nothing in it runs; same origin, so this
 * script can reach it), its inline styles and style sheets then applied through the CSSOM, which
 * the policy allows; a style that would fetch anything is left out (STYLE_FETCHES, the sanitizer's).
 */
function showPreview(html) {
  const frame = $('template-preview');
  frame.addEventListener('load', () => {
    const doc = frame.contentDocument;
    if (!doc) return;
    for (const node of doc.querySelectorAll('[data-style]')) {
      const css = node.getAttribute('data-style');
      if (!STYLE_FETCHES.test(css)) node.style.cssText = css;
    }
    const sheets = [];
    for (const t of doc.querySelectorAll('template.css')) {
      const css = t.content.textContent || '';
      if (STYLE_FETCHES.test(css)) continue;
      const sheet = new frame.contentWindow.CSSStyleSheet();
      sheet.replaceSync(css);
      sheets.push(sheet);
    }
    doc.adoptedStyleSheets = sheets;
  }, { once: true });
  frame.srcdoc = quietStyles(sanitizeMail(quietAttributes(html || ''), false).srcdoc);
}

const preview = attempt(async () => {
  let variables = {};
  try {
    variables = JSON.parse($('template-vars').value || '{}');
  } catch (_) {
    throw new ApiFailure('The preview variables are not valid JSON.', 400, 'invalid_request');
  }
  if (!$('template-subject').value || !$('template-html').value) {
    $('template-preview-subject').textContent = 'Write a subject and an HTML body to see them here.';
    $('template-problems').replaceChildren();
    return showPreview('');
  }
  const r = await api('POST', '/v1/templates/preview', { subject: $('template-subject').value, body_html: $('template-html').value, ...($('template-text').value ? { body_text: $('template-text').value } : {}), variables });
  $('template-preview-subject').textContent = 'Subject: ' + (r.subject || '');
  $('template-problems').replaceChildren(...r.errors.concat(r.warnings).map((p) => el('li', {}, p.field + (p.line ? ':' + p.line : '') + ' \u2014 ' + p.message)));
  showPreview(r.html);
});

function edit(t) {
  editing = t ? t.id : null;
  $('template-editor-title').textContent = t && t.id ? 'Edit ' + t.name : 'New template';
  $('template-name').value = (t && t.name) || '';
  $('template-subject').value = (t && t.subject) || '';
  $('template-html').value = (t && (t.body_html || '')) || '';
  $('template-text').value = (t && (t.body_text || '')) || '';
  $('template-vars').value = JSON.stringify((t && t.sample_variables) || {}, null, 1);
  void preview();
}

views.templates = {
  wire() {
    views.templates.list = pager($('template-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/templates' + query({ limit: 50, cursor }));
      views.templates.rows = (fresh ? [] : views.templates.rows).concat(page.templates);
      $('template-list').replaceChildren(table('Templates', ['Name', 'Version', 'Active', ''], views.templates.rows.map((t) => [
        t.name, String(t.version), t.is_active ? 'yes' : 'no',
        button('Edit', async () => {
          edit(await api('GET', '/v1/templates/' + encodeURIComponent(t.id)));
          $('template-name').focus();
        }, { 'aria-label': 'Edit ' + t.name }),
      ]), 'No templates yet: start from the gallery below.'));
      return page;
    });
    for (const id of ['template-subject', 'template-html', 'template-text', 'template-vars']) $(id).addEventListener('input', () => {
      clearTimeout(previewTimer);
      previewTimer = setTimeout(() => void preview(), 400);
    });
    $('template-new').addEventListener('click', () => edit(null));
    onSubmit($('template-form'), async (f) => {
      const body = { name: f.name, subject: f.subject, body_html: f.body_html, body_text: f.body_text || null };
      if (editing) await api('PUT', '/v1/templates/' + encodeURIComponent(editing), body);
      else editing = (await api('POST', '/v1/templates', Object.assign({ channel: 'email' }, body))).id;
      say('Template ' + f.name + ' saved.');
      await views.templates.list();
    });
  },
  async load() {
    edit(null);
    const [, gallery] = await Promise.all([views.templates.list(), api('GET', '/v1/templates/gallery')]);
    $('template-gallery').replaceChildren(el('ul', { class: 'cards' }, ...gallery.templates.map((g) => el('li', {},
      el('strong', {}, g.name), el('span', { class: 'hint' }, ' ' + g.category), el('p', {}, g.description),
      button('Use', () => {
        edit(Object.assign({}, g, { id: null }));
        $('template-name').focus();
      }, { 'aria-label': 'Use ' + g.name })))));
  },
};
`;

export const templatesSection: Section = { markup, script: sanitizeScript + script, nav: [{ view: 'templates', label: 'Templates' }] };
