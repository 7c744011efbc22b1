// SES receiving's notification of a stored message, wrapped as SNS delivers it to the inbound
// queue: what the inbound worker consumes. One builder for every test that feeds the worker.
import { asSnsEnvelope, type ReceiptNotification } from '../../shared/inbound-mail/receipt/messages';

type Verdicts = Partial<Record<'spf' | 'dkim' | 'dmarc' | 'spam' | 'virus', string>>;

export function receiptJob(input: { objectKey: string; recipients: string[]; sesMessageId: string; at: string; verdicts?: Verdicts; source?: string }): unknown {
  const v = { spf: 'PASS', dkim: 'PASS', dmarc: 'GRAY', spam: 'PASS', virus: 'PASS', ...input.verdicts };
  const n: ReceiptNotification = {
    notificationType: 'Received',
    mail: { timestamp: input.at, source: input.source ?? 'alice@sender.test', messageId: input.sesMessageId, destination: input.recipients },
    receipt: {
      timestamp: input.at,
      recipients: input.recipients,
      spfVerdict: { status: v.spf },
      dkimVerdict: { status: v.dkim },
      dmarcVerdict: { status: v.dmarc },
      spamVerdict: { status: v.spam },
      virusVerdict: { status: v.virus },
      action: { type: 'S3', bucketName: 'bucket', objectKey: input.objectKey },
    },
  };
  return asSnsEnvelope(n, `sns-${input.sesMessageId}`);
}
