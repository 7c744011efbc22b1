// Plays the Lambda SQS event source: receives batches, calls the same handler export, deletes
// what succeeded, and leaves each reported failure on the queue to be received again; after the
// queue's maxReceiveCount attempts it moves the message to the DLQ. Two optional hooks report what
// became of each message (the local runtime's queue journal listens).
//
// The poller counts attempts and dead-letters itself; the emulator's queues have no redrive policy
// (provision.ts). local-aws-sqs counts every receive, and moves a message once its count reaches
// maxReceiveCount when its visibility runs out; a batch slower than the retry delay is received
// again by other lanes, which leave it alone (`handling`) but still add to that count. Left to the
// emulator, such a message would reach the DLQ while its handler still worked on it (the journal
// never told, the message lost until a restart when that handler then failed), and its next real
// attempt would look like its last (`finalAttempt`), recording a transient failure as final.
import {
  DeleteMessageBatchCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { type QueueDef, type QueueName } from '../shared/platform';
import { describeError, type Logger } from '../shared/adapters/logger';

export type QueueHandler = (event: SQSEvent) => Promise<SQSBatchResponse | void>;

/** A message the poller is done with, as it was sent. */
export interface PolledRecord {
  queue: QueueName;
  body: string;
}

export interface PollerOptions {
  queue: QueueDef;
  url: string;
  arn: string;
  /**
   * Where a message that failed its last attempt goes: the queue's DLQ. Defaults to `<url>-dlq`,
   * the name provision.ts gives each queue's DLQ.
   */
  dlqUrl?: string;
  region: string;
  handler: QueueHandler;
  /**
   * Seconds a received message stays invisible (at least 1): a failed message is offered again
   * after it, and a handler slower than it may see its batch again.
   */
  retryDelaySeconds: number;
  logger: Logger;
  /**
   * Long-poll wait. Defaults to 0 with a short pause when the queue is empty: local-aws-sqs holds a
   * long poll for its whole wait unless a full batch arrives, which would add a second per hop.
   */
  waitTimeSeconds?: number;
  /** Pause after an empty receive (default 100 ms). */
  idleMs?: number;
  /**
   * Receive-handle-delete passes of this queue that may run at once (default 1), as Lambda runs
   * several batches of one queue at once. Each lane is its own loop; `turn` bounds them all.
   */
  lanes?: number;
  /**
   * Each receive-handle-delete pass runs inside this, which may hold it back (the local runtime's
   * Admission bounds consumer batches and lets a busy API go first). Default: runs it at once.
   */
  turn?: <T>(pass: () => Promise<T>) => Promise<T>;
  /** Called after DeleteMessageBatch with the records it deleted. */
  onDeleted?: (records: readonly PolledRecord[]) => void | Promise<void>;
  /**
   * Called with the records that failed their last attempt (the queue's maxReceiveCount), just
   * before the poller moves them to the DLQ instead of leaving them to be offered again: whatever
   * finds a message in the DLQ (a staff redrive) finds the hook told already.
   */
  onDeadLettered?: (records: readonly PolledRecord[]) => void | Promise<void>;
}

/** `attempt`: how many times this poller has handed the message to the handler, this one included. */
function toRecord(message: Message, attempt: number, options: PollerOptions): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId as string,
    receiptHandle: message.ReceiptHandle as string,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: String(attempt),
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: {},
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: options.arn,
    awsRegion: options.region,
  };
}

export class QueuePoller {
  private running = false;
  private loops: Array<Promise<void>> = [];
  /**
   * Messages a lane is handling now. A batch slower than the visibility timeout lets its messages
   * be received again while it still works on them; another lane that receives one of them leaves
   * it alone (neither handles nor deletes it), so no message is handled twice at once.
   */
  private readonly handling = new Set<string>();
  /**
   * Attempts so far of each message still on the queue: the handler's real tries, not the
   * emulator's receive count, which also counts the receives `handling` made another lane skip.
   */
  private readonly attempts = new Map<string, number>();

