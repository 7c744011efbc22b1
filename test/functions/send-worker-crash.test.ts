// The send worker killed part-way through the events of a message it decided (issue 28): its job
// comes back (SQS, or the local queue journal after a restart), finds the message no longer
// dispatchable, and must finish what the dead attempt started: the status move and the webhook of
// every event it stored, and in test mode the simulated outcome it never reached. Each kill is a
// store or queue call that throws once, at the point a `kill -9` would cut the attempt short.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SimulatedSesFeedback, type HeldReceipt } from '../../shared/adapters/local/ses-feedback';
import { sortTimeline } from '../../shared/sending/messages/model';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { PermanentSendError } from '../../shared/ports/mailer';
import { call } from '../support/api';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { sendWorker as handler, ingestSesEvent as ingest } from '../support/consumers';

const bed = useTestbed();
beforeEach(async () => {
  // Subscribed to every event, so that each recorded event is handed to the webhooks queue.
  const sub = await call({ method: 'POST', path: '/v1/webhooks', key: bed.account.admin_key, body: { endpoint_url: 'https://93.184.216.34/hook' } });
  expect(sub.status).toBe(201);
});
afterEach(() => vi.restoreAllMocks());

let n = 0;
async function accept(to: string, key: string, channel: 'email' | 'webhook' = 'email'): Promise<{ id: string; job: unknown }> {
  const destination = channel === 'email' ? { email: to } : { url: to };
  const payload = channel === 'email' ? { subject: 'Subject', body_text: 'text' } : { hello: 'world' };
  const res = await call({ method: 'POST', path: '/v1/send', key, body: { channel, idempotency_key: `crash-${++n}`, destination, payload, metadata: { from_email: 'hi@acme.test' } } });
  expect(res.status).toBe(201);
  const job = bed.c.sent.find((s) => s.queue === 'send' && (s.body as { message_id: string }).message_id === res.body.id)?.body;
  return { id: res.body.id, job };
}

/** The event types handed to the webhooks queue for this message, in order. */
const published = (id: string): string[] =>
  bed.c.sent.filter((s) => s.queue === 'webhooks' && (s.body as { envelope?: { message_id: string } }).envelope?.message_id === id).map((s) => (s.body as { envelope: { event_type: string } }).envelope.event_type);

/** The store call matching `when` throws once, as the process dying there. */
function killOnce(method: 'create' | 'update', when: (arg: Record<string, any>) => boolean): { fired: () => boolean } {
  const original = (bed.c.store[method] as (...args: unknown[]) => Promise<unknown>).bind(bed.c.store);
  let fired = false;
  vi.spyOn(bed.c.store, method).mockImplementation((async (...args: unknown[]) => {
    if (!fired && when(args[method === 'create' ? 0 : 1] as Record<string, any>)) {
      fired = true;
      throw new Error(`killed at a ${method}`);
    }
    return original(...args);
  }) as never);
  return { fired: () => fired };
}

/** Runs the job until it succeeds (its first receive dies at the kill); at most three receives. */
async function runToSuccess(job: unknown): Promise<number> {
  for (let receive = 1; receive <= 3; receive++) {
    bed.c.clock.advance(60_000); // past the dead attempt's dispatch lease
    const out = await handler(sqsEvent([sqsRecord(job, receive)]));
    if (out.batchItemFailures.length === 0) return receive;
  }
  throw new Error('the send job kept failing');
}

