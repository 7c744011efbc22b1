// Builders of SES notifications and their SNS envelopes, shaped as AWS delivers them to the
// ses-events queue (wrap them in SQS records with ./sqs), plus a sent message to attach them to.
import { randomUUID } from 'node:crypto';
import { keys } from '../../shared/db/keys';
import {
  buildSesDeliveryEvent,
  buildSesMail,
  buildSnsNotification,
  type SesMail,
  type SnsNotificationEnvelope,
} from '../../shared/sending/ses-events/ses-notification';
import type { MessageItem } from '../../shared/sending/messages/model';
import { recordEvent, workerEventId } from '../../shared/sending/messages/timeline';
import type { Container } from '../../shared/runtime/container';

/** The sent message a notification is about. */
export interface SesTarget {
  providerMessageId: string;
  recipient: string;
  /** Our ids in the message tags; classic notifications never carry them. */
  messageId?: string;
  accountId?: string;
  from?: string;
  subject?: string;
}

/** `event`: configuration-set event publishing (eventType, tags). `classic`: identity notifications. */
export type NotificationForm = 'event' | 'classic';

export interface NotificationOptions {
  /** The type's own timestamp (delivery.timestamp, bounce.timestamp…). */
  at: string;
  /** mail.timestamp, when SES accepted the message; defaults to one second before `at`. */
  sentAt?: string;
  form?: NotificationForm;
}

type Notification = Record<string, unknown> & { mail: Record<string, unknown> };

let counter = 0;
const next = (): string => `${Date.now().toString(16)}-${String(++counter).padStart(6, '0')}`;

export const newProviderMessageId = (): string => `010f019c${next()}-${randomUUID()}-000000`;
export const newFeedbackId = (): string => `010f019c${next()}-feedback-000000`;

const secondBefore = (iso: string): string => new Date(new Date(iso).getTime() - 1000).toISOString();

function mailOf(target: SesTarget, options: NotificationOptions): SesMail {
  return buildSesMail({
    timestamp: options.sentAt ?? secondBefore(options.at),
    providerMessageId: target.providerMessageId,
    from: target.from ?? 'Acme <hello@acme.test>',
    to: target.recipient,
    subject: target.subject ?? 'Hello',
    messageId: target.messageId,
    accountId: target.accountId,
    configurationSet: 'postbox-test',
  });
}

/** Event publishing and classic notifications differ in the type key and in carrying tags. */
function inForm(eventType: string, mail: SesMail, detail: Record<string, unknown>, form: NotificationForm = 'event'): Notification {
  if (form === 'event') return { eventType, mail: { ...mail }, ...detail };
  const { tags: _tags, ...untagged } = mail;
  return { notificationType: eventType, mail: untagged, ...detail };
}

export function deliveryNotification(target: SesTarget, options: NotificationOptions): Notification {
  const mail = mailOf(target, options);
  const processingTimeMillis = new Date(options.at).getTime() - new Date(mail.timestamp).getTime();
  const { delivery } = buildSesDeliveryEvent(mail, { processingTimeMillis, smtpResponse: '250 2.6.0 Message received', reportingMTA: 'mx.example.test' });
  return inForm('Delivery', mail, { delivery }, options.form);
}

export function bounceNotification(
  target: SesTarget,
  options: NotificationOptions & { bounceType?: 'Permanent' | 'Transient' | 'Undetermined'; bounceSubType?: string; diagnosticCode?: string; feedbackId?: string },
): Notification {
  const bounceType = options.bounceType ?? 'Permanent';
  return inForm(
    'Bounce',
    mailOf(target, options),
    {
      bounce: {
        bounceType,
        bounceSubType: options.bounceSubType ?? 'General',
        bouncedRecipients: [
          {
            emailAddress: target.recipient,
            action: 'failed',
            status: bounceType === 'Permanent' ? '5.1.1' : '4.2.2',
            diagnosticCode: options.diagnosticCode ?? (bounceType === 'Permanent' ? 'smtp; 550 5.1.1 user unknown' : 'smtp; 452 4.2.2 mailbox full'),
          },
        ],
        timestamp: options.at,
        feedbackId: options.feedbackId ?? newFeedbackId(),
        reportingMTA: 'dsn; mta.example.test',
      },
    },
    options.form,
  );
}

