// Parsing SNS-wrapped SES notifications: both forms of every tracked type, the timestamp and id
// rules, and bad input turned into results instead of exceptions.
import { describe, expect, it } from 'vitest';
import { sesEventMessage } from '../../shared/sending/ses-events/messages';
import { parseSesNotification, type SesNotification } from '../../shared/sending/ses-events/ses-notification';
import {
  bounceNotification,
  clickNotification,
  complaintNotification,
  deliveryDelayNotification,
  deliveryNotification,
  openNotification,
  rejectNotification,
  renderingFailureNotification,
  sendNotification,
  snsWrap,
  type NotificationForm,
  type NotificationOptions,
  type SesTarget,
} from '../support/ses-events';

const target: SesTarget = {
  providerMessageId: '010f019c-provider-000000',
  recipient: 'ada@example.test',
  messageId: 'msg_01jabcdefghjkmnpqrstvwxyz0',
  accountId: 'acct_01jabcdefghjkmnpqrstvwxyz0',
};
const AT = '2026-03-01T12:00:05.123Z';
const SNS_AT = '2026-03-01T12:00:06.000Z';
const SNS_ID = '5b1a8c1e-4d0f-4d44-9f0e-7a2b0a0e1c11';

function parseEvent(notification: object, sns: { snsMessageId?: string; timestamp?: string } = {}): SesNotification {
  const parsed = parseSesNotification(JSON.stringify(snsWrap(notification, { snsMessageId: SNS_ID, timestamp: SNS_AT, ...sns })));
  if (parsed.kind !== 'event') throw new Error(`expected an event, got ${JSON.stringify(parsed)}`);
  return parsed.event;
}

type Build = (t: SesTarget, o: NotificationOptions) => Record<string, unknown>;

describe('tracked SES types', () => {
  const cases: Array<[string, NotificationForm, Build, SesNotification['type'], 'ses' | 'sns']> = [
    ['Delivery', 'event', deliveryNotification, 'delivered', 'sns'],
    ['Delivery', 'classic', deliveryNotification, 'delivered', 'sns'],
    ['Bounce', 'event', bounceNotification, 'bounced', 'ses'],
    ['Bounce', 'classic', bounceNotification, 'bounced', 'ses'],
    ['Complaint', 'event', complaintNotification, 'complained', 'ses'],
    ['Complaint', 'classic', complaintNotification, 'complained', 'ses'],
    ['Open', 'event', openNotification, 'opened', 'sns'],
    ['Click', 'event', clickNotification, 'clicked', 'sns'],
    ['DeliveryDelay', 'event', deliveryDelayNotification, 'delivery_delayed', 'sns'],
    ['Reject', 'event', rejectNotification, 'failed', 'sns'],
    ['Rendering Failure', 'event', renderingFailureNotification, 'failed', 'sns'],
  ];

  it.each(cases)('%s (%s form) becomes %s', (sesType, form, build, type, source) => {
    // Prepare
    const notification = build(target, { at: AT, form });

    // Act
    const event = parseEvent(notification);

    // Assess
    expect(event.type).toBe(type);
    expect(event.sesType).toBe(sesType);
    expect(event.source).toBe(source);
    expect(event.providerMessageId).toBe(target.providerMessageId);
    expect(event.occurredAt).toBe(AT);
    expect(event.payload).toEqual(notification);
    if (form === 'event') {
      expect(event.messageId).toBe(target.messageId);
      expect(event.accountId).toBe(target.accountId);
    } else {
      expect(event.messageId).toBeUndefined();
      expect(event.accountId).toBeUndefined();
    }
    const detailKey = Object.keys(notification).find((k) => k !== 'mail' && k !== 'eventType' && k !== 'notificationType') as string;
    const detail = notification[detailKey] as { feedbackId?: string };
    expect(event.providerEventId).toBe(source === 'ses' ? detail.feedbackId : SNS_ID);
  });

  it('keeps the payload exactly as SES sent it, unknown fields included', () => {
    const notification = { ...deliveryNotification(target, { at: AT }), extraSesField: { nested: [1, 2] } };

    const event = parseEvent(notification);

    expect(event.payload).toEqual(notification);
    expect(event.payload).toHaveProperty('delivery.smtpResponse', '250 2.6.0 Message received');
  });
});