describe('a send job that comes back after its attempt died', () => {
  it('test mode, killed between the simulated sent and its delivered: the outcome is recorded and the status is delivered', async () => {
    const { id, job } = await accept('ada@example.com', bed.account.test_admin_key);
    const kill = killOnce('update', (update) => update.names?.['#evt'] === 'evt_delivered');

    expect(await runToSuccess(job)).toBe(2);

    expect(kill.fired()).toBe(true);
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(message?.status).toBe('delivered');
    expect(events.map((e) => e.type).sort()).toEqual(['delivered', 'sent']);
    // A repeat of an event already handed on is collapsed by its event id when it is fanned out.
    expect(new Set(published(id))).toEqual(new Set(['sent', 'delivered']));
  });

  it('test mode, killed at the status move to delivered (one write with its event): the status is its newest event', async () => {
    const { id, job } = await accept('ada@example.com', bed.account.test_admin_key);
    const kill = killOnce('update', (update) => update.values?.[':status'] === 'delivered');

    expect(await runToSuccess(job)).toBe(2);

    expect(kill.fired()).toBe(true);
    const { message, events } = await readTimeline(bed.c.store, id);
    expect(events.map((e) => e.type).sort()).toEqual(['delivered', 'sent']);
    expect(message?.status).toBe('delivered');
    // A repeat of an event already handed on is collapsed by its event id when it is fanned out.
    expect(new Set(published(id))).toEqual(new Set(['sent', 'delivered']));
  });

  it('test mode, killed after the status moved and before the webhook was handed on: the webhook is handed on', async () => {
    const { id, job } = await accept('ada@example.com', bed.account.test_admin_key);
    const send = bed.c.queue.send.bind(bed.c.queue);
    let fired = false;
    vi.spyOn(bed.c.queue, 'send').mockImplementation(async (queue, body, options) => {
      if (!fired && queue === 'webhooks' && (body as { envelope?: { event_type: string } }).envelope?.event_type === 'delivered') {
        fired = true;
        throw new Error('killed before the webhook was queued');
      }
      return send(queue, body, options);
    });

    expect(await runToSuccess(job)).toBe(2);

    expect(fired).toBe(true);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('delivered');
    expect(published(id)).toContain('delivered');
  });

  it('live, killed after failed was recorded and before its webhook: the failed webhook is handed on, nothing is mailed', async () => {
    const { id, job } = await accept('ada@example.com', bed.account.admin_key);
    bed.c.mailerFailure = new PermanentSendError('address rejected');
    const send = bed.c.queue.send.bind(bed.c.queue);
    let fired = false;
    vi.spyOn(bed.c.queue, 'send').mockImplementation(async (queue, body, options) => {
      if (!fired && queue === 'webhooks' && (body as { envelope?: { event_type: string } }).envelope?.event_type === 'failed') {
        fired = true;
        throw new Error('killed before the webhook was queued');
      }
      return send(queue, body, options);
    });

    expect(await runToSuccess(job)).toBe(2);

    expect(fired).toBe(true);
    expect((await readTimeline(bed.c.store, id)).message?.status).toBe('failed');
    expect(published(id)).toEqual(['failed']);
    expect(bed.c.mailed).toEqual([]);
  });

  it('live on the local runtime, killed after the emulator took the mail and before sent was stored: sent is when the emulator took it, before its delivered', async () => {
    // Prepare: the mailer as the local runtime wires it (the SES emulator's held mail, the simulated
    // Delivery); the attempt dies at its `sent` event, after the emulator took the mail.
    const { id, job } = await accept('ada@example.com', bed.account.admin_key);
    const held = new Map<string, HeldReceipt>();
    const emulator = bed.c.mailer;
    bed.c.mailer = new SimulatedSesFeedback(
      {
        send: async (email) => {
          const receipt = await emulator.send(email);
          held.set(email.messageId, { providerMessageId: receipt.providerMessageId, at: bed.c.clock.now().toISOString() });
          return receipt;
        },
      },
      // SNS's side, not the send function's: it queues onto ses-events, which the worker may not.
      { queue: { send: async (queue, body) => void bed.c.sent.push({ queue, body }), sendBatch: async () => undefined }, clock: bed.c.clock, logger: bed.c.logger, sentMail: (messageId) => held.get(messageId) },
    );
    try {
      const kill = killOnce('update', (update) => update.names?.['#evt'] === 'evt_sent');
      bed.c.clock.advance(60_000);
      expect((await handler(sqsEvent([sqsRecord(job, 1)]))).batchItemFailures).toHaveLength(1);
      expect(kill.fired()).toBe(true);

      // Act: the job comes back a minute later, before the Delivery the emulator's mail owes is
      // ingested; then both copies of that Delivery reach ingest, the first attempt's first.
      expect(await runToSuccess(job)).toBe(1);
      const deliveries = bed.c.sent.filter((s) => s.queue === 'ses-events').map((s) => sqsRecord(s.body));
      expect(deliveries).toHaveLength(2);
      expect((await ingest(sqsEvent(deliveries))).batchItemFailures).toEqual([]);

      // Assess: mailed once; `sent` at the time the emulator took it, so the provider's `delivered`
      // is the newest event, as the status says.
      const { message, events } = await readTimeline(bed.c.store, id);
      expect(bed.c.mailed.map((m) => m.messageId)).toEqual([id]);
      expect(message?.status).toBe('delivered');
      expect(sortTimeline(events).map((e) => e.type)).toEqual(['sent', 'delivered']);
    } finally {
      bed.c.mailer = emulator;
    }
  });
});
