// The SES emulator accepts mail but reports nothing back. This wrapper plays SES event publishing
// and SNS: after each accepted send it queues the Delivery notification AWS would put on the
// ses-events queue, so a locally sent message reaches `delivered` through the real ingest path.
//
// It also makes the local handoff idempotent across a crash: when the emulator already holds the
// mail of this message (the worker died after the emulator accepted it, and the job came back), it
// does not send again but answers with that mail's id and queues its Delivery again. The
// notification's SNS MessageId is derived from the mail's id, so ingest sees the same provider
// event however often it is queued, and the timeline gets one `delivered`.
import type { Queue } from '../../ports/queue';
import type { Clock } from '../../ports/clock';
import type { Mailer, OutboundEmail } from '../../ports/mailer';
import type { Logger } from '../../runtime/logger';
import { buildSesDeliveryEvent, buildSesMail, buildSnsNotification, LOCAL_SES_TOPIC_ARN, simulatedSnsMessageId } from '../../events/ses-notification';

export interface SimulatedSesFeedbackOptions {
  /**
   * delivery.processingTimeMillis: from SES accepting the message to the reported delivery. It
   * also keeps `delivered` strictly after the worker's `sent` on the timeline, as in AWS.
   */
  processingTimeMillis?: number;
  topicArn?: string;
}

export interface SimulatedSesFeedbackDeps {
  queue: Queue;
  clock: Clock;
  logger: Logger;
  /** The provider id of the mail the emulator already holds for our message id, if any. */
  sentMail?: (messageId: string) => string | undefined;
}

export class SimulatedSesFeedback implements Mailer {
  constructor(
    private readonly inner: Mailer,
    private readonly deps: SimulatedSesFeedbackDeps,
    private readonly options: SimulatedSesFeedbackOptions = {},
  ) {}

  async send(email: OutboundEmail): Promise<{ providerMessageId: string }> {
    const held = this.deps.sentMail?.(email.messageId);
    if (held) this.deps.logger.info('the SES emulator already holds this message; not sending it again', { messageId: email.messageId, providerMessageId: held });
    const result = held ? { providerMessageId: held } : await this.inner.send(email);
    const mail = buildSesMail({
      timestamp: this.deps.clock.now().toISOString(),
      providerMessageId: result.providerMessageId,
      from: email.from,
      to: email.to,
      subject: email.subject,
      messageId: email.messageId,
      accountId: email.accountId,
    });
    const notification = buildSesDeliveryEvent(mail, { processingTimeMillis: this.options.processingTimeMillis ?? 1000 });
    const envelope = buildSnsNotification(notification, {
      messageId: simulatedSnsMessageId(result.providerMessageId, notification.eventType),
      timestamp: notification.delivery.timestamp,
      topicArn: this.options.topicArn ?? LOCAL_SES_TOPIC_ARN,
    });
    try {
      await this.deps.queue.send('ses-events', envelope);
    } catch (error) {
      // The mail is already sent: failing here would make the worker send it again. Only the
      // simulated delivery report is lost, as when SNS cannot reach a subscriber.
      this.deps.logger.error('simulated SES delivery event not queued', {
        messageId: email.messageId,
        providerMessageId: result.providerMessageId,
        error,
      });
    }
    return result;
  }
}
