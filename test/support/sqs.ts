// SQS events as the Lambda event source hands them to a queue consumer.
import type { SQSEvent, SQSRecord } from 'aws-lambda';

let counter = 0;

export function sqsRecord(body: unknown, receiveCount = 1): SQSRecord {
  const id = `m-${++counter}`;
  return {
    messageId: id,
    receiptHandle: `rh-${id}`,
    body: typeof body === 'string' ? body : JSON.stringify(body),
    attributes: { ApproximateReceiveCount: String(receiveCount), SentTimestamp: '0', SenderId: 'test', ApproximateFirstReceiveTimestamp: '0' },
    messageAttributes: {},
    md5OfBody: '',
    eventSource: 'aws:sqs',
    eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:test',
    awsRegion: 'us-east-1',
  };
}

export const sqsEvent = (records: SQSRecord[]): SQSEvent => ({ Records: records });

type Recorded = { queue: string; body: unknown; delaySeconds?: number };
type Consumer = (event: SQSEvent) => Promise<{ batchItemFailures: Array<{ itemIdentifier: string }> }>;

/**
 * Runs the consumer on each job the test container recorded for `queue`, oldest first, one record
 * an invocation, taking each off the recording as Lambda takes it off the queue, until none is left
 * (jobs the consumer queues meanwhile included) or `limit` have run. Every run must succeed.
 * `firstAttemptsOnly` drops jobs sent with a delay (retries) instead of running them.
 */
export async function drain(sent: Recorded[], queue: string, consumer: Consumer, options: { limit?: number; firstAttemptsOnly?: boolean } = {}): Promise<number> {
  let ran = 0;
  for (let index = sent.findIndex((s) => s.queue === queue); index >= 0 && ran < (options.limit ?? Infinity); index = sent.findIndex((s) => s.queue === queue)) {
    const [job] = sent.splice(index, 1);
    if (options.firstAttemptsOnly && job?.delaySeconds) continue;
    const out = await consumer(sqsEvent([sqsRecord(job?.body)]));
    if (out.batchItemFailures.length > 0) throw new Error(`the ${queue} consumer failed a job: ${JSON.stringify(job?.body).slice(0, 300)}`);
    ran++;
  }
  return ran;
}