describe('bounces and complaints', () => {
  it.each([
    ['Permanent', 'hard'],
    ['Transient', 'soft'],
    ['Undetermined', 'soft'],
  ] as const)('a %s bounce is %s', (bounceType, kind) => {
    const event = parseEvent(bounceNotification(target, { at: AT, bounceType, bounceSubType: 'NoEmail', diagnosticCode: 'smtp; 550 no such user' }));

    expect(event.bounce).toEqual({
      kind,
      bounceType,
      bounceSubType: 'NoEmail',
      recipients: [{ emailAddress: target.recipient, diagnosticCode: 'smtp; 550 no such user' }],
    });
  });

  it('uses the feedbackId as provider_event_id, whatever the SNS MessageId', () => {
    const notification = bounceNotification(target, { at: AT, feedbackId: 'fb-0001' });

    const first = parseEvent(notification, { snsMessageId: 'sns-a' });
    const second = parseEvent(notification, { snsMessageId: 'sns-b' });

    expect(first.providerEventId).toBe('fb-0001');
    expect(second.providerEventId).toBe('fb-0001');
  });

  it('reads complained recipients and the feedback type, which may be absent', () => {
    const typed = parseEvent(complaintNotification(target, { at: AT, feedbackType: 'not-spam' }));
    const untyped = parseEvent(complaintNotification(target, { at: AT, feedbackType: null }));

    expect(typed.complaint).toEqual({ feedbackType: 'not-spam', recipients: [target.recipient] });
    expect(untyped.complaint).toEqual({ feedbackType: undefined, recipients: [target.recipient] });
  });

  it.each([
    ['a bounce without feedbackId', 'Bounce', 'bounce', 'feedbackId'],
    ['a bounce without bounceType', 'Bounce', 'bounce', 'bounceType'],
    ['a complaint without recipients', 'Complaint', 'complaint', 'complainedRecipients'],
  ])('refuses %s', (_label, sesType, detailKey, field) => {
    const notification = sesType === 'Bounce' ? bounceNotification(target, { at: AT }) : complaintNotification(target, { at: AT });
    const detail = { ...(notification[detailKey] as Record<string, unknown>) };
    delete detail[field];

    const parsed = parseSesNotification(JSON.stringify(snsWrap({ ...notification, [detailKey]: detail })));

    expect(parsed).toEqual({ kind: 'invalid', reason: expect.stringContaining(field) });
  });
});

describe('SNS MessageId as provider_event_id', () => {
  it('gives each open its own id and a redelivered open the same id', () => {
    const notification = openNotification(target, { at: AT });

    const first = parseEvent(notification, { snsMessageId: 'sns-1' });
    const redelivered = parseEvent(notification, { snsMessageId: 'sns-1' });
    const secondOpen = parseEvent(notification, { snsMessageId: 'sns-2' });

    expect(first.providerEventId).toBe('sns-1');
    expect(redelivered.providerEventId).toBe('sns-1');
    expect(secondOpen.providerEventId).toBe('sns-2');
  });
});

describe('occurred_at', () => {
  it('takes the type’s own timestamp before mail.timestamp', () => {
    const event = parseEvent(deliveryNotification(target, { at: AT, sentAt: '2026-03-01T12:00:00.000Z' }));

    expect(event.occurredAt).toBe(AT);
  });

  it('falls back to mail.timestamp when the type has none', () => {
    const event = parseEvent(rejectNotification(target, { at: AT }));

    expect(event.occurredAt).toBe(AT);
  });

  it('falls back to mail.timestamp when the type’s own timestamp is unreadable', () => {
    const notification = openNotification(target, { at: AT, sentAt: '2026-03-01T12:00:01.000Z' });
    (notification.open as Record<string, unknown>).timestamp = 'yesterday';

    expect(parseEvent(notification).occurredAt).toBe('2026-03-01T12:00:01.000Z');
  });

  it('falls back to the SNS Timestamp when SES gave no time at all', () => {
    const notification = rejectNotification(target, { at: AT });
    delete (notification.mail as Record<string, unknown>).timestamp;

    expect(parseEvent(notification, { timestamp: SNS_AT }).occurredAt).toBe(SNS_AT);
  });

  it('normalizes offsets and missing milliseconds to RFC 3339 UTC with milliseconds', () => {
    const notification = clickNotification(target, { at: AT });
    (notification.click as Record<string, unknown>).timestamp = '2026-03-01T13:00:05+01:00';

    expect(parseEvent(notification).occurredAt).toBe('2026-03-01T12:00:05.000Z');
  });

  it('refuses a notification with no readable time anywhere', () => {
    const notification = rejectNotification(target, { at: AT });
    delete (notification.mail as Record<string, unknown>).timestamp;
    const envelope: Record<string, unknown> = { ...snsWrap(notification) };
    delete envelope.Timestamp;

    expect(parseSesNotification(JSON.stringify(envelope))).toEqual({ kind: 'invalid', reason: expect.stringContaining('timestamp') });
  });
});

