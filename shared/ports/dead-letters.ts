import type { QueueName } from '../platform';

/** One message in a queue's DLQ, as SQS gives it back. */
export interface DeadLetter {
  /** The SQS message id (kept when the redrive policy moved it to the DLQ). */
  id: string;
  /** The exact body sent. */
  body: string;
  /** When it was first sent to its queue (epoch ms), where the transport says. */
  sentAt?: number;
}

/**
 * The DLQs of the queues (one per queue, shared/platform.ts `queues`). SQS has no true peek: a
 * look is a ReceiveMessage whose messages are made visible again at once, so a look at a DLQ with
 * more than 10 messages shows a sample of 10 and its depth is SQS's approximate count.
 */
export interface DeadLetterQueues {
  peek(queue: QueueName): Promise<{ depth: number; messages: DeadLetter[] }>;
  /**
   * Sends these DLQ messages (all when `ids` is omitted) back to their source queue as they are,
   * then deletes them from the DLQ. Answers the ones moved.
   */
  redrive(queue: QueueName, ids?: readonly string[]): Promise<DeadLetter[]>;
}
