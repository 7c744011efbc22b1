// The API reference at GET /docs: one static page, no external CDN, that reads
// /v1/openapi.json from the same origin and renders every operation with its parameters, body,
// answers and error codes. Its script is inline and hashed into the page's Content-Security-Policy.
import { createHash } from 'node:crypto';

const script = `
const el = (tag, attrs = {}, ...kids) => {
  const n = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, v);
  for (const kid of kids) n.append(kid);
  return n;
};
const schemaText = (s) => JSON.stringify(s, null, 2);
// Markdown's inline code only: text between backticks becomes code; everything else stays text.
const prose = (text) => el('p', {}, ...String(text).split(String.fromCharCode(96)).map((part, i) => (i % 2 ? el('code', {}, part) : part)));
function describeParams(params) {
  const rows = params.map((p) => el('tr', {}, el('td', {}, el('code', {}, p.name)), el('td', {}, p.in), el('td', {}, p.required ? 'required' : 'optional'), el('td', {}, p.description || p.schema?.description || '')));
  return el('table', {}, el('thead', {}, el('tr', {}, el('th', {}, 'Parameter'), el('th', {}, 'In'), el('th', {}, ''), el('th', {}, 'About'))), el('tbody', {}, ...rows));
}
function describeOperation(path, method, op) {
  const id = op.operationId;
  const section = el('section', { id, class: 'op' });
  section.append(el('h3', {}, el('span', { class: 'method ' + method }, method.toUpperCase()), ' ', el('code', {}, path)));
  section.append(el('p', {}, op.summary || ''));
  if (op.description) section.append(prose(op.description));
  const access = op['x-postbox-access'] || {};
  section.append(el('p', { class: 'meta' }, access.kind === 'api_key' ? 'API key with scope ' + access.scopes.join(' or ') + (access.modes === 'live_only' ? ', live keys only' : ', live or test') : access.kind === 'public' ? 'Public: no key' : 'Staff token'));
  if (op.parameters?.length) section.append(describeParams(op.parameters));
  const body = op.requestBody && Object.entries(op.requestBody.content)[0];
  if (body) section.append(el('details', {}, el('summary', {}, 'Request body (' + body[0] + ')'), el('pre', {}, schemaText(body[1].schema))));
  for (const [status, r] of Object.entries(op.responses)) {
    const content = r.content && Object.entries(r.content)[0];
    const title = status + ' ' + r.description;
    section.append(content ? el('details', {}, el('summary', {}, title), el('pre', {}, schemaText(content[1].schema))) : el('p', { class: 'status' }, title));
  }
  return section;
}
fetch('/v1/openapi.json').then((r) => r.json().then((body) => { if (!r.ok) throw new Error(body?.error?.message ?? 'HTTP ' + r.status); return body; })).then((doc) => {
  document.title = doc.info.title + ' reference';
  const main = document.getElementById('main');
  const nav = document.getElementById('nav');
  main.append(el('h1', {}, doc.info.title + ' ' + doc.info.version), prose(doc.info.description));
  const byTag = new Map();
  for (const [path, methods] of Object.entries(doc.paths)) for (const [method, op] of Object.entries(methods)) {
    const tag = (op.tags || ['other'])[0];
    byTag.set(tag, [...(byTag.get(tag) || []), [path, method, op]]);
  }
  for (const [tag, ops] of byTag) {
    main.append(el('h2', { id: 'tag-' + tag }, tag));
    nav.append(el('h4', {}, tag));
    for (const [path, method, op] of ops) {
      main.append(describeOperation(path, method, op));
      nav.append(el('a', { href: '#' + op.operationId }, method.toUpperCase() + ' ' + path));
    }
  }
}).catch((e) => { document.getElementById('main').append(el('p', {}, 'Could not load /v1/openapi.json: ' + e)); });
`;

const style = `
body { margin: 0; font: 15px/1.5 system-ui, sans-serif; color: #1d2330; display: flex; }
nav { width: 300px; height: 100vh; overflow: auto; position: sticky; top: 0; background: #f5f6f8; padding: 12px; box-sizing: border-box; }
nav a { display: block; font: 12px/1.6 ui-monospace, monospace; color: #1d2330; text-decoration: none; }
nav h4 { margin: 12px 0 4px; }
main { flex: 1; padding: 24px 40px; max-width: 960px; }
.op { border-top: 1px solid #e3e6ea; padding: 8px 0 16px; }
.method { font: bold 12px ui-monospace, monospace; padding: 2px 6px; border-radius: 4px; background: #e8eefc; }
.method.post { background: #e6f6ea; } .method.delete { background: #fde8e8; } .method.put { background: #fff4de; }
.meta { color: #5b6472; font-size: 13px; }
table { border-collapse: collapse; font-size: 13px; } td, th { border: 1px solid #e3e6ea; padding: 2px 8px; text-align: left; }
pre { background: #f5f6f8; padding: 8px; overflow: auto; font-size: 12px; }
`;

const scriptHash = createHash('sha256').update(script).digest('base64');

export const referencePage = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>Postbox API reference</title><style>${style}</style></head>
<body><nav id="nav"><strong>Postbox API</strong><br><a href="/v1/openapi.json">openapi.json</a></nav><main id="main"></main>
<script>${script}</script></body></html>`;

/** Only this page's own script and style run; it may fetch its own origin only. */
export const referencePagePolicy = `default-src 'none'; script-src 'sha256-${scriptHash}'; style-src 'unsafe-inline'; connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`;
