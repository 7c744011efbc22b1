// Feeding mail to the Mail app as production does: a raw RFC 822 message where SES's S3 action
// would store it, and its receipt notification (in its SNS envelope) through the real inbound
// worker under its manifest needs. Plus the error-envelope assertion the Mail tests share.
import { receiptJob } from './receipt';
import { expect } from 'vitest';
import { handler as receiveRaw } from '../../functions/inbound/receive-email';
import { giveVerifiedDomain } from './domains';
import { underNeeds } from './grants';
import { sqsEvent, sqsRecord } from './sqs';
import type { Testbed } from './testbed';

const receive = underNeeds('functions/inbound/receive-email.ts', receiveRaw);
let seq = 0;

/** A verified domain of the account with inbound enabled. */
export async function inboundDomain(bed: Testbed, domain: string, accountId = bed.account.account_id): Promise<void> {
  await giveVerifiedDomain(bed.c, accountId, domain, { inbound_enabled: true });
}

export interface Arrival {
  /** The queue job; hand it to `redeliver` to play SQS delivering it again. */
  job: unknown;
}

/** A message's headers and text as a raw message. */
export function rawMail(m: { from?: string; to: string; subject: string; text?: string; messageId?: string; inReplyTo?: string; references?: string }): string {
  const headers = [
    `From: ${m.from ?? 'alice@sender.test'}`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
    ...(m.messageId ? [`Message-ID: ${m.messageId}`] : []),
    ...(m.inReplyTo ? [`In-Reply-To: ${m.inReplyTo}`] : []),
    ...(m.references ? [`References: ${m.references}`] : []),
  ];
  return `${headers.join('\r\n')}\r\n\r\n${m.text ?? 'hello'}\r\n`;
}

/**
 * A message with a text part and one PDF attachment: by default c.pdf of 9 bytes from
 * alice@sender.test, without a Message-ID.
 */
export function rawMailWithAttachment(m: { to: string; subject: string; text: string; from?: string; messageId?: string; pdf?: { filename: string; content: string } }): string {
  const pdf = m.pdf ?? { filename: 'c.pdf', content: '%PDF-1.4\n' };
  return [
    `From: ${m.from ?? 'alice@sender.test'}`,
    `To: ${m.to}`,
    `Subject: ${m.subject}`,
    ...(m.messageId ? [`Message-ID: ${m.messageId}`] : []),
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="b"',
    '',
    '--b',
    'Content-Type: text/plain',
    '',
    m.text,
    '--b',
    `Content-Type: application/pdf; name="${pdf.filename}"`,
    `Content-Disposition: attachment; filename="${pdf.filename}"`,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(pdf.content).toString('base64'),
    '--b--',
    '',
  ].join('\r\n');
}

/** Stores `raw` and runs the worker on its notification, one second after the last arrival. */
export async function arrive(bed: Testbed, raw: string, recipients: string[]): Promise<Arrival> {
  bed.c.clock.advance(1000);
  const sesMessageId = `ses-mail-${++seq}`;
  const objectKey = `inbound/${sesMessageId}`;
  await bed.c.objects.put(objectKey, Buffer.from(raw), 'message/rfc822');
  const job = receiptJob({ objectKey, recipients, sesMessageId, at: bed.c.clock.now().toISOString() });
  await redeliver({ job });
  return { job };
}

/** The worker runs the same job again (SQS redelivers it). */
export async function redeliver(arrival: Arrival, receiveCount = 1): Promise<void> {
  expect(await receive(sqsEvent([sqsRecord(arrival.job, receiveCount)]))).toEqual({ batchItemFailures: [] });
}
