// The ses-events queue consumer through its real handler export, against a real in-memory store:
// timeline and status, dedup, out-of-order arrival, suppression, and partial batch failures.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { keys } from '../../shared/db/keys';
import { isId } from '../../shared/ports/ids';
import { readTimeline, recordEvent, workerEventId } from '../../shared/sending/messages/timeline';
import { findSuppression } from '../../shared/sending/suppressions/service';
import { type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';
import {
  bounceNotification,
  complaintNotification,
  deliveryNotification,
  openNotification,
  seedSentMessage,
  sendNotification,
  snsWrap,
  type SentMessage,
} from '../support/ses-events';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { ingestSesEvent as handler } from '../support/consumers';

let c: TestContainer;
const box = useContainer();
// A minute on before each test (useContainer's 2 s and 58 more): each test's SES events are its own.
beforeEach(() => {
  c = box.c;
  c.clock.advance(58_000);
  c.logs.length = 0;
});
afterEach(() => vi.restoreAllMocks());

/** An ISO time `seconds` after the clock's now (the message's sent time). */
const later = (seconds: number): string => new Date(c.clock.now().getTime() + seconds * 1000).toISOString();

const timelineOf = async (sent: SentMessage) => {
  const { message, events } = await readTimeline(c.store, sent.message.id);
  const ordered = [...events].sort((a, b) => a.occurred_at.localeCompare(b.occurred_at));
  return { message, events: ordered };
};

describe('delivered', () => {
  it('moves the status from sent to delivered and stores the SES notification unchanged', async () => {
    // Prepare
    const sent = await seedSentMessage(c);
    const notification = deliveryNotification(sent.target, { at: later(3) });
    const envelope = snsWrap(notification);

    // Act
    const response = await handler(sqsEvent([sqsRecord(envelope)]));

    // Assess
    expect(response).toEqual({ batchItemFailures: [] });
    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('delivered');
    expect(message?.status_at).toBe(later(3));
    expect(events.map((e) => e.type)).toEqual(['sent', 'delivered']);
    const delivered = events[1];
    expect(delivered).toMatchObject({
      type: 'delivered',
      message_id: sent.message.id,
      account_id: sent.message.account_id,
      source: 'sns',
      provider_event_id: envelope.MessageId,
      occurred_at: later(3),
      created_at: c.clock.now().toISOString(),
    });
    expect(delivered?.payload).toEqual(notification);
    expect(isId(delivered?.id ?? '', 'evt')).toBe(true);
  });

  it('collapses a duplicate callback (same SNS MessageId) into one timeline entry', async () => {
    const sent = await seedSentMessage(c);
    const envelope = snsWrap(deliveryNotification(sent.target, { at: later(3) }));

    const first = await handler(sqsEvent([sqsRecord(envelope)]));
    c.clock.advance(1000);
    const again = await handler(sqsEvent([sqsRecord(envelope), sqsRecord(envelope)]));

    expect(first.batchItemFailures).toEqual([]);
    expect(again.batchItemFailures).toEqual([]);
    const { events } = await timelineOf(sent);
    expect(events.filter((e) => e.type === 'delivered')).toHaveLength(1);
    expect(c.logs.filter((l) => l.msg === 'ses event already on the timeline')).toHaveLength(2);
  });

  it('drops a notification without our tags (a classic identity notification): nothing to attach it to', async () => {
    const sent = await seedSentMessage(c);
    const notification = deliveryNotification(sent.target, { at: later(3), form: 'classic' });

    const out = await handler(sqsEvent([sqsRecord(snsWrap(notification))]));

    expect(out.batchItemFailures).toEqual([]);
    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('sent');
    expect(events.map((e) => e.type)).toEqual(['sent']);
    expect(c.logs.filter((l) => l.msg === 'ses event dropped: no such message')).toHaveLength(1);
  });

  it('fills in the provider message id when the worker had not stored it yet', async () => {
    const sent = await seedSentMessage(c);
    await c.store.update(keys.message(sent.message.id), { expression: 'REMOVE provider_message_id' });

    await handler(sqsEvent([sqsRecord(snsWrap(deliveryNotification(sent.target, { at: later(3) })))]));

    const { message } = await timelineOf(sent);
    expect(message?.provider_message_id).toBe(sent.target.providerMessageId);
  });
});

describe('out of order', () => {
  it('keeps bounced when an earlier delivered arrives after it, with both on the timeline by occurred_at', async () => {
    const sent = await seedSentMessage(c);
    const bounce = bounceNotification(sent.target, { at: later(10), bounceType: 'Transient' });
    const delivery = deliveryNotification(sent.target, { at: later(5) });

    await handler(sqsEvent([sqsRecord(snsWrap(bounce))]));
    await handler(sqsEvent([sqsRecord(snsWrap(delivery))]));

    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('bounced');
    expect(message?.status_at).toBe(later(10));
    expect(events.map((e) => [e.type, e.occurred_at])).toEqual([
      ['sent', later(0)],
      ['delivered', later(5)],
      ['bounced', later(10)],
    ]);
  });

  it('lets a provider report replace sent even when it is timed before the handoff (a redelivered send job recorded sent late)', async () => {
    // The worker's second attempt found the mail already with SES and recorded the handoff at its
    // own time, after the time SES gives the delivery: the report still decides the status.
    const sent = await seedSentMessage(c);
    await c.store.update(keys.message(sent.message.id), { expression: 'SET status_at = :late', values: { ':late': later(20) } });

    await handler(sqsEvent([sqsRecord(snsWrap(deliveryNotification(sent.target, { at: later(3) })))]));

    const { message } = await timelineOf(sent);
    expect(message?.status).toBe('delivered');
    expect(message?.status_at).toBe(later(3));
  });
});

describe('the worker\'s handoff landing after the provider\'s report (issue 28)', () => {
  it('keeps delivered when the worker\'s sent is written after it, at a later time: the status never goes back', async () => {
    // Prepare: a message still queued as far as the store knows (the worker's sent not yet written).
    const sent = await seedSentMessage(c);
    await c.store.update(keys.message(sent.message.id), { expression: 'SET #s = :queued REMOVE status_at, evt_sent', names: { '#s': 'status' }, values: { ':queued': 'queued' } });

    // Act: the Delivery is ingested first, then the worker records its handoff, later by the clock.
    await handler(sqsEvent([sqsRecord(snsWrap(deliveryNotification(sent.target, { at: later(1) })))]));
    await recordEvent(c, sent.message, { type: 'sent', source: 'worker', providerEventId: workerEventId(sent.message.id, 'sent'), payload: {}, occurredAt: later(5) });

    // Assess
    const { message, events } = await timelineOf(sent);
    expect(events.map((e) => e.type)).toEqual(['delivered', 'sent']);
    expect(message?.status).toBe('delivered');
    expect(message?.status_at).toBe(later(1));
  });
});

describe('bounces and complaints', () => {
  it('records a Permanent bounce under its feedbackId and suppresses the recipient', async () => {
    const sent = await seedSentMessage(c, { recipient: 'Gone.User@Example.test' });
    const bounce = bounceNotification(
      { ...sent.target, recipient: 'Gone.User@Example.test' },
      { at: later(4), bounceSubType: 'NoEmail', diagnosticCode: 'smtp; 550 5.1.1 user unknown', feedbackId: 'fb-permanent-1' },
    );

    const response = await handler(sqsEvent([sqsRecord(snsWrap(bounce))]));

    expect(response.batchItemFailures).toEqual([]);
    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('bounced');
    expect(events[1]).toMatchObject({ type: 'bounced', source: 'ses', provider_event_id: 'fb-permanent-1', payload: bounce });
    expect(isId(events[1]?.id ?? '', 'evt')).toBe(true);
    const suppression = await findSuppression(c.store, sent.message.account_id, 'email', 'gone.user@example.test');
    expect(suppression).toMatchObject({
      recipient: 'gone.user@example.test',
      state: 'suppressed',
      reason: 'hard bounce: NoEmail smtp; 550 5.1.1 user unknown',
    });
  });

  it('does not suppress after a Transient bounce', async () => {
    const sent = await seedSentMessage(c);

    await handler(sqsEvent([sqsRecord(snsWrap(bounceNotification(sent.target, { at: later(4), bounceType: 'Transient' })))]));

    const { message } = await timelineOf(sent);
    expect(message?.status).toBe('bounced');
    expect(await findSuppression(c.store, sent.message.account_id, 'email', sent.target.recipient)).toBeUndefined();
  });

  it('records a complaint and suppresses the recipient', async () => {
    const sent = await seedSentMessage(c);
    const complaint = complaintNotification(sent.target, { at: later(30), feedbackId: 'fb-complaint-1' });

    await handler(sqsEvent([sqsRecord(snsWrap(complaint))]));

    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('complained');
    expect(events[1]).toMatchObject({ type: 'complained', source: 'ses', provider_event_id: 'fb-complaint-1' });
    expect(await findSuppression(c.store, sent.message.account_id, 'email', sent.target.recipient)).toMatchObject({
      reason: 'complaint: abuse',
    });
  });

  it('names abuse as the reason when the complaint has no feedback type', async () => {
    const sent = await seedSentMessage(c);

    await handler(sqsEvent([sqsRecord(snsWrap(complaintNotification(sent.target, { at: later(30), feedbackType: null })))]));

    expect(await findSuppression(c.store, sent.message.account_id, 'email', sent.target.recipient)).toMatchObject({
      reason: 'complaint: abuse',
    });
  });

  it('suppresses on redelivery when a crash came between recording the bounce and suppressing', async () => {
    const sent = await seedSentMessage(c);
    const record = sqsRecord(snsWrap(bounceNotification(sent.target, { at: later(4) })));
    const send = c.store.doc.send.bind(c.store.doc);
    let failed = false;
    vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { input: { Item?: { entity?: string }; Key?: { sk?: string } } }) => {
      const writesSuppression = command.input.Item?.entity === 'suppression' || command.input.Key?.sk?.startsWith('SUPP#');
      if (!failed && writesSuppression && command.constructor.name !== 'GetCommand') {
        failed = true;
        return Promise.reject(new Error('connection reset'));
      }
      return send(command as never);
    }) as never);

    const first = await handler(sqsEvent([record]));
    const redelivered = await handler(sqsEvent([record]));

    expect(first.batchItemFailures).toEqual([{ itemIdentifier: record.messageId }]);
    expect(redelivered.batchItemFailures).toEqual([]);
    const { events } = await timelineOf(sent);
    expect(events.filter((e) => e.type === 'bounced')).toHaveLength(1);
    expect(await findSuppression(c.store, sent.message.account_id, 'email', sent.target.recipient)).toMatchObject({ state: 'suppressed' });
  });
});

