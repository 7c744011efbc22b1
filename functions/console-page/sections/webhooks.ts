// Webhooks: create (the signing secret shown once), rotate the secret, delete, the delivery log;
// and self-service (issue 32): a signed test event, replaying one delivery of the log, replaying
// every exhausted one.
import { field, view, type Section } from '../section';

const events = ['sent', 'delivered', 'opened', 'clicked', 'delivery_delayed', 'bounced', 'complained', 'failed', 'email.received', 'usage.soft_cap_reached', 'account.reputation_warning'];

const markup = view(
  'webhooks',
  'Webhooks',
  `<form id="webhook-form">${field('webhook-url', 'Endpoint URL (https)', '<input id="webhook-url" name="endpoint_url" type="url" required>')}
<fieldset><legend>Events (none ticked: every event)</legend>${events
    .map((e, i) => `<span class="check"><input id="webhook-event-${i}" type="checkbox" name="event_types" value="${e}"><label for="webhook-event-${i}">${e}</label></span>`)
    .join('')}</fieldset>
<button type="submit">Create webhook</button></form>
<div id="webhook-secret"></div><div id="webhook-list"></div>
<section id="webhook-log" aria-labelledby="webhook-log-title" hidden><h3 id="webhook-log-title" tabindex="-1"></h3>
<p class="actions"><button type="button" id="webhook-log-refresh">Refresh</button> <button type="button" id="webhook-replay-failed">Replay every exhausted delivery</button></p>
<div id="webhook-deliveries"></div></section>`,
);

export const webhooksSection: Section = { markup, nav: [{ view: 'webhooks', label: 'Webhooks' }] };
