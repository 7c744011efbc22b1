// API keys: create (the secret shown once, with a copy button), rotate (a new secret, once), revoke.
import { field, view, type Section } from '../section';

const markup = view(
  'keys',
  'API keys',
  `<form id="key-form" class="inline">${field('key-name', 'Name', '<input id="key-name" name="name" maxlength="100">')}
${field('key-scope', 'Scope', '<select id="key-scope" name="scope"><option value="send">send</option><option value="read">read</option><option value="admin">admin</option></select>')}
${field('key-mode', 'Mode', '<select id="key-mode" name="mode"><option value="test">test</option><option value="live">live</option></select>')}
<button type="submit">Create key</button></form>
<div id="key-secret"></div><div id="key-list"></div>`,
);

export const keysSection: Section = { markup, nav: [{ view: 'keys', label: 'API keys' }] };
