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

export const audienceSection: Section = {
  markup,
  nav: [
    { view: 'broadcasts', label: 'Broadcasts' },
    { view: 'contacts', label: 'Contacts and lists' },
  ],
};
