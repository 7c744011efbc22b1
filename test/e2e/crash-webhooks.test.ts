// `kill -9` of the local runtime while it delivers 500 webhook events (issue 28): after a restart on
// the same DATA_DIR every event reaches the subscriber at least once, and every message's status is
// its newest timeline event. The events are those of 250 test-mode sends (sent, then the simulated
// delivered), so the kill cuts into the send worker's events and their deliveries alike. It lands
// when the subscriber has received a given number of events, not after a sleep.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { api, useKillableRuntime } from '../support/local-process';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { scanEntity, scanTimelineEvents, storeOf } from '../support/runtime-store';
import { waitFor } from '../support/wait';

const MESSAGES = 250;
const EVENTS = MESSAGES * 2;
const KILL_AFTER = 120;

let receiver: Receiver;
beforeAll(async () => {
  receiver = await startHttpReceiver();
});
afterAll(async () => receiver?.close());
const runtime = useKillableRuntime('crash-webhooks', { WEBHOOK_ALLOW_PRIVATE: 'true' });

/** message id → the distinct event types the subscriber received for it. */
function received(): Map<string, Set<string>> {
  const seen = new Map<string, Set<string>>();
  for (const request of receiver.requests) {
    const event = JSON.parse(request.body.toString('utf8')) as { message_id: string; event_type: string };
    seen.set(event.message_id, (seen.get(event.message_id) ?? new Set()).add(event.event_type));
  }
  return seen;
}
const distinctEvents = (): number => new Set(receiver.requests.map((r) => r.headers['service-event-id'])).size;

it(`delivers every one of ${EVENTS} webhook events after a kill -9 mid-delivery, and leaves each status at its newest event`, { timeout: 240_000 }, async () => {
  const first = runtime.current;
  const key = runtime.bootstrap.test_admin_key;
  const sub = await api(first.url, 'POST', '/v1/webhooks', key, { endpoint_url: `${receiver.url}/hooks`, event_types: ['sent', 'delivered'] });
  expect(sub.status).toBe(201);
  const items = Array.from({ length: MESSAGES }, (_, i) => ({
    channel: 'email',
    idempotency_key: `hook-${i}`,
    destination: { email: 'ada@example.com' },
    payload: { subject: `hook ${i}`, body_text: 'Hi' },
  }));
  const accepted = await api(first.url, 'POST', '/v1/send/batch', key, items);
  expect(accepted.status).toBe(200);
  const ids: string[] = accepted.body.map((r: { response: { id: string } }) => r.response.id);

  const atKill = await waitFor(() => distinctEvents() >= KILL_AFTER && distinctEvents(), { what: `the subscriber to receive ${KILL_AFTER} events`, timeoutMs: 90_000, intervalMs: 2 });
  first.child.kill('SIGKILL');
  const second = await runtime.restart();
  await waitFor(() => distinctEvents() >= EVENTS, {
    what: () => {
      const seen = received();
      const missing = ids.flatMap((id) => ['sent', 'delivered'].filter((t) => !seen.get(id)?.has(t)).map((t) => `${id} ${t}`));
      return `all ${EVENTS} events at the subscriber (${distinctEvents()} received; missing e.g. ${missing.slice(0, 5).join(', ')})`;
    },
    timeoutMs: 150_000,
    intervalMs: 250,
  });

  // Each message's events reached the subscriber: its sent and its delivered, nothing else.
  const seen = received();
  expect(ids.filter((id) => [...(seen.get(id) ?? [])].sort().join() !== 'delivered,sent')).toEqual([]);
  expect(distinctEvents()).toBe(EVENTS);
  // And each message's status is its newest event: delivered, with delivered on its timeline.
  const db = storeOf(second);
  const messages = (await scanEntity(db, 'message')).filter((m) => ids.includes(m.id));
  const delivered = new Set((await scanTimelineEvents(db)).filter((e) => e.type === 'delivered').map((e) => e.message_id));
  db.destroy();
  expect(messages.filter((m) => m.status !== 'delivered').map((m) => [m.id, m.status])).toEqual([]);
  expect(ids.filter((id) => !delivered.has(id))).toEqual([]);
  process.stdout.write(`crash-webhooks: killed with ${atKill} of ${EVENTS} events at the subscriber; after the restart all ${EVENTS} arrived (${receiver.requests.length} requests)\n`);
});
