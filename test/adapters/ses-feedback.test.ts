// The local SES feedback simulator: after a send it queues the SNS-wrapped Delivery notification
// AWS would, and that notification takes a message to delivered through the real ingest handler.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SimulatedSesFeedback, type HeldReceipt } from '../../shared/adapters/local/ses-feedback';
import { LOCAL_SES_TOPIC_ARN, parseSesNotification, simulatedSnsMessageId } from '../../shared/sending/ses-events/ses-notification';
import { readTimeline } from '../../shared/sending/messages/timeline';
import { ManualClock } from '../../shared/ports/clock';
import type { Mailer, OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { installContainer } from '../../shared/runtime/container';
import { createLogger } from '../../shared/adapters/logger';
import { createTestContainer, type TestContainer } from '../support/container';
import { newProviderMessageId, seedSentMessage } from '../support/ses-events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { ingestSesEvent as handler } from '../support/consumers';

const email: OutboundEmail = {
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.test',
  subject: 'Welcome',
  text: 'Hi Ada',
  messageId: 'msg_01jabcdefghjkmnpqrstvwxyz0',
  accountId: 'acct_01jabcdefghjkmnpqrstvwxyz0',
};

/** Stands in for the SES emulator adapter: accepts everything, or refuses when told to. */
class FakeMailer implements Mailer {
  readonly sent: OutboundEmail[] = [];
  constructor(private readonly outcome: { providerMessageId: string } | Error) {}
  async send(message: OutboundEmail): Promise<{ providerMessageId: string }> {
    if (this.outcome instanceof Error) throw this.outcome;
    this.sent.push(message);
    return this.outcome;
  }
}

function capturingQueue(failWith?: Error): Queue & { bodies: Array<{ queue: string; body: string }> } {
  const bodies: Array<{ queue: string; body: string }> = [];
  return {
    bodies,
    // Serialized as the SQS adapter serializes, so the test reads what the consumer would.
    send: async (queue, body) => {
      if (failWith) throw failWith;
      bodies.push({ queue, body: JSON.stringify(body) });
    },
    sendBatch: async () => {
      throw new Error('not used');
    },
  };
}

const quietDeps = (queue: Queue, clock = new ManualClock('2026-03-01T12:00:00.000Z')) => {
  const logs: Array<Record<string, unknown>> = [];
  return { deps: { queue, clock, logger: createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)) }, logs };
};

