// The console's copy of web/mail/sanitize.ts (the Mail app's, bundled from TypeScript), kept as a
// string while the console's script is one; it goes when the console moves to web/. Keep the two
// alike. It readies a message's HTML for its sandboxed frame, in the browser
// (DOMParser): elements that run, fetch or submit anything go with their content, event handlers
// and script URLs go, remote images become a placeholder until the person asks for them. The frame
// (sandbox without allow-scripts or allow-same-origin) and its own policy are the second wall.
// Plain browser JavaScript in a raw string: no backquote and no dollar-brace in it.
export const sanitizeScript = String.raw`
const DROPPED = new Set(['dropped-base', 'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button', 'textarea', 'select', 'option', 'meta', 'link', 'base', 'noscript', 'template', 'svg', 'math', 'audio', 'video', 'source', 'track', 'portal', 'param', 'dialog']);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'longdesc', 'background', 'lowsrc', 'dynsrc', 'data', 'xlink:href', 'ping', 'srcset', 'manifest', 'codebase']);
const STYLE_FETCHES = /url\s*\(|@import|expression\s*\(|image-set\s*\(|-moz-binding|behavior\s*:/i;
// A 1x1 transparent GIF: what a blocked remote image shows until the person asks for images.
export const PLACEHOLDER = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const schemeOf = (value) => {
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(String(value).replace(/[\u0000-\u0020\u007f-\u00a0]/g, ''));
  return m ? m[1].toLowerCase() : '';
};

/** The message's HTML as a whole document for a frame's srcdoc, and how many remote images it blocked. */
export function sanitizeMail(html, showImages) {
  // Event handler attributes and base elements renamed in the text first: Chromium checks them
  // against the page's policy while DOMParser builds the (inert) document and logs a violation,
  // though nothing runs. Best effort only; the pass over the parsed document below removes them.
  const quiet = String(html)
    .replace(/<base\b/gi, '<dropped-base')
    .replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])on([a-z-]*\s*=)/gi, '$1data-dropped-on$2'));
  const doc = new DOMParser().parseFromString(quiet, 'text/html');
  let blocked = 0;
  for (const el of Array.from(doc.querySelectorAll('*'))) {
    const tag = el.localName;
    if (DROPPED.has(tag) || (tag === 'style' && STYLE_FETCHES.test(el.textContent || ''))) {
      el.remove();
      continue;
    }
    for (const attr of Array.from(el.attributes)) {
      const name = attr.name.toLowerCase();
      const scheme = schemeOf(attr.value);
      const keep =
        !name.startsWith('on') &&
        !name.startsWith('data-dropped-on') &&
        !(name === 'style' && STYLE_FETCHES.test(attr.value)) &&
        !(URL_ATTRIBUTES.has(name) && !((name === 'href' && (scheme === '' || scheme === 'http' || scheme === 'https' || scheme === 'mailto')) || (name === 'src' && tag === 'img' && (scheme === 'http' || scheme === 'https' || scheme === 'cid' || /^data:image\/(png|gif|jpe?g|webp);/i.test(attr.value.trim())))));
      if (!keep) el.removeAttribute(attr.name);
    }
    if (tag === 'img') {
      const scheme = schemeOf(el.getAttribute('src') || '');
      if (scheme === 'cid') el.removeAttribute('src');
      if ((scheme === 'http' || scheme === 'https') && !showImages) {
        blocked += 1;
        el.setAttribute('src', PLACEHOLDER);
        el.setAttribute('alt', '[remote image blocked]');
        el.setAttribute('style', 'border: 1px dashed #6b7280; min-width: 16px; min-height: 16px');
      }
    }
    if (tag === 'a' && el.hasAttribute('href')) {
      el.setAttribute('target', '_blank');
      el.setAttribute('rel', 'noopener noreferrer');
    }
  }
  const policy = "default-src 'none'; style-src 'unsafe-inline'; img-src data:" + (showImages ? ' https: http:' : '');
  const head = '<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="' + policy + '"><meta name="referrer" content="no-referrer">' +
    '<style>body { font: 14px/1.4 system-ui, sans-serif; margin: 8px; overflow-wrap: anywhere; } img { max-width: 100%; height: auto; }</style>';
  const styles = Array.from(doc.head ? doc.head.querySelectorAll('style') : []).map((s) => s.outerHTML).join('');
  return { srcdoc: '<!doctype html><html><head>' + head + styles + '</head><body>' + (doc.body ? doc.body.innerHTML : '') + '</body></html>', blocked };
}
`;
