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

export const messagesSection: Section = { markup, nav: [{ view: 'messages', label: 'Messages' }] };
