// Messages: the list with its filters (channel, status, from, to), and one message's timeline.
import { field, view, type Section } from '../section';

const channels = ['', 'email', 'sms', 'push', 'voice', 'webhook'];
const statuses = ['', 'queued', 'scheduled', 'canceled', 'sent', 'delivered', 'opened', 'clicked', 'delivery_delayed', 'bounced', 'complained', 'failed', 'suppressed', 'unsubscribed'];
const options = (values: string[]): string => values.map((v) => `<option value="${v}">${v || 'any'}</option>`).join('');

const markup = view(
  'messages',
  'Messages',
  `<form id="message-filters" class="inline">${field('message-channel', 'Channel', `<select id="message-channel" name="channel">${options(channels)}</select>`)}
${field('message-status', 'Status', `<select id="message-status" name="status">${options(statuses)}</select>`)}
${field('message-from', 'From', '<input id="message-from" name="from" type="email">')}
${field('message-to', 'To', '<input id="message-to" name="to">')}
<button type="submit">Filter</button></form>
<div id="message-list"></div>
<section id="message-detail" aria-labelledby="message-title" hidden><h3 id="message-title" tabindex="-1"></h3><div id="message-facts"></div><button type="button" id="message-refresh">Refresh the timeline</button><ol id="message-timeline" class="timeline"></ol></section>`,
);

const script = String.raw`
let messageFilters = {};
let openedMessage = '';
async function openMessage(id, keepFocus) {
  const m = await api('GET', '/v1/messages/' + encodeURIComponent(id));
  openedMessage = m.id;
  $('message-detail').hidden = false;
  $('message-title').textContent = 'Message ' + m.id;
  $('message-facts').replaceChildren(el('p', {}, m.channel + ', ' + m.message_type + ', ' + m.status + (m.test_mode ? ', test mode' : '') + ' \u00b7 created ' + when(m.created_at)));
  $('message-timeline').replaceChildren(...m.events.map((e) => el('li', {}, el('strong', {}, e.type), ' ' + when(e.occurred_at) + ' \u00b7 ' + e.source)));
  if (!m.events.length) $('message-timeline').append(el('li', {}, 'No events yet.'));
  if (!keepFocus) $('message-title').focus();
}
views.messages = {
  wire() {
    $('message-refresh').addEventListener('click', () => void attempt(async () => {
      await openMessage(openedMessage, true);
      await views.messages.list();
    })());
    views.messages.list = pager($('message-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/messages' + query(Object.assign({ limit: 50, cursor }, messageFilters)));
      views.messages.rows = (fresh ? [] : views.messages.rows).concat(page.messages);
      $('message-list').replaceChildren(table('Messages', ['Created', 'Channel', 'Type', 'Status', ''], views.messages.rows.map((m) => [
        when(m.created_at), m.channel, m.message_type, m.status, button('Timeline', () => openMessage(m.id), { 'aria-label': 'Timeline of ' + m.id }),
      ]), 'No messages match.'));
      return page;
    });
    onSubmit($('message-filters'), async (f) => {
      messageFilters = f;
      await views.messages.list();
    });
  },
  load(id) {
    $('message-detail').hidden = true;
    if (id) void attempt(openMessage)(id);
    return views.messages.list();
  },
};
`;

export const messagesSection: Section = { markup, script, nav: [{ view: 'messages', label: 'Messages' }] };
