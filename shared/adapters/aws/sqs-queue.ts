import { SendMessageBatchCommand, SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { type QueueName } from '../../platform';
import { RetryableError } from '../../errors';
import type { Queue } from '../../ports/queue';

/** SQS in AWS and the embedded local-aws-sqs locally: the same client, another endpoint. */
export class SqsQueue implements Queue {
  constructor(
    private readonly client: SQSClient,
    private readonly urls: Partial<Record<QueueName, string>>,
  ) {}

  private url(queue: QueueName): string {
    const url = this.urls[queue];
    if (!url) throw new Error(`queue ${queue} is not configured for this function`);
    return url;
  }

  async send(queue: QueueName, body: unknown, options: { delaySeconds?: number } = {}): Promise<void> {
    await this.client.send(
      new SendMessageCommand({ QueueUrl: this.url(queue), MessageBody: JSON.stringify(body), DelaySeconds: options.delaySeconds }),
    );
  }

  async sendBatch(queue: QueueName, bodies: readonly unknown[]): Promise<void> {
    const url = this.url(queue);
    for (let start = 0; start < bodies.length; start += 10) {
      let entries = bodies.slice(start, start + 10).map((body, i) => ({ Id: String(i), MessageBody: JSON.stringify(body) }));
      for (let attempt = 0; entries.length > 0; attempt++) {
        if (attempt > 4) throw new RetryableError(`sendBatch to ${queue}: ${entries.length} messages not accepted`);
        if (attempt > 0) await new Promise((resolve) => setTimeout(resolve, 50 * 2 ** attempt));
        const out = await this.client.send(new SendMessageBatchCommand({ QueueUrl: url, Entries: entries }));
        const senderFault = (out.Failed ?? []).find((f) => f.SenderFault);
        if (senderFault) throw new Error(`sendBatch to ${queue}: message refused (${senderFault.Code}: ${senderFault.Message})`);
        const failed = new Set((out.Failed ?? []).map((f) => f.Id));
        entries = entries.filter((e) => failed.has(e.Id));
      }
    }
  }
}
