// SES event notifications as they reach the ses-events queue: an SNS envelope whose Message is an
// SES notification, either event publishing (`eventType`) or a classic notification
// (`notificationType`). Parsing never throws: bad input is a result, which the queue contract
// (./messages.ts) turns into poison bound for the DLQ. The builders at the end produce the same
// shapes for the local SES simulator and for tests.
import { randomUUID } from 'node:crypto';
import * as z from 'zod';
import { sha256Hex } from '../../crypto/crypto';
import type { EventType } from '../messages/model';
import { ACCOUNT_TAG, MESSAGE_TAG } from '../../ports/mailer';

/** One SES notification turned into what the timeline needs. */
export interface SesNotification {
  type: EventType;
  /** SES's own name: Delivery, Bounce, Rendering Failure… */
  sesType: string;
  source: 'ses' | 'sns';
  providerEventId: string;
  providerMessageId: string;
  /** Our message id, from the message tag; absent on classic notifications. */
  messageId?: string;
  /** Our account id, from the account tag. */
  accountId?: string;
  occurredAt: string;
  /** The SES notification unchanged (camelCase, nested), as the spec's payload shapes require. */
  payload: Record<string, unknown>;
  bounce?: {
    /** Permanent is hard; Transient and Undetermined are soft and never suppress. */
    kind: 'hard' | 'soft';
    bounceType: string;
    bounceSubType?: string;
    recipients: Array<{ emailAddress: string; diagnosticCode?: string }>;
  };
  complaint?: { feedbackType?: string; recipients: string[] };
}

export type ParsedSesNotification =
  | { kind: 'event'; event: SesNotification }
  /** Well-formed but not for the timeline (Send, Subscription, subscription confirmations…). */
  | { kind: 'ignore'; reason: string; sesType?: string }
  | { kind: 'invalid'; reason: string };

/** SES type → our event type and the key of the type's own detail object. */
const MAPPED: Record<string, { type: EventType; detail: string }> = {
  Delivery: { type: 'delivered', detail: 'delivery' },
  Bounce: { type: 'bounced', detail: 'bounce' },
  Complaint: { type: 'complained', detail: 'complaint' },
  Open: { type: 'opened', detail: 'open' },
  Click: { type: 'clicked', detail: 'click' },
  DeliveryDelay: { type: 'delivery_delayed', detail: 'deliveryDelay' },
  Reject: { type: 'failed', detail: 'reject' },
  'Rendering Failure': { type: 'failed', detail: 'failure' },
};

const IGNORED: Record<string, string> = {
  Send: 'the send worker records sent itself',
};

/**
 * Raw message delivery would put the SES notification on the queue without the SNS MessageId that
 * dedups most event types, so an envelope is required.
 */
export const snsEnvelope = z.object({
  Type: z.string(),
  MessageId: z.string().min(1),
  Message: z.string(),
  Timestamp: z.string().optional(),
});

export type SnsEnvelope = z.infer<typeof snsEnvelope>;

const mailSchema = z.object({
  messageId: z.string().min(1),
  timestamp: z.string().optional(),
  tags: z.record(z.string(), z.unknown()).optional(),
});

const detailSchema = z.object({ timestamp: z.string().optional() }).optional();

const bounceSchema = z.object({
  bounceType: z.string().min(1),
  bounceSubType: z.string().optional(),
  feedbackId: z.string().min(1),
  timestamp: z.string().optional(),
  bouncedRecipients: z.array(z.object({ emailAddress: z.string().min(1), diagnosticCode: z.string().optional() })),
});

const complaintSchema = z.object({
  feedbackId: z.string().min(1),
  complaintFeedbackType: z.string().optional(),
  timestamp: z.string().optional(),
  complainedRecipients: z.array(z.object({ emailAddress: z.string().min(1) })),
});

function parseJson(text: string): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) as unknown };
  } catch {
    return { ok: false };
  }
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

const issue = (error: z.ZodError): string => {
  const first = error.issues[0];
  return first ? `${first.path.join('.') || '(root)'}: ${first.message}` : 'does not match';
};

/** The first value of a message tag, if SES passed it through (event publishing only). */
function firstTag(tags: Record<string, unknown> | undefined, name: string): string | undefined {
  const value = tags?.[name];
  return Array.isArray(value) && typeof value[0] === 'string' && value[0] !== '' ? value[0] : undefined;
}

