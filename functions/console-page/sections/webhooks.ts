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

const script = String.raw`
const hookPath = (id) => '/v1/webhooks/' + encodeURIComponent(id);
let openHook = null;
async function showDeliveries(w) {
  const page = await api('GET', hookPath(w.id) + '/deliveries' + query({ limit: 50 }));
  // A replay is a new delivery of the same event (same event id), signed afresh when it is sent.
  const replay = (d) => button('Replay', async () => {
    await api('POST', hookPath(w.id) + '/deliveries/' + encodeURIComponent(d.id) + '/replay');
    say('Replay queued: a new delivery of event ' + d.event_id + '.');
    await showDeliveries(w);
  }, { 'aria-label': 'Replay the ' + d.event_type + ' delivery ' + d.id });
  $('webhook-deliveries').replaceChildren(table('Deliveries', ['Created', 'Event', 'Status', 'Attempts', 'Answer', 'Next retry', ''], page.deliveries.map((d) => [
    when(d.created_at), d.event_type, d.status, String(d.attempt_count), d.response_status ? String(d.response_status) : '', when(d.next_retry_at), replay(d),
  ]), 'No deliveries yet.'));
}
async function openDeliveries(w) {
  openHook = w;
  $('webhook-log').hidden = false;
  $('webhook-log-title').textContent = 'Deliveries to ' + w.endpoint_url;
  await showDeliveries(w);
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
          button('Send test event', async () => {
            await api('POST', hookPath(w.id) + '/test');
            say('Test event queued for ' + w.endpoint_url + ': its delivery shows in the log.');
            await openDeliveries(w);
          }, { 'aria-label': 'Send a test event to ' + w.endpoint_url }),
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
    $('webhook-log-refresh').addEventListener('click', () => void attempt(() => showDeliveries(openHook))());
    $('webhook-replay-failed').addEventListener('click', () => void attempt(async () => {
      const r = await api('POST', hookPath(openHook.id) + '/replay-failed');
      const n = r.replayed.length;
      say(n === 0 ? 'No exhausted deliveries to replay.' : 'Replaying ' + n + (n === 1 ? ' event' : ' events') + (r.has_more ? '; more wait: replay again.' : '.'));
      await showDeliveries(openHook);
    })());
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
    openHook = null;
    return views.webhooks.list();
  },
};
`;

export const webhooksSection: Section = { markup, script, nav: [{ view: 'webhooks', label: 'Webhooks' }] };
