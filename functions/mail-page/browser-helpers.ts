// The console's browser helpers (inline in its page's script; the Mail app has its typed own in
// web/mail/dom.ts, and this moves to web/ with the console): building
// elements with text only (attributes set one by one, children appended as nodes or text, never
// markup), dates in the reader's locale, the status line (#status), the API failure type, an
// answer's JSON body, a pause.
// Plain browser JavaScript in a raw string: no backquote, no dollar-brace.
export const browserHelpers = String.raw`
function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== undefined && v !== null && v !== false) node.setAttribute(k, v === true ? '' : String(v));
  for (const kid of kids) if (kid !== undefined && kid !== null && kid !== false) node.append(kid);
  return node;
}
const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

function say(text, isError) {
  const status = $('status');
  status.textContent = text || '';
  status.className = isError ? 'error' : '';
}

class ApiFailure extends Error {
  constructor(message, status, code) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

/** The answer's JSON, or null when it has none or it is not JSON (a proxy's error page). */
async function bodyOf(res) {
  const text = await res.text();
  try {
    return text ? JSON.parse(text) : null;
  } catch (_) {
    return null;
  }
}

const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
`;
