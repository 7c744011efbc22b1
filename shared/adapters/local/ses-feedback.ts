// The SES emulator accepts mail but reports nothing back. This wrapper plays SES event publishing
// and SNS: after each accepted send it queues the Delivery notification AWS would put on the
// ses-events queue, so a locally sent message reaches `delivered` through the real ingest path.
//
// It also makes the local handoff idempotent across a crash: when the emulator already holds the
// mail of this message (the worker died after the emulator accepted it, and the job came back), it
// does not send again but answers with that mail's id and when the emulator took it, and queues its
// Delivery again. The notification's SNS MessageId is derived from the mail's id, so ingest sees the
// same provider event however often it is queued, and the timeline gets one `delivered`. The worker
// records `sent` at the time the emulator took the mail, not at the retry: a Delivery ingested
// before the retry stays the newest event, as the status it set says (docs/api-decisions.md).
//
// And it is as durable as SNS → SQS, which never loses a notification SES owes for a mail it took:
// a ledger (DATA_DIR/ses-feedback.jsonl, one line per mail whose notification the queue journal
// holds) says which mails were reported on. At start, before anything polls or sends, `recover`
// queues the notification of every mail the emulator holds (its mail file outlives a kill) and the
// ledger does not name: the mails a kill took between the emulator's answer and the queue.
import { appendFileSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { Queue } from '../../ports/queue';
import type { Clock } from '../../ports/clock';
import type { Mailer, OutboundEmail, SendReceipt } from '../../ports/mailer';
import type { Logger } from '../../ports/logger';
import { buildSesDeliveryEvent, buildSesMail, buildSnsNotification, LOCAL_SES_TOPIC_ARN, simulatedSnsMessageId } from '../../sending/ses-events/ses-notification';

export interface SimulatedSesFeedbackOptions {
  /**
   * delivery.processingTimeMillis: from SES accepting the message to the reported delivery. It
   * also keeps `delivered` strictly after the worker's `sent` on the timeline, as in AWS.
   */
  processingTimeMillis?: number;
  topicArn?: string;
}

/** The mail the SES emulator holds for one of our messages: its id, and when it took it (ISO 8601). */
export interface HeldReceipt {
  providerMessageId: string;
  at: string;
}

/** A mail the SES emulator holds, as the feedback needs it to report on it. */
export interface HeldMail {
  providerMessageId: string;
  /** Ours, from the X-Postbox-Message-Id header. */
  messageId: string;
  from: string;
  to: string;
  subject: string;
  /** When the emulator took it (ISO 8601). */
  at: string;
}

export interface SimulatedSesFeedbackDeps {
  queue: Queue;
  clock: Clock;
  logger: Logger;
  /** The mail the emulator already holds for our message id, if any. */
  sentMail?: (messageId: string) => HeldReceipt | undefined;
  /** Every mail the emulator holds with our message id, and the ledger file: both or neither. */
  durable?: { heldMail: () => HeldMail[]; ledger: string };
}

interface Reported {
  providerMessageId: string;
  messageId: string;
  accountId?: string;
  from: string;
  to: string;
  subject: string;
  timestamp: string;
}

export class SimulatedSesFeedback implements Mailer {
  constructor(
    private readonly inner: Mailer,
    private readonly deps: SimulatedSesFeedbackDeps,
    private readonly options: SimulatedSesFeedbackOptions = {},
  ) {}

  async send(email: OutboundEmail): Promise<SendReceipt> {
    const held = this.deps.sentMail?.(email.messageId);
    if (held) this.deps.logger.info('the SES emulator already holds this message; not sending it again', { messageId: email.messageId, providerMessageId: held.providerMessageId });
    const result: SendReceipt = held ? { providerMessageId: held.providerMessageId, acceptedAt: held.at } : await this.inner.send(email);
    const timestamp = held?.at ?? this.deps.clock.now().toISOString();
    const mail = { providerMessageId: result.providerMessageId, messageId: email.messageId, accountId: email.accountId, from: email.from, to: email.to, subject: email.subject, timestamp };
    try {
      await this.deps.queue.send('ses-events', this.notificationOf(mail));
      this.noteReported([result.providerMessageId]);
    } catch (error) {
      // The mail is already sent: failing here would make the worker send it again. Only the
      // simulated delivery report is late: the queue journal holds it for the next start.
      this.deps.logger.error('simulated SES delivery event not queued', {
        messageId: email.messageId,
        providerMessageId: result.providerMessageId,
        error,
      });
    }
    return result;
  }

  /**
   * Queues the Delivery of every mail the emulator holds that the ledger does not name, then
   * rewrites the ledger as the mails held (all reported now; mail cleared from the viewer drops
   * out). Call it once at start, after the queue journal's replay and before any poller runs. A
   * data directory from before the ledger starts one naming every mail held: those were reported
   * by the code of that time, and reporting them again would only be deduplicated at length.
   */
  async recover(): Promise<number> {
    const durable = this.deps.durable;
    if (!durable) return 0;
    const held = durable.heldMail();
    let owed: HeldMail[] = [];
    if (existsSync(durable.ledger)) {
      const reported = new Set(
        readFileSync(durable.ledger, 'utf8')
          .split('\n')
          .flatMap((line) => {
            try {
              const id = (JSON.parse(line) as { reported?: unknown }).reported;
              return typeof id === 'string' ? [id] : [];
            } catch {
              return []; // a blank line, or a write a kill cut short: that mail is owed, at worst twice
            }
          }),
      );
      owed = held.filter((m) => !reported.has(m.providerMessageId));
    }
    for (const mail of owed) await this.deps.queue.send('ses-events', this.notificationOf({ ...mail, timestamp: mail.at }));
    const tmp = `${durable.ledger}.tmp`;
    rmSync(tmp, { force: true });
    writeFileSync(tmp, lines(held.map((m) => m.providerMessageId)), { mode: 0o600 });
    renameSync(tmp, durable.ledger);
    if (owed.length > 0) this.deps.logger.warn('SES feedback: queued the delivery reports a kill left owed', { count: owed.length, messageIds: owed.slice(0, 10).map((m) => m.messageId) });
    return owed.length;
  }

  private notificationOf(mail: Reported) {
    const sesMail = buildSesMail({
      timestamp: mail.timestamp,
      providerMessageId: mail.providerMessageId,
      from: mail.from,
      to: mail.to,
      subject: mail.subject,
      messageId: mail.messageId,
      accountId: mail.accountId,
    });
    const notification = buildSesDeliveryEvent(sesMail, { processingTimeMillis: this.options.processingTimeMillis ?? 1000 });
    return buildSnsNotification(notification, {
      messageId: simulatedSnsMessageId(mail.providerMessageId, notification.eventType),
      timestamp: notification.delivery.timestamp,
      topicArn: this.options.topicArn ?? LOCAL_SES_TOPIC_ARN,
    });
  }

  /** Appended once the queue journal holds the notification (its send resolved). */
  private noteReported(providerMessageIds: readonly string[]): void {
    if (this.deps.durable) appendFileSync(this.deps.durable.ledger, lines(providerMessageIds), { mode: 0o600 });
  }
}

const lines = (ids: readonly string[]): string => ids.map((id) => `${JSON.stringify({ reported: id })}\n`).join('');
