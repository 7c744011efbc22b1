// Webhooks: create (the signing secret shown once), rotate the secret, delete, the delivery log;
// and self-service (issue 32): a signed test event, replaying one delivery of the log, replaying
// every exhausted one.
import type { Body, Ok } from '../../../client/src/index';
import { api, present } from '../api';
import { $, el, say, when } from '../dom';
import type { View } from '../router';
import { attempt, button, onSubmit, pager, showSecret, table } from '../ui';

type Webhook = Ok<'/v1/webhooks', 'get'>['webhooks'][number];
type Delivery = Ok<'/v1/webhooks/{id}/deliveries', 'get'>['deliveries'][number];

let openHook: Webhook | null = null;
let rows: Webhook[] = [];
let list = async (): Promise<void> => undefined;

async function showDeliveries(w: Webhook): Promise<void> {
  const page = await api((c) => c.webhooks.deliveries(w.id, { limit: 50 }));
  // A replay is a new delivery of the same event (same event id), signed afresh when it is sent.
  const replay = (d: Delivery) =>
    button(
      'Replay',
      async () => {
        await api((c) => c.webhooks.replayDelivery(w.id, d.id));
        say(`Replay queued: a new delivery of event ${d.event_id}.`);
        await showDeliveries(w);
      },
      { 'aria-label': `Replay the ${d.event_type} delivery ${d.id}` },
    );
  const cells = page.deliveries.map((d) => [when(d.created_at), d.event_type, d.status, String(d.attempt_count), d.response_status ? String(d.response_status) : '', when(d.next_retry_at), replay(d)]);
  $('webhook-deliveries').replaceChildren(table('Deliveries', ['Created', 'Event', 'Status', 'Attempts', 'Answer', 'Next retry', ''], cells, 'No deliveries yet.'));
}

async function openDeliveries(w: Webhook): Promise<void> {
  openHook = w;
  $('webhook-log').hidden = false;
  $('webhook-log-title').textContent = `Deliveries to ${w.endpoint_url}`;
  await showDeliveries(w);
  $('webhook-log-title').focus();
}

async function sendTest(w: Webhook): Promise<void> {
  await api((c) => c.webhooks.sendTest(w.id));
  say(`Test event queued for ${w.endpoint_url}: its delivery shows in the log.`);
  await openDeliveries(w);
}

async function rotate(w: Webhook): Promise<void> {
  const r = await api((c) => c.webhooks.rotateSecret(w.id));
  showSecret($('webhook-secret'), 'Signing secret', r.signing_secret);
}

async function remove(w: Webhook): Promise<void> {
  if (!confirm(`Delete the webhook to ${w.endpoint_url}?`)) return;
  await api((c) => c.webhooks.remove(w.id));
  say('Webhook deleted.');
  await list();
}

const actions = (w: Webhook): HTMLElement =>
  el(
    'span',
    { class: 'actions' },
    button('Deliveries', () => openDeliveries(w), { 'aria-label': `Deliveries to ${w.endpoint_url}` }),
    button('Send test event', () => sendTest(w), { 'aria-label': `Send a test event to ${w.endpoint_url}` }),
    button('Rotate secret', () => rotate(w), { 'aria-label': `Rotate the secret of ${w.endpoint_url}` }),
    button('Delete', () => remove(w), { 'aria-label': `Delete the webhook to ${w.endpoint_url}`, class: 'danger' }),
  );

async function replayFailed(): Promise<void> {
  if (!openHook) return;
  const hook = openHook;
  const r = await api((c) => c.webhooks.replayFailed(hook.id));
  const n = r.replayed.length;
  say(n === 0 ? 'No exhausted deliveries to replay.' : `Replaying ${n}${n === 1 ? ' event' : ' events'}${r.has_more ? '; more wait: replay again.' : '.'}`);
  await showDeliveries(hook);
}

const webhooks: View = {
  wire() {
    list = pager($('webhook-list'), async (cursor, fresh) => {
      const page = await api((c) => c.webhooks.list(present({ limit: 50, cursor })));
      rows = (fresh ? [] : rows).concat(page.webhooks);
      const cells = rows.map((w) => [w.endpoint_url, w.event_types.join(', ') || 'all', w.is_active ? 'yes' : 'no', actions(w)]);
      $('webhook-list').replaceChildren(table('Webhooks', ['Endpoint', 'Events', 'Active', ''], cells, 'No webhooks yet.'));
      return page;
    });
    $('webhook-log-refresh').addEventListener('click', () => void attempt(() => openHook && showDeliveries(openHook))());
    $('webhook-replay-failed').addEventListener('click', () => void attempt(replayFailed)());
    onSubmit<'endpoint_url'>($('webhook-form'), async (f, form) => {
      const types = new FormData(form).getAll('event_types') as Body<'/v1/webhooks', 'post'>['event_types'] & string[];
      const made = await api((c) => c.webhooks.create({ endpoint_url: f.endpoint_url, ...(types.length ? { event_types: types } : {}) }));
      form.reset();
      showSecret($('webhook-secret'), 'Signing secret', made.signing_secret);
      say('Webhook created.');
      await list();
    });
  },
  load() {
    $('webhook-secret').replaceChildren();
    $('webhook-log').hidden = true;
    openHook = null;
    return list();
  },
};

export const webhookViews: Record<string, View> = { webhooks };