export function complaintNotification(target: SesTarget, options: NotificationOptions & { feedbackType?: string | null; feedbackId?: string }): Notification {
  const complaint: Record<string, unknown> = {
    complainedRecipients: [{ emailAddress: target.recipient }],
    timestamp: options.at,
    feedbackId: options.feedbackId ?? newFeedbackId(),
    userAgent: 'ExampleFeedbackLoop/1.0',
    arrivalDate: options.at,
  };
  // null: the mailbox provider sent no feedback type (some feedback loops never do).
  if (options.feedbackType !== null) complaint.complaintFeedbackType = options.feedbackType ?? 'abuse';
  return inForm('Complaint', mailOf(target, options), { complaint }, options.form);
}

const userAgent = 'Mozilla/5.0 (X11; Linux x86_64) Gecko/20100101 Firefox/120.0';

export const openNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm('Open', mailOf(target, options), { open: { ipAddress: '192.0.2.1', timestamp: options.at, userAgent } }, options.form);

export const clickNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm(
    'Click',
    mailOf(target, options),
    { click: { ipAddress: '192.0.2.1', link: 'https://acme.test/welcome', linkTags: {}, timestamp: options.at, userAgent } },
    options.form,
  );

export const deliveryDelayNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm(
    'DeliveryDelay',
    mailOf(target, options),
    {
      deliveryDelay: {
        timestamp: options.at,
        delayType: 'TransientCommunicationFailure',
        expirationTime: new Date(new Date(options.at).getTime() + 86_400_000).toISOString(),
        delayedRecipients: [{ emailAddress: target.recipient, status: '4.4.1', diagnosticCode: 'smtp; 421 4.4.1 Unable to connect' }],
      },
    },
    options.form,
  );

/** Reject, Rendering Failure and Send have no timestamp of their own: mail.timestamp is the time. */
export const rejectNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm('Reject', mailOf(target, { ...options, sentAt: options.sentAt ?? options.at }), { reject: { reason: 'Bad content' } }, options.form);

export const renderingFailureNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm(
    'Rendering Failure',
    mailOf(target, { ...options, sentAt: options.sentAt ?? options.at }),
    { failure: { errorMessage: "Attribute 'name' is not present in the rendering data.", templateName: 'welcome' } },
    options.form,
  );

export const sendNotification = (target: SesTarget, options: NotificationOptions): Notification =>
  inForm('Send', mailOf(target, { ...options, sentAt: options.sentAt ?? options.at }), { send: {} }, options.form);

/** The SNS envelope SNS puts on the queue; Timestamp (when SNS published) defaults to now. */
export function snsWrap(notification: object, options: { snsMessageId?: string; timestamp?: string } = {}): SnsNotificationEnvelope {
  return buildSnsNotification(notification, {
    messageId: options.snsMessageId,
    timestamp: options.timestamp ?? new Date().toISOString(),
    topicArn: 'arn:aws:sns:us-east-1:123456789012:postbox-ses-events',
  });
}

export interface SentMessage {
  message: MessageItem;
  target: Required<Pick<SesTarget, 'providerMessageId' | 'recipient' | 'messageId' | 'accountId'>>;
}

/**
 * A message the send worker has handed to SES: status `sent`, a `sent` event at the clock's
 * now.
 */
export async function seedSentMessage(
  c: Pick<Container, 'store' | 'clock' | 'ids' | 'queue' | 'metrics' | 'timeline'>,
  options: { accountId?: string; recipient?: string } = {},
): Promise<SentMessage> {
  const id = c.ids.next('msg');
  const accountId = options.accountId ?? `acct_${id.slice(4)}`;
  const recipient = options.recipient ?? `${id.slice(-8)}@example.test`;
  const providerMessageId = newProviderMessageId();
  const now = c.clock.now().toISOString();
  const message: MessageItem = {
    ...keys.message(id),
    ...keys.messageListEntry(accountId, id),
    entity: 'message',
    id,
    account_id: accountId,
    channel: 'email',
    status: 'sent',
    message_type: 'transactional',
    idempotency_key: `idem-${id}`,
    test_mode: false,
    key_id: 'key_test',
    recipient,
    from: 'Acme <hello@acme.test>',
    subject: 'Hello',
    body_text: 'Hi',
    destination: { email: recipient },
    provider_message_id: providerMessageId,
    dispatched_at: now,
    created_at: now,
    updated_at: now,
  };
  await c.store.put(message);
  await recordEvent(
    c,
    message,
    { type: 'sent', source: 'worker', providerEventId: workerEventId(id, 'sent'), payload: { provider_message_id: providerMessageId }, occurredAt: now },
    { providerMessageId },
  );
  const stored = (await c.store.get<MessageItem>(keys.message(id))) as MessageItem;
  return { message: stored, target: { providerMessageId, recipient, messageId: id, accountId } };
}