describe('notifications that cannot be used', () => {
  it('drops a notification for an unknown message without reporting a failure', async () => {
    const record = sqsRecord(
      snsWrap(deliveryNotification({ providerMessageId: 'nobody-knows-000000', recipient: 'x@example.test', messageId: 'msg_01jzzzzzzzzzzzzzzzzzzzzzzz' }, { at: later(3) })),
    );

    const response = await handler(sqsEvent([record]));

    expect(response.batchItemFailures).toEqual([]);
    expect(c.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', msg: 'ses event dropped: no such message', sqsMessageId: record.messageId, providerMessageId: 'nobody-knows-000000' }),
    );
  });

  it('drops a notification whose account tag is not the message’s account', async () => {
    const sent = await seedSentMessage(c);

    const response = await handler(
      sqsEvent([sqsRecord(snsWrap(deliveryNotification({ ...sent.target, accountId: 'acct_someoneelse' }, { at: later(3) })))]),
    );

    expect(response.batchItemFailures).toEqual([]);
    const { message, events } = await timelineOf(sent);
    expect(message?.status).toBe('sent');
    expect(events).toHaveLength(1);
    expect(c.logs).toContainEqual(expect.objectContaining({ level: 'warn', taggedAccountId: 'acct_someoneelse' }));
  });

  it('reports unreadable bodies as failed (for the DLQ) and ignores Send events without a failure', async () => {
    const sent = await seedSentMessage(c);
    const garbage = sqsRecord('not json at all');
    const send = sqsRecord(snsWrap(sendNotification(sent.target, { at: later(1) })));

    const response = await handler(sqsEvent([garbage, send]));

    expect(response.batchItemFailures).toEqual([{ itemIdentifier: garbage.messageId }]);
    expect(c.logs).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'poison message on the ses-events queue; it goes to the DLQ after its last receive', recordId: garbage.messageId }),
    );
    expect(c.logs).toContainEqual(expect.objectContaining({ level: 'debug', msg: 'ses event ignored', sesType: 'Send' }));
    const { events } = await timelineOf(sent);
    expect(events.map((e) => e.type)).toEqual(['sent']);
  });
});