describe('message tags', () => {
  it('reads our message and account ids from the first tag values', () => {
    const notification = deliveryNotification(target, { at: AT });
    const mail = notification.mail as { tags: Record<string, string[]> };
    mail.tags.postbox_message_id = ['msg_first', 'msg_second'];

    expect(parseEvent(notification).messageId).toBe('msg_first');
  });

  it.each([
    ['absent', undefined],
    ['not a list', 'msg_plain'],
    ['an empty list', []],
  ])('leaves the message id unset when the tag is %s', (_label, value) => {
    const notification = deliveryNotification(target, { at: AT });
    const mail = notification.mail as { tags: Record<string, unknown> };
    if (value === undefined) delete mail.tags.postbox_message_id;
    else mail.tags.postbox_message_id = value;

    const event = parseEvent(notification);

    expect(event.messageId).toBeUndefined();
    expect(event.providerMessageId).toBe(target.providerMessageId);
  });
});

describe('input that is not for the timeline', () => {
  it.each([
    ['Send', sendNotification(target, { at: AT })],
    ['Subscription', { eventType: 'Subscription', mail: { messageId: 'x', timestamp: AT }, subscription: {} }],
    ['the SES setup notification', { notificationType: 'AmazonSnsSubscriptionSucceeded', message: 'You have successfully subscribed…' }],
  ])('ignores %s', (_label, notification) => {
    expect(parseSesNotification(JSON.stringify(snsWrap(notification)))).toMatchObject({ kind: 'ignore' });
  });

  it('ignores SNS messages that are not notifications', () => {
    const confirmation = { ...snsWrap({}), Type: 'SubscriptionConfirmation', SubscribeURL: 'https://sns.example.test/confirm' };

    expect(parseSesNotification(JSON.stringify(confirmation))).toEqual({ kind: 'ignore', reason: 'SNS SubscriptionConfirmation message' });
  });
});

describe('malformed input', () => {
  const valid = snsWrap(deliveryNotification(target, { at: AT }));

  it.each([
    ['a body that is not JSON', '{"Type":'],
    ['an empty body', ''],
    ['a JSON array', '[]'],
    ['a bare SES notification (raw message delivery)', JSON.stringify(deliveryNotification(target, { at: AT }))],
    ['an envelope without MessageId', JSON.stringify({ ...valid, MessageId: undefined })],
    ['a Message that is not JSON', JSON.stringify({ ...valid, Message: 'not json' })],
    ['a Message that is a JSON string', JSON.stringify({ ...valid, Message: JSON.stringify('Delivery') })],
    ['a Message without eventType or notificationType', JSON.stringify({ ...valid, Message: JSON.stringify({ mail: {} }) })],
    ['a Delivery without mail', JSON.stringify({ ...valid, Message: JSON.stringify({ eventType: 'Delivery', delivery: { timestamp: AT } }) })],
    [
      'a Delivery whose mail has no messageId',
      JSON.stringify({ ...valid, Message: JSON.stringify({ eventType: 'Delivery', mail: { timestamp: AT }, delivery: {} }) }),
    ],
    [
      'a Delivery whose detail is not an object',
      JSON.stringify({ ...valid, Message: JSON.stringify({ eventType: 'Delivery', mail: { messageId: 'x', timestamp: AT }, delivery: 'yes' }) }),
    ],
  ])('reports %s as invalid without throwing', (_label, body) => {
    const parsed = parseSesNotification(body);

    expect(parsed.kind).toBe('invalid');
    expect(parsed).toHaveProperty('reason', expect.any(String));
  });
});

describe('the ses-events queue contract', () => {
  const valid = snsWrap(deliveryNotification(target, { at: AT }));

  it('passes a tracked notification as an event and an untracked one as ignore', () => {
    // Act
    const event = sesEventMessage.safeParse(valid);
    const ignored = sesEventMessage.safeParse(snsWrap(sendNotification(target, { at: AT })));

    // Assess
    expect(event.success && event.data).toMatchObject({ kind: 'event', event: { type: 'delivered', messageId: target.messageId } });
    expect(ignored.success && ignored.data).toMatchObject({ kind: 'ignore', sesType: 'Send' });
  });

  it.each([
    ['a bare SES notification (raw message delivery)', deliveryNotification(target, { at: AT })],
    ['a Message that is not JSON', { ...valid, Message: 'not json' }],
    ['a Delivery without mail', { ...valid, Message: JSON.stringify({ eventType: 'Delivery', delivery: { timestamp: AT } }) }],
  ])('refuses %s, naming why', (_label, body) => {
    const parsed = sesEventMessage.safeParse(body);

    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.message).toEqual(expect.any(String));
  });
});
