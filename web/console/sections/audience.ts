// Broadcasts and their audience: contacts, lists (add a contact to a list), and broadcasts (create a
// draft to a list, send, cancel, and each one's delivery stats).
import type { Ok } from '../../../client/src/index';
import { api, present } from '../api';
import { $, el, say } from '../dom';
import type { View } from '../router';
import { button, onSubmit, pager, table } from '../ui';

type List = Ok<'/v1/lists', 'get'>['lists'][number];
type Contact = Ok<'/v1/contacts', 'get'>['contacts'][number];
type Broadcast = Ok<'/v1/broadcasts', 'get'>['broadcasts'][number];

let contactRows: Contact[] = [];
let broadcastRows: Broadcast[] = [];
let listContacts = async (): Promise<void> => undefined;
let listBroadcasts = async (): Promise<void> => undefined;

async function listOptions(select: HTMLElement, withNone: boolean): Promise<List[]> {
  const { lists } = await api((c) => c.lists.list({ limit: 100 }));
  select.replaceChildren(...(withNone ? [el('option', { value: '' }, 'none')] : []), ...lists.map((l) => el('option', { value: l.id }, l.name)));
  return lists;
}

async function loadContacts(): Promise<void> {
  const lists = await listOptions($('contact-list'), true);
  $('list-list').replaceChildren(table('Lists', ['Name', 'Type', 'Members'], lists.map((l) => [l.name, l.type, String(l.member_count)]), 'No lists yet.'));
  await listContacts();
}

const contacts: View = {
  wire() {
    onSubmit<'email' | 'first_name' | 'list_id'>($('contact-form'), async (f, form) => {
      await api((c) => c.contacts.create({ email: f.email, ...(f.first_name ? { first_name: f.first_name } : {}), ...(f.list_id ? { list_ids: [f.list_id] } : {}) }));
      form.reset();
      say(`Contact ${f.email} added.`);
      await loadContacts();
    });
    onSubmit<'name'>($('list-form'), async (f, form) => {
      await api((c) => c.lists.create({ name: f.name, type: 'static' }));
      form.reset();
      say(`List ${f.name} created.`);
      await loadContacts();
    });
    listContacts = pager($('contact-list-table'), async (cursor, fresh) => {
      const page = await api((c) => c.contacts.list(present({ limit: 50, cursor })));
      contactRows = (fresh ? [] : contactRows).concat(page.contacts);
      const cells = contactRows.map((c) => [c.email, [c.first_name, c.last_name].filter(Boolean).join(' '), String(c.list_ids.length), c.unsubscribed ? 'yes' : 'no']);
      $('contact-list-table').replaceChildren(table('Contacts', ['Email', 'Name', 'Lists', 'Unsubscribed'], cells, 'No contacts yet.'));
      return page;
    });
  },
  load: loadContacts,
};

async function broadcastStats(b: Broadcast): Promise<void> {
  const { stats } = await api((c) => c.broadcasts.get(b.id));
  $('broadcast-stats').replaceChildren(el('h3', { tabindex: '-1', id: 'broadcast-stats-title' }, `Stats of ${b.name || b.id}`), table('Stats', Object.keys(stats), [Object.values(stats).map(String)]));
  $('broadcast-stats-title').focus();
}

const act = (b: Broadcast, verb: 'send' | 'cancel', label: string): HTMLButtonElement =>
  button(
    label,
    async () => {
      await api((c) => c.broadcasts[verb](b.id));
      say(`${label}: ${b.name || b.id}.`);
      await listBroadcasts();
    },
    { 'aria-label': `${label} ${b.name || b.id}` },
  );

const broadcastRow = (b: Broadcast) => [
  b.name || b.id,
  b.status,
  String(b.total_recipients),
  String(b.sent_count),
  String(b.failed_count),
  el(
    'span',
    { class: 'actions' },
    b.status === 'draft' ? act(b, 'send', 'Send') : null,
    b.status === 'draft' || b.status === 'scheduled' ? act(b, 'cancel', 'Cancel') : null,
    button('Stats', () => broadcastStats(b), { 'aria-label': `Stats of ${b.name || b.id}` }),
  ),
];

const broadcasts: View = {
  wire() {
    onSubmit<'name' | 'from_email' | 'audience_list_id' | 'subject' | 'body_text'>($('broadcast-form'), async (f, form) => {
      const { from_email, audience_list_id, subject, body_text } = f;
      await api((c) => c.broadcasts.create({ from_email, audience_list_id, subject, body_text, message_type: 'marketing', ...(f.name ? { name: f.name } : {}) }));
      form.reset();
      say('Draft saved.');
      await listBroadcasts();
    });
    listBroadcasts = pager($('broadcast-list-table'), async (cursor, fresh) => {
      const page = await api((c) => c.broadcasts.list(present({ limit: 50, cursor })));
      broadcastRows = (fresh ? [] : broadcastRows).concat(page.broadcasts);
      $('broadcast-list-table').replaceChildren(table('Broadcasts', ['Name', 'Status', 'Recipients', 'Sent', 'Failed', ''], broadcastRows.map(broadcastRow), 'No broadcasts yet.'));
      return page;
    });
  },
  async load() {
    await listOptions($('broadcast-list'), false);
    await listBroadcasts();
  },
};

export const audienceViews: Record<string, View> = { contacts, broadcasts };
