// Templates: the list, an editor with a live preview (POST /v1/templates/preview as you type, the
// HTML sanitized into a frame where nothing runs), save as new or as a new version, and the gallery.
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

export const templatesSection: Section = { markup, nav: [{ view: 'templates', label: 'Templates' }] };
