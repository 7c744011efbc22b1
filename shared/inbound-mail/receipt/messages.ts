// The inbound queue's payload: what SES receiving hands on after its S3 action stored a message,
// an SNS envelope whose Message is a `Received` notification (mail + receipt, with the verdicts and
// where the raw message lies). The local SMTP listener sends the same shape.
import * as z from 'zod';
import { snsEnvelope } from '../../sending/ses-events/ses-notification';

const verdict = z.object({ status: z.string().min(1) });

export const receiptNotification = z.object({
  notificationType: z.literal('Received'),
  mail: z.object({
    timestamp: z.string().min(1),
    source: z.string(),
    /** SES's id of the received message: the same on every redelivery. */
    messageId: z.string().min(1),
    destination: z.array(z.string()),
  }),
  receipt: z.object({
    timestamp: z.string().min(1),
    /** The envelope recipients this rule matched: the addresses the message is stored for. */
    recipients: z.array(z.string().min(1)).min(1),
    spfVerdict: verdict,
    dkimVerdict: verdict,
    dmarcVerdict: verdict,
    spamVerdict: verdict,
    virusVerdict: verdict,
    action: z.object({ type: z.literal('S3'), bucketName: z.string(), objectKey: z.string().min(1) }),
  }),
});

export type ReceiptNotification = z.infer<typeof receiptNotification>;

/** A job that cannot be read is poison: it ends in the inbound DLQ, where it can be looked at. */
export const inboundJob = snsEnvelope.transform((sns, ctx) => {
  let inner: unknown;
  try {
    inner = JSON.parse(sns.Message);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'SNS Message is not JSON', input: sns });
    return z.NEVER;
  }
  const parsed = receiptNotification.safeParse(inner);
  if (parsed.success) return parsed.data;
  ctx.addIssue({ code: 'custom', message: `not an SES Received notification: ${parsed.error.issues[0]?.message ?? ''}`, input: sns });
  return z.NEVER;
});

/** The SNS envelope SES's notification arrives in, as the local listener builds it. */
export function asSnsEnvelope(notification: ReceiptNotification, snsMessageId: string): z.input<typeof snsEnvelope> {
  return { Type: 'Notification', MessageId: snsMessageId, Message: JSON.stringify(notification), Timestamp: notification.receipt.timestamp };
}

/** SES's verdict statuses. */
export type SesVerdict = 'PASS' | 'FAIL' | 'GRAY' | 'PROCESSING_FAILED';