describe('partial batch failure', () => {
  it('reports only the record whose store call failed, and the others are recorded', async () => {
    // Prepare
    const [a, b, d] = [await seedSentMessage(c), await seedSentMessage(c), await seedSentMessage(c)];
    const records = [a, b, d].map((sent) => sqsRecord(snsWrap(openNotification(sent.target, { at: later(20) }))));
    const send = c.store.doc.send.bind(c.store.doc);
    let failed = false;
    vi.spyOn(c.store.doc, 'send').mockImplementation(((command: { input: { Key?: { pk?: string } } }) => {
      if (!failed && command.input.Key?.pk === keys.message(b.message.id).pk) {
        failed = true;
        return Promise.reject(new Error('store unavailable'));
      }
      return send(command as never);
    }) as never);

    // Act
    const response = await handler(sqsEvent(records));

    // Assess
    expect(response.batchItemFailures).toEqual([{ itemIdentifier: records[1]?.messageId }]);
    expect((await timelineOf(a)).message?.status).toBe('opened');
    expect((await timelineOf(b)).message?.status).toBe('sent');
    expect((await timelineOf(d)).message?.status).toBe('opened');
    expect(c.logs).toContainEqual(
      expect.objectContaining({ level: 'warn', recordId: records[1]?.messageId, error: expect.objectContaining({ message: 'store unavailable' }) }),
    );
  });
});
