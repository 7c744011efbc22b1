// Templates: the list, an editor with a live preview (POST /v1/templates/preview as you type, the
// HTML sanitized into a frame where nothing runs), save as new or as a new version, and the gallery.
import type { Ok } from '../../../client/src/index';
import { sanitizeMail, STYLE_FETCHES } from '../../mail/sanitize';
import { api, failure, present } from '../api';
import { $, el, say } from '../dom';
import type { View } from '../router';
import { attempt, button, onSubmit, pager, table } from '../ui';

type Summary = Ok<'/v1/templates', 'get'>['templates'][number];
type GalleryItem = Ok<'/v1/templates/gallery', 'get'>['templates'][number];
/** What the editor shows: a stored template (its id), a gallery one or nothing (a new one). */
interface Draft {
  id?: string | null;
  name?: string | null;
  subject?: string | null;
  body_html?: string | null;
  body_text?: string | null;
  sample_variables?: unknown;
}

let editing: string | null = null;
let previewTimer = 0;
let rows: Summary[] = [];
let list = async (): Promise<void> => undefined;

const input = (id: string): HTMLInputElement | HTMLTextAreaElement => $<HTMLInputElement>(id);

/**
 * Style attributes and elements renamed in markup text (data-style, template.css), best effort: the
 * page's policy allows no inline style, and Chromium logs each one it meets as a violation.
 */
const quietAttributes = (text: string): string => text.replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])style(\s*=)/gi, '$1data-style$2'));
const quietStyles = (text: string): string =>
  quietAttributes(text)
    .replace(/<style\b[^>]*>/gi, '<template class="css">')
    .replace(/<\/style\s*>/gi, '</template>');

/** Applies the frame's inline styles and style sheets through the CSSOM, which the policy allows; a style that would fetch anything is left out. */
function applyStyles(frame: HTMLIFrameElement): void {
  const doc = frame.contentDocument;
  const win = frame.contentWindow as (Window & typeof globalThis) | null;
  if (!doc || !win) return;
  for (const node of doc.querySelectorAll<HTMLElement>('[data-style]')) {
    const css = node.getAttribute('data-style') ?? '';
    if (!STYLE_FETCHES.test(css)) node.style.cssText = css;
  }
  const sheets: CSSStyleSheet[] = [];
  for (const t of doc.querySelectorAll<HTMLTemplateElement>('template.css')) {
    const css = t.content.textContent || '';
    if (STYLE_FETCHES.test(css)) continue;
    const sheet = new win.CSSStyleSheet();
    sheet.replaceSync(css);
    sheets.push(sheet);
  }
  doc.adoptedStyleSheets = sheets;
}

/**
 * The sanitized HTML (the sanitizer keeps the style elements that fetch nothing) in the preview
 * frame (sandboxed: nothing in it runs; same origin, so this script can reach it), its styles then
 * applied through the CSSOM.
 */
function showPreview(html: string): void {
  const frame = $<HTMLIFrameElement>('template-preview');
  frame.addEventListener('load', () => applyStyles(frame), { once: true });
  frame.srcdoc = quietStyles(sanitizeMail(quietAttributes(html), false).srcdoc);
}

const preview = attempt(async () => {
  let variables: Record<string, unknown> = {};
  try {
    variables = JSON.parse(input('template-vars').value || '{}') as Record<string, unknown>;
  } catch {
    throw failure('The preview variables are not valid JSON.', 'invalid_request');
  }
  const [subject, html, text] = [input('template-subject').value, input('template-html').value, input('template-text').value];
  if (!subject || !html) {
    $('template-preview-subject').textContent = 'Write a subject and an HTML body to see them here.';
    $('template-problems').replaceChildren();
    return showPreview('');
  }
  const r = await api((c) => c.templates.preview({ subject, body_html: html, ...(text ? { body_text: text } : {}), variables }));
  $('template-preview-subject').textContent = `Subject: ${r.subject || ''}`;
  $('template-problems').replaceChildren(...r.errors.concat(r.warnings).map((p) => el('li', {}, `${p.field}${p.line ? `:${p.line}` : ''} \u2014 ${p.message}`)));
  showPreview(r.html ?? '');
});

function edit(t: Draft | null): void {
  editing = t?.id ?? null;
  $('template-editor-title').textContent = t?.id ? `Edit ${t.name}` : 'New template';
  input('template-name').value = t?.name || '';
  input('template-subject').value = t?.subject || '';
  input('template-html').value = t?.body_html || '';
  input('template-text').value = t?.body_text || '';
  input('template-vars').value = JSON.stringify(t?.sample_variables || {}, null, 1);
  void preview();
}

const galleryCard = (g: GalleryItem): HTMLElement =>
  el(
    'li',
    {},
    el('strong', {}, g.name),
    el('span', { class: 'hint' }, ` ${g.category}`),
    el('p', {}, g.description),
    button(
      'Use',
      () => {
        edit({ ...g, id: null });
        $('template-name').focus();
      },
      { 'aria-label': `Use ${g.name}` },
    ),
  );

function wire(): void {
  list = pager($('template-list'), async (cursor, fresh) => {
    const page = await api((c) => c.templates.list(present({ limit: 50, cursor })));
    rows = (fresh ? [] : rows).concat(page.templates);
    const open = async (t: Summary) => {
      edit(await api((c) => c.templates.get(t.id)));
      $('template-name').focus();
    };
    const cells = rows.map((t) => [t.name, String(t.version), t.is_active ? 'yes' : 'no', button('Edit', () => open(t), { 'aria-label': `Edit ${t.name}` })]);
    $('template-list').replaceChildren(table('Templates', ['Name', 'Version', 'Active', ''], cells, 'No templates yet: start from the gallery below.'));
    return page;
  });
  for (const id of ['template-subject', 'template-html', 'template-text', 'template-vars']) {
    $(id).addEventListener('input', () => {
      clearTimeout(previewTimer);
      previewTimer = window.setTimeout(() => void preview(), 400);
    });
  }
  $('template-new').addEventListener('click', () => edit(null));
  onSubmit<'name' | 'subject' | 'body_html' | 'body_text'>($('template-form'), async (f) => {
    const body = { name: f.name, subject: f.subject, body_html: f.body_html, body_text: f.body_text || null };
    const id = editing;
    if (id) await api((c) => c.templates.update(id, body));
    else editing = (await api((c) => c.templates.create({ channel: 'email', ...body }))).id;
    say(`Template ${f.name} saved.`);
    await list();
  });
}

const templates: View = {
  wire,
  async load() {
    edit(null);
    const [, gallery] = await Promise.all([list(), api((c) => c.templates.gallery())]);
    $('template-gallery').replaceChildren(el('ul', { class: 'cards' }, ...gallery.templates.map(galleryCard)));
  },
};

export const templateViews: Record<string, View> = { templates };
