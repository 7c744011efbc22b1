// Readies a message's HTML for its sandboxed frame, in the browser (DOMParser): elements that run,
// fetch or submit anything go with their content, event handlers and script URLs go, remote
// images become a placeholder until the person asks for them. The frame (sandbox without
// allow-scripts or allow-same-origin) and its own policy are the second wall.
// The console's template preview uses it too (web/console/sections/templates.ts).

const DROPPED = new Set([
  'dropped-base', 'script', 'iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'form', 'input', 'button', 'textarea', 'select', 'option',
  'meta', 'link', 'base', 'noscript', 'template', 'svg', 'math', 'audio', 'video', 'source', 'track', 'portal', 'param', 'dialog',
]);
const URL_ATTRIBUTES = new Set(['href', 'src', 'action', 'formaction', 'poster', 'cite', 'longdesc', 'background', 'lowsrc', 'dynsrc', 'data', 'xlink:href', 'ping', 'srcset', 'manifest', 'codebase']);
export const STYLE_FETCHES = /url\s*\(|@import|expression\s*\(|image-set\s*\(|-moz-binding|behavior\s*:/i;
/** A 1x1 transparent GIF: what a blocked remote image shows until the person asks for images. */
export const PLACEHOLDER = 'data:image/gif;base64,R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAIBRAA7';

const schemeOf = (value: string): string => {
  // eslint-disable-next-line no-control-regex
  const m = /^([a-z][a-z0-9+.-]*):/i.exec(value.replace(/[\u0000-\u0020\u007f-\u00a0]/g, ''));
  return m?.[1] ? m[1].toLowerCase() : '';
};

/** A link may go to the web or to mail; an image may come from the web, a part (cid) or be inline data. */
function keepsUrl(name: string, tag: string, value: string): boolean {
  const scheme = schemeOf(value);
  if (name === 'href') return scheme === '' || scheme === 'http' || scheme === 'https' || scheme === 'mailto';
  if (name === 'src' && tag === 'img') return scheme === 'http' || scheme === 'https' || scheme === 'cid' || /^data:image\/(png|gif|jpe?g|webp);/i.test(value.trim());
  return false;
}

function cleanAttributes(node: Element, tag: string): void {
  for (const attr of Array.from(node.attributes)) {
    const name = attr.name.toLowerCase();
    const keep =
      !name.startsWith('on') &&
      !name.startsWith('data-dropped-on') &&
      !(name === 'style' && STYLE_FETCHES.test(attr.value)) &&
      !(URL_ATTRIBUTES.has(name) && !keepsUrl(name, tag, attr.value));
    if (!keep) node.removeAttribute(attr.name);
  }
}

/** Blocks a remote image unless asked for; answers whether it blocked one. */
function blockImage(img: Element, showImages: boolean): boolean {
  const scheme = schemeOf(img.getAttribute('src') ?? '');
  if (scheme === 'cid') img.removeAttribute('src');
  if ((scheme !== 'http' && scheme !== 'https') || showImages) return false;
  img.setAttribute('src', PLACEHOLDER);
  img.setAttribute('alt', '[remote image blocked]');
  img.setAttribute('style', 'border: 1px dashed #6b7280; min-width: 16px; min-height: 16px');
  return true;
}

/** The message's HTML as a whole document for a frame's srcdoc, and how many remote images it blocked. */
export function sanitizeMail(html: string, showImages: boolean): { srcdoc: string; blocked: number } {
  // Event handler attributes and base elements renamed in the text first: Chromium checks them
  // against the page's policy while DOMParser builds the (inert) document and logs a violation,
  // though nothing runs. Best effort only; the pass over the parsed document below removes them.
  const quiet = html.replace(/<base\b/gi, '<dropped-base').replace(/<[a-z][^>]*>/gi, (tag) => tag.replace(/([\s/"'])on([a-z-]*\s*=)/gi, '$1data-dropped-on$2'));
  const doc = new DOMParser().parseFromString(quiet, 'text/html');
  let blocked = 0;
  for (const node of Array.from(doc.querySelectorAll('*'))) {
    const tag = node.localName;
    if (DROPPED.has(tag) || (tag === 'style' && STYLE_FETCHES.test(node.textContent ?? ''))) {
      node.remove();
      continue;
    }
    cleanAttributes(node, tag);
    if (tag === 'img' && blockImage(node, showImages)) blocked += 1;
    if (tag === 'a' && node.hasAttribute('href')) {
      node.setAttribute('target', '_blank');
      node.setAttribute('rel', 'noopener noreferrer');
    }
  }
  const policy = `default-src 'none'; style-src 'unsafe-inline'; img-src data:${showImages ? ' https: http:' : ''}`;
  const head =
    `<meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${policy}"><meta name="referrer" content="no-referrer">` +
    '<style>body { font: 14px/1.4 system-ui, sans-serif; margin: 8px; overflow-wrap: anywhere; } img { max-width: 100%; height: auto; }</style>';
  const styles = Array.from(doc.head ? doc.head.querySelectorAll('style') : []).map((s) => s.outerHTML).join('');
  return { srcdoc: `<!doctype html><html><head>${head}${styles}</head><body>${doc.body ? doc.body.innerHTML : ''}</body></html>`, blocked };
}
