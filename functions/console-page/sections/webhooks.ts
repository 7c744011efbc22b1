// Webhooks: create (the signing secret shown once), rotate the secret, delete, and the delivery log.
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
<section id="webhook-log" aria-labelledby="webhook-log-title" hidden><h3 id="webhook-log-title" tabindex="-1"></h3><div id="webhook-deliveries"></div></section>`,
);

const script = String.raw`
const hookPath = (id) => '/v1/webhooks/' + encodeURIComponent(id);
async function openDeliveries(w) {
  $('webhook-log').hidden = false;
  $('webhook-log-title').textContent = 'Deliveries to ' + w.endpoint_url;
  const page = await api('GET', hookPath(w.id) + '/deliveries' + query({ limit: 50 }));
  $('webhook-deliveries').replaceChildren(table('Deliveries', ['Created', 'Event', 'Status', 'Attempts', 'Answer', 'Next retry'], page.deliveries.map((d) => [
    when(d.created_at), d.event_type, d.status, String(d.attempt_count), d.response_status ? String(d.response_status) : '', when(d.next_retry_at),
  ]), 'No deliveries yet.'));
  $('webhook-log-title').focus();
}
views.webhooks = {
  wire() {
    views.webhooks.list = pager($('webhook-list'), async (cursor, fresh) => {
      const page = await api('GET', '/v1/webhooks' + query({ limit: 50, cursor }));
      views.webhooks.rows = (fresh ? [] : views.webhooks.rows).concat(page.webhooks);
      $('webhook-list').replaceChildren(table('Webhooks', ['Endpoint', 'Events', 'Active', ''], views.webhooks.rows.map((w) => [
        w.endpoint_url, w.event_types.join(', ') || 'all', w.is_active ? 'yes' : 'no',
        el('span', { class: 'actions' },
          button('Deliveries', () => openDeliveries(w), { 'aria-label': 'Deliveries to ' + w.endpoint_url }),
          button('Rotate secret', async () => {
            const r = await api('POST', hookPath(w.id) + '/rotate-secret');
            showSecret($('webhook-secret'), 'Signing secret', r.signing_secret);
          }, { 'aria-label': 'Rotate the secret of ' + w.endpoint_url }),
          button('Delete', async () => {
            if (!confirm('Delete the webhook to ' + w.endpoint_url + '?')) return;
            await api('DELETE', hookPath(w.id));
            say('Webhook deleted.');
            await views.webhooks.list();
          }, { 'aria-label': 'Delete the webhook to ' + w.endpoint_url, class: 'danger' })),
      ]), 'No webhooks yet.'));
      return page;
    });
    onSubmit($('webhook-form'), async (f, form) => {
      const types = new FormData(form).getAll('event_types');
      const made = await api('POST', '/v1/webhooks', { endpoint_url: f.endpoint_url, ...(types.length ? { event_types: types } : {}) });
      form.reset();
      showSecret($('webhook-secret'), 'Signing secret', made.signing_secret);
      say('Webhook created.');
      await views.webhooks.list();
    });
  },
  load() {
    $('webhook-secret').replaceChildren();
    $('webhook-log').hidden = true;
    return views.webhooks.list();
  },
};
`;

export const webhooksSection: Section = { markup, script, nav: [{ view: 'webhooks', label: 'Webhooks' }] };