/** The first candidate that is a readable date, as RFC 3339 UTC. */
function firstInstant(...candidates: Array<string | undefined>): string | undefined {
  for (const candidate of candidates) {
    if (!candidate) continue;
    const at = new Date(candidate);
    if (!Number.isNaN(at.getTime())) return at.toISOString();
  }
  return undefined;
}

/** Parses one SQS record body from the ses-events queue. */
export function parseSesNotification(body: string): ParsedSesNotification {
  const outer = parseJson(body);
  if (!outer.ok) return { kind: 'invalid', reason: 'body is not JSON' };
  const envelope = snsEnvelope.safeParse(outer.value);
  if (!envelope.success) return { kind: 'invalid', reason: `not an SNS envelope: ${issue(envelope.error)}` };
  return readSnsMessage(envelope.data);
}

/** The SES notification inside an SNS envelope, as the timeline needs it. */
export function readSnsMessage(sns: SnsEnvelope): ParsedSesNotification {
  if (sns.Type !== 'Notification') return { kind: 'ignore', reason: `SNS ${sns.Type} message` };

  const inner = parseJson(sns.Message);
  if (!inner.ok || !isObject(inner.value)) return { kind: 'invalid', reason: 'SNS Message is not a JSON object' };
  const notification = inner.value;
  const sesType = notification.eventType ?? notification.notificationType;
  if (typeof sesType !== 'string' || sesType === '') return { kind: 'invalid', reason: 'no eventType or notificationType' };
  if (IGNORED[sesType]) return { kind: 'ignore', reason: IGNORED[sesType], sesType };
  const mapped = MAPPED[sesType];
  if (!mapped) return { kind: 'ignore', reason: `SES type ${sesType} is not tracked`, sesType };

  const mail = mailSchema.safeParse(notification.mail);
  if (!mail.success) return { kind: 'invalid', reason: `${sesType}: mail.${issue(mail.error)}` };
  const detailValue = notification[mapped.detail];
  const detail = detailSchema.safeParse(detailValue);
  if (!detail.success) return { kind: 'invalid', reason: `${sesType}: ${mapped.detail}.${issue(detail.error)}` };

  const occurredAt = firstInstant(detail.data?.timestamp, mail.data.timestamp, sns.Timestamp);
  if (!occurredAt) return { kind: 'invalid', reason: `${sesType}: no readable timestamp` };

  const event: SesNotification = {
    type: mapped.type,
    sesType,
    // Provider event ids: Bounce and Complaint carry SES's own feedbackId. No other type has an
    // SES event id, so those use the SNS MessageId, which stays the same when SNS or SQS
    // redelivers the notification and differs for each new signal (a second open, a second click).
    source: 'sns',
    providerEventId: sns.MessageId,
    providerMessageId: mail.data.messageId,
    messageId: firstTag(mail.data.tags, MESSAGE_TAG),
    accountId: firstTag(mail.data.tags, ACCOUNT_TAG),
    occurredAt,
    payload: notification,
  };

  if (sesType === 'Bounce') {
    const bounce = bounceSchema.safeParse(detailValue);
    if (!bounce.success) return { kind: 'invalid', reason: `Bounce: bounce.${issue(bounce.error)}` };
    event.source = 'ses';
    event.providerEventId = bounce.data.feedbackId;
    event.bounce = {
      kind: bounce.data.bounceType === 'Permanent' ? 'hard' : 'soft',
      bounceType: bounce.data.bounceType,
      bounceSubType: bounce.data.bounceSubType,
      recipients: bounce.data.bouncedRecipients.map((r) => ({ emailAddress: r.emailAddress, diagnosticCode: r.diagnosticCode })),
    };
  } else if (sesType === 'Complaint') {
    const complaint = complaintSchema.safeParse(detailValue);
    if (!complaint.success) return { kind: 'invalid', reason: `Complaint: complaint.${issue(complaint.error)}` };
    event.source = 'ses';
    event.providerEventId = complaint.data.feedbackId;
    event.complaint = {
      feedbackType: complaint.data.complaintFeedbackType,
      recipients: complaint.data.complainedRecipients.map((r) => r.emailAddress),
    };
  }
  return { kind: 'event', event };
}