  constructor(
    private readonly sqs: SQSClient,
    private readonly options: PollerOptions,
  ) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: Math.max(1, this.options.lanes ?? 1) }, (_, lane) => this.run(lane));
  }

  async stop(): Promise<void> {
    this.running = false;
    this.wakeLanes();
    await Promise.all(this.loops);
  }

  /** Lanes other than the first that found the queue empty, waiting for it to have messages again. */
  private parked: Array<() => void> = [];

  private wakeLanes(): void {
    const parked = this.parked;
    this.parked = [];
    for (const wake of parked) wake();
  }

  /** Receives and handles one batch; returns how many messages it saw. */
  async pollOnce(): Promise<number> {
    const { url, queue } = this.options;
    const received = await this.sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: url,
        MaxNumberOfMessages: Math.min(queue.batchSize, 10),
        WaitTimeSeconds: this.options.waitTimeSeconds ?? 0,
        // Lambda leaves a failed message invisible for the visibility timeout; locally the retry
        // delay plays that part. (Changing visibility afterwards would count as another receive in
        // local-aws-sqs; the poller counts attempts itself, so it could, but has no need to.)
        VisibilityTimeout: Math.max(1, this.options.retryDelaySeconds),
        AttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const all = received.Messages ?? [];
    if (all.length === 0) return 0;
    // There is work: the lanes that found none start receiving again.
    this.wakeLanes();
    const messages = all.filter((m) => !this.handling.has(m.MessageId as string));
    if (messages.length === 0) return all.length;
    for (const m of messages) this.handling.add(m.MessageId as string);
    try {
      await this.handle(messages);
    } finally {
      for (const m of messages) this.handling.delete(m.MessageId as string);
    }
    return all.length;
  }

  private async handle(messages: Message[]): Promise<void> {
    const { url, queue } = this.options;
    const records = messages.map((m) => {
      const attempt = (this.attempts.get(m.MessageId as string) ?? 0) + 1;
      this.attempts.set(m.MessageId as string, attempt);
      return toRecord(m, attempt, this.options);
    });
    let failedIds: Set<string>;
    try {
      const response = await this.options.handler({ Records: records });
      failedIds = new Set((response?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      // A thrown handler fails the whole batch, as in Lambda.
      this.options.logger.error('queue handler failed the batch', { queue: queue.name, error: describeError(error) });
      failedIds = new Set(records.map((r) => r.messageId));
    }
    const done = records.filter((r) => !failedIds.has(r.messageId));
    if (done.length > 0) {
      const deleted = await this.sqs.send(
        new DeleteMessageBatchCommand({ QueueUrl: url, Entries: done.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
      );
      const notDeleted = new Set((deleted.Failed ?? []).map((f) => f.Id));
      const gone = done.filter((_, i) => !notDeleted.has(String(i)));
      for (const r of gone) this.attempts.delete(r.messageId);
      if (gone.length > 0) await this.options.onDeleted?.(gone.map((r) => ({ queue: queue.name, body: r.body })));
    }
    const dead = records.filter((r) => failedIds.has(r.messageId) && Number(r.attributes.ApproximateReceiveCount) >= queue.maxReceiveCount);
    if (dead.length > 0) await this.deadLetter(dead);
  }

  /**
   * Moves messages that failed their last attempt to the DLQ, as a redrive policy would: the hook
   * first, then a copy into the DLQ, then the original deleted. The hook goes first so that a
   * message is never in the DLQ before the journal holds it dead: a staff redrive that took it out
   * of the DLQ in between would otherwise be undone by the late `dead` (issue 32). A kill after the
   * hook puts it in the DLQ at the restart (the journal's replay); the emulator lost both copies.
   */
  private async deadLetter(records: SQSRecord[]): Promise<void> {
    const { url, queue } = this.options;
    const dlqUrl = this.options.dlqUrl ?? `${url}-dlq`;
    await this.options.onDeadLettered?.(records.map((r) => ({ queue: queue.name, body: r.body })));
    // One by one: ten bodies of up to 256 KiB would not fit one 1 MiB batch, and this is rare.
    for (const r of records) await this.sqs.send(new SendMessageCommand({ QueueUrl: dlqUrl, MessageBody: r.body }));
    await this.sqs.send(
      new DeleteMessageBatchCommand({ QueueUrl: url, Entries: records.map((r, i) => ({ Id: String(i), ReceiptHandle: r.receiptHandle })) }),
    );
    for (const r of records) this.attempts.delete(r.messageId);
    this.options.logger.warn('queue messages moved to the DLQ after their last attempt', { queue: queue.name, count: records.length });
  }

  /**
   * One lane's loop. On an empty queue only the first lane keeps asking (every idleMs); the others
   * wait until a receive finds messages, so an idle queue costs one receive per pause, not one per lane.
   */
  private async run(lane: number): Promise<void> {
    while (this.running) {
      try {
        const seen = this.options.turn ? await this.options.turn(() => this.pollOnce()) : await this.pollOnce();
        if (seen === 0 && lane > 0 && this.running) await new Promise<void>((resolve) => this.parked.push(resolve));
        else if (seen === 0) await new Promise((resolve) => setTimeout(resolve, this.options.idleMs ?? 100));
      } catch (error) {
        if (!this.running) break;
        this.options.logger.warn('queue poll failed; retrying', { queue: this.options.queue.name, error: describeError(error) });
        await new Promise((resolve) => setTimeout(resolve, 500));
      }
    }
  }
}
