// The HTML every form page shares: escaping and the page shell (lang, title, viewport, one small
// inline stylesheet, no script: each page works with scripting off).

export const escapeHtml = (value: string): string =>
  value.replace(/[&<>"']/g, (ch) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[ch] as string);

const STYLE = [
  'body{font-family:system-ui,sans-serif;line-height:1.5;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#1a1a1a;background:#fff}',
  'label{display:block;font-weight:600;margin-top:1rem}',
  'input{display:block;width:100%;box-sizing:border-box;font:inherit;padding:.5rem;margin-top:.25rem;border:1px solid #555;border-radius:4px}',
  'input:focus,button:focus{outline:3px solid #1d4ed8;outline-offset:2px}',
  'button{margin-top:1.5rem;font:inherit;padding:.6rem 1.2rem;border:0;border-radius:4px;background:#1d4ed8;color:#fff;cursor:pointer}',
  '.error{color:#b91c1c;margin:.25rem 0 0}',
  '.summary{border:2px solid #b91c1c;padding:.5rem 1rem;margin:1rem 0}',
  '.summary a{color:#b91c1c}',
].join('');

/** A whole page; `main` is HTML the caller built (every value in it escaped). */
export function pageShell(input: { language: string; title: string; main: string }): string {
  return [
    '<!doctype html>',
    `<html lang="${escapeHtml(input.language)}">`,
    '<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${escapeHtml(input.title)}</title><style>${STYLE}</style></head>`,
    `<body><main>${input.main}</main></body></html>`,
  ].join('\n');
}
