// The inbound queue: SES's receipt notifications (locally the SMTP listener's) into stored inbound
// emails and email.received events (shared/inbound-mail/receipt/receive.ts). A failure is retried, then the
// notification goes to the DLQ: a received message is never dropped silently.
import { inboundJob } from '../../shared/inbound-mail/receipt/messages';
import { receiveInbound } from '../../shared/inbound-mail/receipt/receive';
import { consume } from '../../shared/runtime/consume';
import { receiptListeners } from '../../shared/runtime/receipt-listeners';

export const handler = consume('inbound', inboundJob, async (notification, { container: c, recordId, perBatch }) => {
  // The batch's memo: an account's webhook subscriptions are read once for all its records.
  const outcomes = await receiveInbound({ ...c, perBatch }, receiptListeners(c), notification);
  c.logger.info('inbound message received', { sqsMessageId: recordId, sesMessageId: notification.mail.messageId, outcomes });
});