describe('SimulatedSesFeedback', () => {
  it('returns the inner result and queues a Delivery that parses back to delivered for the message', async () => {
    // Prepare
    const queue = capturingQueue();
    const inner = new FakeMailer({ providerMessageId: 'local-provider-id-1' });
    const { deps } = quietDeps(queue);
    const mailer = new SimulatedSesFeedback(inner, deps);

    // Act
    const result = await mailer.send(email);

    // Assess
    expect(result).toEqual({ providerMessageId: 'local-provider-id-1' });
    expect(inner.sent).toEqual([email]);
    expect(queue.bodies).toHaveLength(1);
    expect(queue.bodies[0]?.queue).toBe('ses-events');
    const body = queue.bodies[0]?.body as string;
    const parsed = parseSesNotification(body);
    expect(parsed).toEqual({
      kind: 'event',
      event: expect.objectContaining({
        type: 'delivered',
        sesType: 'Delivery',
        source: 'sns',
        providerEventId: JSON.parse(body).MessageId,
        providerMessageId: 'local-provider-id-1',
        messageId: email.messageId,
        accountId: email.accountId,
        occurredAt: '2026-03-01T12:00:01.000Z',
      }),
    });
  });

  it('shapes the envelope and notification as SNS and SES event publishing do', async () => {
    const queue = capturingQueue();
    const { deps } = quietDeps(queue);

    await new SimulatedSesFeedback(new FakeMailer({ providerMessageId: 'local-provider-id-2' }), deps, { processingTimeMillis: 250 }).send(email);

    const envelope = JSON.parse(queue.bodies[0]?.body as string);
    expect(envelope).toMatchObject({ Type: 'Notification', TopicArn: LOCAL_SES_TOPIC_ARN, Timestamp: '2026-03-01T12:00:00.250Z' });
    expect(envelope.MessageId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(JSON.parse(envelope.Message)).toEqual({
      eventType: 'Delivery',
      mail: {
        timestamp: '2026-03-01T12:00:00.000Z',
        messageId: 'local-provider-id-2',
        source: email.from,
        destination: [email.to],
        tags: { postbox_message_id: [email.messageId], postbox_account_id: [email.accountId], 'ses:configuration-set': ['local'] },
        commonHeaders: { from: [email.from], to: [email.to], subject: email.subject },
      },
      delivery: {
        timestamp: '2026-03-01T12:00:00.250Z',
        processingTimeMillis: 250,
        recipients: [email.to],
        smtpResponse: '250 2.0.0 OK (local SES emulator)',
        reportingMTA: 'local',
      },
    });
  });

  it('derives the SNS MessageId from the mail: the same for the same mail, another for another mail', async () => {
    const queue = capturingQueue();
    const { deps } = quietDeps(queue);

    await new SimulatedSesFeedback(new FakeMailer({ providerMessageId: 'p-1' }), deps).send(email);
    await new SimulatedSesFeedback(new FakeMailer({ providerMessageId: 'p-1' }), deps).send(email);
    await new SimulatedSesFeedback(new FakeMailer({ providerMessageId: 'p-2' }), deps).send(email);

    const [first, again, other] = queue.bodies.map((b) => JSON.parse(b.body).MessageId);
    expect(again).toBe(first);
    expect(other).not.toBe(first);
    expect(first).toBe(simulatedSnsMessageId('p-1', 'Delivery'));
    expect(simulatedSnsMessageId('p-1', 'Bounce')).not.toBe(first);
  });

  it('does not send again a message whose mail the emulator holds, and queues its Delivery again', async () => {
    // Prepare: the lookup answers as the emulator's store would once the first send is in it.
    const queue = capturingQueue();
    const inner = new FakeMailer({ providerMessageId: 'p-held' });
    const held = new Map<string, HeldReceipt>();
    const { deps, logs } = quietDeps(queue);
    const mailer = new SimulatedSesFeedback(inner, { ...deps, sentMail: (messageId) => held.get(messageId) });
    const first = await mailer.send(email);
    const takenAt = '2026-01-02T03:04:05.000Z';
    held.set(email.messageId, { providerMessageId: first.providerMessageId, at: takenAt });

    // Act: the worker died after the emulator accepted the mail, and the job came back.
    const retried = await mailer.send(email);

    // Assess
    expect(inner.sent).toHaveLength(1);
    // … and says when the emulator took it: the worker's `sent` is then, not now.
    expect(retried).toEqual({ providerMessageId: 'p-held', acceptedAt: takenAt });
    const envelopes = queue.bodies.map((b) => JSON.parse(b.body));
    expect(envelopes).toHaveLength(2);
    expect(envelopes[1].MessageId).toBe(envelopes[0].MessageId);
    expect(JSON.parse(envelopes[1].Message).mail.timestamp).toBe(takenAt);
    expect(logs).toContainEqual(expect.objectContaining({ level: 'info', messageId: email.messageId, providerMessageId: 'p-held' }));
  });

  it('queues nothing and passes the error on when the inner send fails', async () => {
    const queue = capturingQueue();
    const refused = new Error('MessageRejected');

    await expect(new SimulatedSesFeedback(new FakeMailer(refused), quietDeps(queue).deps).send(email)).rejects.toBe(refused);
    expect(queue.bodies).toEqual([]);
  });

  it('still reports the send as done when the notification cannot be queued, and logs it', async () => {
    const { deps, logs } = quietDeps(capturingQueue(new Error('queue down')));

    const result = await new SimulatedSesFeedback(new FakeMailer({ providerMessageId: 'p-3' }), deps).send(email);

    expect(result).toEqual({ providerMessageId: 'p-3' });
    expect(logs).toContainEqual(
      expect.objectContaining({ level: 'error', messageId: email.messageId, providerMessageId: 'p-3', error: expect.objectContaining({ message: 'queue down' }) }),
    );
  });
});

describe('SimulatedSesFeedback with the ingest handler', () => {
  let c: TestContainer;
  beforeAll(async () => {
    c = await createTestContainer();
    installContainer(c);
  });
  afterAll(async () => c.testStore.close());

  it('takes a locally sent message from sent to delivered', async () => {
    // Prepare: the message as the worker leaves it, and the mailer as the local runtime wires it.
    const sent = await seedSentMessage(c, { recipient: 'grace@example.test' });
    const mailer = new SimulatedSesFeedback(new FakeMailer({ providerMessageId: newProviderMessageId() }), c);
    await mailer.send({ ...email, to: 'grace@example.test', messageId: sent.message.id, accountId: sent.message.account_id });

    // Act
    const queued = c.sent.filter((s) => s.queue === 'ses-events').map((s) => sqsRecord(s.body));
    const response = await handler(sqsEvent(queued));

    // Assess
    expect(response.batchItemFailures).toEqual([]);
    const { message, events } = await readTimeline(c.store, sent.message.id);
    expect(message?.status).toBe('delivered');
    expect(events.map((e) => e.type).sort()).toEqual(['delivered', 'sent']);
  });

  it('records one delivered when the Delivery of one mail is queued twice', async () => {
    // Prepare: a retried send queues the Delivery of the mail the emulator already held again.
    const sent = await seedSentMessage(c, { recipient: 'hedy@example.test' });
    const providerMessageId = newProviderMessageId();
    const held = new Map<string, HeldReceipt>();
    const mailer = new SimulatedSesFeedback(new FakeMailer({ providerMessageId }), { ...c, sentMail: (id) => held.get(id) });
    const outbound = { ...email, to: 'hedy@example.test', messageId: sent.message.id, accountId: sent.message.account_id };
    const before = c.sent.length;
    await mailer.send(outbound);
    held.set(sent.message.id, { providerMessageId, at: c.clock.now().toISOString() });
    await mailer.send(outbound);
    const queued = c.sent.slice(before).filter((s) => s.queue === 'ses-events');

    // Act: each copy reaches ingest on its own, as two SQS messages would.
    const responses = [];
    for (const copy of queued) responses.push(await handler(sqsEvent([sqsRecord(copy.body)])));

    // Assess
    expect(queued).toHaveLength(2);
    expect(responses.flatMap((r) => r.batchItemFailures)).toEqual([]);
    const { message, events } = await readTimeline(c.store, sent.message.id);
    expect(message?.status).toBe('delivered');
    expect(events.map((e) => e.type).sort()).toEqual(['delivered', 'sent']);
  });
});
