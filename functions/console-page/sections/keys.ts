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

const script = String.raw`
views.keys = {
  wire() {
    onSubmit($('key-form'), async (f, form) => {
      const made = await api('POST', '/v1/keys', { scope: f.scope, test_mode: f.mode === 'test', ...(f.name ? { name: f.name } : {}) });
      form.reset();
      showSecret($('key-secret'), 'API key ' + made.key_prefix, made.key);
      say('Key created.');
      await views.keys.list();
    });
    views.keys.list = pager($('key-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/keys' + query({ limit: 50, cursor }));
      views.keys.rows = (fresh ? [] : views.keys.rows).concat(page.keys);
      $('key-list').replaceChildren(table('API keys', ['Name', 'Prefix', 'Scope', 'Mode', 'Last used', 'Actions'], views.keys.rows.map((k) => [
        k.name, el('code', {}, k.key_prefix), k.scope, k.test_mode ? 'test' : 'live', k.is_revoked ? 'revoked' : when(k.last_used_at) || 'never',
        k.is_revoked ? '' : el('span', { class: 'actions' },
          button('Rotate', async () => {
            const made = await api('POST', '/v1/keys/' + encodeURIComponent(k.id) + '/rotate');
            showSecret($('key-secret'), 'API key ' + made.key_prefix, made.key);
            say('Key rotated: the old secret stops working.');
            await views.keys.list();
          }, { 'aria-label': 'Rotate ' + (k.name || k.key_prefix) }),
          button('Revoke', async () => {
            if (!confirm('Revoke ' + (k.name || k.key_prefix) + '? Requests with it fail at once.')) return;
            await api('DELETE', '/v1/keys/' + encodeURIComponent(k.id));
            say('Key revoked.');
            await views.keys.list();
          }, { 'aria-label': 'Revoke ' + (k.name || k.key_prefix), class: 'danger' })),
      ]), 'No keys yet.'));
      return page;
    });
  },
  load() {
    $('key-secret').replaceChildren();
    return views.keys.list();
  },
};
`;

export const keysSection: Section = { markup, script, nav: [{ view: 'keys', label: 'API keys' }] };
