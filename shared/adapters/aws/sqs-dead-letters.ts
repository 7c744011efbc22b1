// The DLQs through the SQS API, in AWS and on local-aws-sqs alike. A look is ReceiveMessage with
// VisibilityTimeout 0 (SQS has no peek); a redrive receives the DLQ in rounds of 10 with a short
// visibility, sends each chosen message's exact body to its source queue, deletes it from the DLQ,
// and makes the others visible again at the end. A round that finds nothing is asked again with a
// long poll before the DLQ counts as done: a short poll may answer empty while messages wait (SQS
// samples a subset of its servers; a look of another request holds a message for an instant, and
// local-aws-sqs hands it back and forth for the look's whole 40 ms). One code path for "some" and "all" (not
// StartMessageMoveTask, which the local emulator lacks and which would move messages past the
// local journal).
import {
  ChangeMessageVisibilityBatchCommand,
  DeleteMessageCommand,
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageCommand,
  type Message,
  type SQSClient,
} from '@aws-sdk/client-sqs';
import type { QueueName } from '../../platform';
import type { DeadLetter, DeadLetterQueues } from '../../ports/dead-letters';

/** At most this many receive rounds of 10 per redrive call (1,000 messages): call again for more. */
const MAX_ROUNDS = 100;
/**
 * No round starts after this much of a redrive call: the admin function has 10 s in all
 * (functions/admin/definition.ts), and a round may take a long poll and twenty calls besides. What
 * was moved is answered; the caller calls again for the rest.
 */
const REDRIVE_BUDGET_MS = 6_000;
/** How long a redrive keeps the DLQ messages it received and did not choose out of sight. */
const HOLD_SECONDS = 60;
/** The long poll that confirms an empty short poll: SQS answers it from all its servers. */
const CONFIRM_WAIT_SECONDS = 1;

export interface SqsDeadLettersOptions {
  /** The source queues' URLs (where a redrive sends). */
  urls: Partial<Record<QueueName, string>>;
  dlqUrls: Partial<Record<QueueName, string>>;
  /** Called before a message is sent back (the local runtime journals it, so a kill does not lose it). */
  beforeRedrive?: (queue: QueueName, body: string) => void;
  /** How long a redrive call may go on starting rounds (REDRIVE_BUDGET_MS), on `now`'s clock (Date.now). */
  budgetMs?: number;
  now?: () => number;
}

const toDeadLetter = (m: Message): DeadLetter => {
  const sent = Number(m.Attributes?.SentTimestamp);
  return { id: m.MessageId ?? '', body: m.Body ?? '', ...(Number.isFinite(sent) && sent > 0 ? { sentAt: sent } : {}) };
};

export class SqsDeadLetters implements DeadLetterQueues {
  constructor(
    private readonly client: SQSClient,
    private readonly options: SqsDeadLettersOptions,
  ) {}

  private urlOf(which: 'urls' | 'dlqUrls', queue: QueueName): string {
    const url = this.options[which][queue];
    if (!url) throw new Error(`the ${which === 'urls' ? 'queue' : 'DLQ'} of ${queue} is not configured for this function`);
    return url;
  }

  /**
   * Always receives, whatever the count says: the count is approximate (in SQS it lags; in
   * local-aws-sqs a message just sent is left out of it until the emulator's next tick), so a
   * zero could hide messages. The depth is never less than what the receive saw.
   */
  async peek(queue: QueueName): Promise<{ depth: number; messages: DeadLetter[] }> {
    const url = this.urlOf('dlqUrls', queue);
    const out = await this.client.send(
      new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, VisibilityTimeout: 0, WaitTimeSeconds: 0, AttributeNames: ['All'] }),
    );
    // local-aws-sqs hands a message visible again at once (timeout 0) back within the same receive.
    const seen = new Map<string, DeadLetter>();
    for (const m of out.Messages ?? []) if (!seen.has(m.MessageId ?? '')) seen.set(m.MessageId ?? '', toDeadLetter(m));
    const attributes = await this.client.send(new GetQueueAttributesCommand({ QueueUrl: url, AttributeNames: ['ApproximateNumberOfMessages'] }));
    const depth = Number(attributes.Attributes?.ApproximateNumberOfMessages ?? 0) || 0;
    return { depth: Math.max(depth, seen.size), messages: [...seen.values()] };
  }

  async redrive(queue: QueueName, ids?: readonly string[]): Promise<DeadLetter[]> {
    const dlq = this.urlOf('dlqUrls', queue);
    const source = this.urlOf('urls', queue);
    const wanted = ids ? new Set(ids) : undefined;
    const moved: DeadLetter[] = [];
    const held: Message[] = [];
    try {
      const receive = async (wait: number): Promise<Message[]> =>
        (
          await this.client.send(
            new ReceiveMessageCommand({ QueueUrl: dlq, MaxNumberOfMessages: 10, VisibilityTimeout: HOLD_SECONDS, WaitTimeSeconds: wait, AttributeNames: ['All'] }),
          )
        ).Messages ?? [];
      const now = this.options.now ?? Date.now;
      const until = now() + (this.options.budgetMs ?? REDRIVE_BUDGET_MS);
      for (let round = 0; round < MAX_ROUNDS && (!wanted || wanted.size > 0) && now() < until; round++) {
        let messages = await receive(0);
        if (messages.length === 0 && now() + CONFIRM_WAIT_SECONDS * 1000 <= until) messages = await receive(CONFIRM_WAIT_SECONDS);
        if (messages.length === 0) break;
        for (const m of messages) {
          if (wanted && !wanted.has(m.MessageId ?? '')) {
            held.push(m);
            continue;
          }
          const letter = toDeadLetter(m);
          this.options.beforeRedrive?.(queue, letter.body);
          await this.client.send(new SendMessageCommand({ QueueUrl: source, MessageBody: letter.body }));
          await this.client.send(new DeleteMessageCommand({ QueueUrl: dlq, ReceiptHandle: m.ReceiptHandle }));
          wanted?.delete(letter.id);
          moved.push(letter);
        }
      }
    } finally {
      await this.release(dlq, held);
    }
    return moved;
  }

  /** Makes the messages a redrive looked at but did not choose visible again now. */
  private async release(dlq: string, held: readonly Message[]): Promise<void> {
    for (let start = 0; start < held.length; start += 10) {
      const batch = held.slice(start, start + 10);
      await this.client.send(
        new ChangeMessageVisibilityBatchCommand({ QueueUrl: dlq, Entries: batch.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle, VisibilityTimeout: 0 })) }),
      );
    }
  }
}
