// API keys: create (the secret shown once, with a copy button), rotate (a new secret, once), revoke.
import type { Ok } from '../../../client/src/index';
import { api, present } from '../api';
import { $, el, say, when } from '../dom';
import type { View } from '../router';
import { button, onSubmit, pager, showSecret, table } from '../ui';

type Key = Ok<'/v1/keys', 'get'>['keys'][number];

let rows: Key[] = [];
let list = async (): Promise<void> => undefined;

function actions(k: Key): HTMLElement {
  const named = k.name || k.key_prefix;
  return el(
    'span',
    { class: 'actions' },
    button(
      'Rotate',
      async () => {
        const made = await api((c) => c.keys.rotate(k.id));
        showSecret($('key-secret'), `API key ${made.key_prefix}`, made.key);
        say('Key rotated: the old secret stops working.');
        await list();
      },
      { 'aria-label': `Rotate ${named}` },
    ),
    button(
      'Revoke',
      async () => {
        if (!confirm(`Revoke ${named}? Requests with it fail at once.`)) return;
        await api((c) => c.keys.revoke(k.id));
        say('Key revoked.');
        await list();
      },
      { 'aria-label': `Revoke ${named}`, class: 'danger' },
    ),
  );
}

const keys: View = {
  wire() {
    onSubmit<'name' | 'scope' | 'mode'>($('key-form'), async (f, form) => {
      const made = await api((c) => c.keys.create({ scope: f.scope as Key['scope'], test_mode: f.mode === 'test', ...(f.name ? { name: f.name } : {}) }));
      form.reset();
      showSecret($('key-secret'), `API key ${made.key_prefix}`, made.key);
      say('Key created.');
      await list();
    });
    list = pager($('key-list'), async (cursor, fresh) => {
      const page = await api((c) => c.keys.list(present({ limit: 50, cursor })));
      rows = (fresh ? [] : rows).concat(page.keys);
      const cells = rows.map((k) => [k.name, el('code', {}, k.key_prefix), k.scope, k.test_mode ? 'test' : 'live', k.is_revoked ? 'revoked' : when(k.last_used_at) || 'never', k.is_revoked ? '' : actions(k)]);
      $('key-list').replaceChildren(table('API keys', ['Name', 'Prefix', 'Scope', 'Mode', 'Last used', 'Actions'], cells, 'No keys yet.'));
      return page;
    });
  },
  load() {
    $('key-secret').replaceChildren();
    return list();
  },
};

export const keyViews: Record<string, View> = { keys };
