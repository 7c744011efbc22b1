// Broadcasts and their audience: contacts, lists (add a contact to a list), and broadcasts (create a
// draft to a list, send, cancel, and each one's delivery stats).
import { field, view, type Section } from '../section';

const markup = [
  view(
    'contacts',
    'Contacts and lists',
    `<form id="contact-form" class="inline">${field('contact-email', 'Email', '<input id="contact-email" name="email" type="email" required>')}
${field('contact-first', 'First name', '<input id="contact-first" name="first_name">')}
${field('contact-list', 'Add to list', '<select id="contact-list" name="list_id"><option value="">none</option></select>')}
<button type="submit">Add contact</button></form>
<form id="list-form" class="inline">${field('list-name', 'New list', '<input id="list-name" name="name" required maxlength="200">')}
<button type="submit">Create list</button></form>
<div id="list-list"></div><div id="contact-list-table"></div>`,
  ),
  view(
    'broadcasts',
    'Broadcasts',
    `<form id="broadcast-form">${field('broadcast-name', 'Name', '<input id="broadcast-name" name="name">')}
${field('broadcast-from', 'From', '<input id="broadcast-from" name="from_email" type="email" required>')}
${field('broadcast-list', 'Audience list', '<select id="broadcast-list" name="audience_list_id" required></select>')}
${field('broadcast-subject', 'Subject', '<input id="broadcast-subject" name="subject" required>')}
${field('broadcast-text', 'Text', '<textarea id="broadcast-text" name="body_text" rows="5" required></textarea>')}
<button type="submit">Save draft</button></form>
<div id="broadcast-list-table"></div><div id="broadcast-stats"></div>`,
  ),
].join('\n');

const script = String.raw`
async function listOptions(select, withNone) {
  const { lists } = await api('GET', '/v1/lists' + query({ limit: 100 }));
  select.replaceChildren(...(withNone ? [el('option', { value: '' }, 'none')] : []), ...lists.map((l) => el('option', { value: l.id }, l.name)));
  return lists;
}
views.contacts = {
  wire() {
    onSubmit($('contact-form'), async (f, form) => {
      await api('POST', '/v1/contacts', { email: f.email, ...(f.first_name ? { first_name: f.first_name } : {}), ...(f.list_id ? { list_ids: [f.list_id] } : {}) });
      form.reset();
      say('Contact ' + f.email + ' added.');
      await views.contacts.load();
    });
    onSubmit($('list-form'), async (f, form) => {
      await api('POST', '/v1/lists', { name: f.name, type: 'static' });
      form.reset();
      say('List ' + f.name + ' created.');
      await views.contacts.load();
    });
    views.contacts.list = pager($('contact-list-table'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/contacts' + query({ limit: 50, cursor }));
      views.contacts.rows = (fresh ? [] : views.contacts.rows).concat(page.contacts);
      $('contact-list-table').replaceChildren(table('Contacts', ['Email', 'Name', 'Lists', 'Unsubscribed'], views.contacts.rows.map((c) => [
        c.email, [c.first_name, c.last_name].filter(Boolean).join(' '), String(c.list_ids.length), c.unsubscribed ? 'yes' : 'no',
      ]), 'No contacts yet.'));
      return page;
    });
  },
  async load() {
    const lists = await listOptions($('contact-list'), true);
    $('list-list').replaceChildren(table('Lists', ['Name', 'Type', 'Members'], lists.map((l) => [l.name, l.type, String(l.member_count)]), 'No lists yet.'));
    await views.contacts.list();
  },
};
async function broadcastStats(b) {
  const { stats } = await api('GET', '/v1/broadcasts/' + encodeURIComponent(b.id));
  $('broadcast-stats').replaceChildren(el('h3', { tabindex: '-1', id: 'broadcast-stats-title' }, 'Stats of ' + (b.name || b.id)),
    table('Stats', Object.keys(stats), [Object.values(stats).map(String)]));
  $('broadcast-stats-title').focus();
}
views.broadcasts = {
  wire() {
    onSubmit($('broadcast-form'), async (f, form) => {
      await api('POST', '/v1/broadcasts', { from_email: f.from_email, audience_list_id: f.audience_list_id, subject: f.subject, body_text: f.body_text, message_type: 'marketing', ...(f.name ? { name: f.name } : {}) });
      form.reset();
      say('Draft saved.');
      await views.broadcasts.list();
    });
    views.broadcasts.list = pager($('broadcast-list-table'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/broadcasts' + query({ limit: 50, cursor }));
      views.broadcasts.rows = (fresh ? [] : views.broadcasts.rows).concat(page.broadcasts);
      const act = (b, verb, label) => button(label, async () => {
        await api('POST', '/v1/broadcasts/' + encodeURIComponent(b.id) + '/' + verb);
        say(label + ': ' + (b.name || b.id) + '.');
        await views.broadcasts.list();
      }, { 'aria-label': label + ' ' + (b.name || b.id) });
      $('broadcast-list-table').replaceChildren(table('Broadcasts', ['Name', 'Status', 'Recipients', 'Sent', 'Failed', ''], views.broadcasts.rows.map((b) => [
        b.name || b.id, b.status, String(b.total_recipients), String(b.sent_count), String(b.failed_count),
        el('span', { class: 'actions' }, b.status === 'draft' ? act(b, 'send', 'Send') : null, b.status === 'draft' || b.status === 'scheduled' ? act(b, 'cancel', 'Cancel') : null,
          button('Stats', () => broadcastStats(b), { 'aria-label': 'Stats of ' + (b.name || b.id) })),
      ]), 'No broadcasts yet.'));
      return page;
    });
  },
  async load() {
    await listOptions($('broadcast-list'), false);
    await views.broadcasts.list();
  },
};
`;

export const audienceSection: Section = {
  markup,
  script,
  nav: [
    { view: 'broadcasts', label: 'Broadcasts' },
    { view: 'contacts', label: 'Contacts and lists' },
  ],
};