// ---- Builders: notifications shaped as SES and SNS deliver them. ----

export const LOCAL_SES_TOPIC_ARN = 'arn:aws:sns:us-east-1:000000000000:local-ses-events';

export interface SnsNotificationEnvelope {
  Type: 'Notification';
  MessageId: string;
  TopicArn: string;
  Message: string;
  Timestamp: string;
  SignatureVersion: string;
  Signature: string;
  SigningCertURL: string;
  UnsubscribeURL: string;
}

/** An SNS Notification as SNS hands it to an SQS subscription without raw message delivery. */
export function buildSnsNotification(
  message: object,
  options: { timestamp: string; messageId?: string; topicArn?: string },
): SnsNotificationEnvelope {
  const topicArn = options.topicArn ?? LOCAL_SES_TOPIC_ARN;
  const region = topicArn.split(':')[3] ?? 'us-east-1';
  return {
    Type: 'Notification',
    MessageId: options.messageId ?? randomUUID(),
    TopicArn: topicArn,
    Message: JSON.stringify(message),
    Timestamp: options.timestamp,
    SignatureVersion: '1',
    // Nothing verifies signatures: the queue policy admits only the topic.
    Signature: 'unsigned',
    SigningCertURL: `https://sns.${region}.amazonaws.com/SimpleNotificationService-unsigned.pem`,
    UnsubscribeURL: `https://sns.${region}.amazonaws.com/?Action=Unsubscribe&SubscriptionArn=${topicArn}:unsubscribe`,
  };
}

/**
 * A deterministic SNS MessageId for a simulated notification: the same provider message and SES
 * event type always give the same id. Ingest dedups non-feedback events on the SNS MessageId, so a
 * notification the simulator queues again (a send retried after a crash) is recognised as the same
 * provider event and recorded once. Shaped as a UUID (version 8, RFC 9562's custom layout) cut
 * from SHA-256, like SNS's own ids.
 */
export function simulatedSnsMessageId(providerMessageId: string, sesEventType: string): string {
  const h = sha256Hex(`${providerMessageId}\n${sesEventType}`);
  const variant = ((parseInt(h[16] as string, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

export interface SesMailInput {
  /** When SES accepted the message. */
  timestamp: string;
  providerMessageId: string;
  from: string;
  to: string;
  subject: string;
  /** Our ids, sent as message tags; event publishing passes them back. */
  messageId?: string;
  accountId?: string;
  configurationSet?: string;
}

export interface SesMail {
  timestamp: string;
  messageId: string;
  source: string;
  destination: string[];
  tags: Record<string, string[]>;
  commonHeaders: { from: string[]; to: string[]; subject: string };
}

/** The `mail` object of an event publishing notification. */
export function buildSesMail(input: SesMailInput): SesMail {
  const tags: Record<string, string[]> = {};
  if (input.messageId) tags[MESSAGE_TAG] = [input.messageId];
  if (input.accountId) tags[ACCOUNT_TAG] = [input.accountId];
  tags['ses:configuration-set'] = [input.configurationSet ?? 'local'];
  return {
    timestamp: input.timestamp,
    messageId: input.providerMessageId,
    source: input.from,
    destination: [input.to],
    tags,
    commonHeaders: { from: [input.from], to: [input.to], subject: input.subject },
  };
}

export interface SesDeliveryEvent {
  eventType: 'Delivery';
  mail: SesMail;
  delivery: { timestamp: string; processingTimeMillis: number; recipients: string[]; smtpResponse: string; reportingMTA: string };
}

/** An event publishing Delivery notification: delivery.timestamp is mail.timestamp plus the processing time. */
export function buildSesDeliveryEvent(
  mail: SesMail,
  options: { processingTimeMillis: number; smtpResponse?: string; reportingMTA?: string },
): SesDeliveryEvent {
  return {
    eventType: 'Delivery',
    mail,
    delivery: {
      timestamp: new Date(new Date(mail.timestamp).getTime() + options.processingTimeMillis).toISOString(),
      processingTimeMillis: options.processingTimeMillis,
      recipients: mail.destination,
      smtpResponse: options.smtpResponse ?? '250 2.0.0 OK (local SES emulator)',
      reportingMTA: options.reportingMTA ?? 'local',
    },
  };
}
