// SQS events as the Lambda event source hands them to a queue consumer.
import type { SQSEvent, SQSRecord } from 'aws-lambda';

let counter = 0;

/** `messageId` names the record where a test asserts on the batch item failures it reports. */
export function sqsRecord(body: unknown, receiveCount = 1, messageId = `m-${++counter}`): SQSRecord {
  return {
    messageId,
    receiptHandle: `rh-${messageId}`,
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

/** The bodies of the jobs recorded for `queue` that pass `where`, taken off the recording: for a test that hands them on as one batch. */
export function takeJobs(sent: Recorded[], queue: string, where: (body: any) => boolean = () => true): unknown[] {
  const picked = sent.filter((s) => s.queue === queue && where(s.body));
  for (const job of picked) sent.splice(sent.indexOf(job), 1);
  return picked.map((s) => s.body);
}

export interface DrainOptions {
  /** Stop after this many runs. */
  limit?: number;
  /** Drop jobs sent with a delay (retries) instead of running them. */
  firstAttemptsOnly?: boolean;
  /** Run only the jobs whose body passes; the others stay recorded, unrun. */
  where?: (body: any) => boolean;
  /** Leave each job recorded after running it (for a test that reads what was queued afterwards); each still runs once. */
  keep?: boolean;
}

/**
 * Runs the consumer on each job the test container recorded for `queue`, oldest first, one record
 * an invocation, taking each off the recording as Lambda takes it off the queue, until none is left
 * (jobs the consumer queues meanwhile included) or `limit` have run. Every run must succeed.
 */
export async function drain(sent: Recorded[], queue: string, consumer: Consumer, options: DrainOptions = {}): Promise<number> {
  const wanted = (s: Recorded) => s.queue === queue && (!options.where || options.where(s.body));
  let ran = 0;
  for (let from = 0; ran < (options.limit ?? Infinity); ) {
    const index = sent.findIndex((s, i) => i >= from && wanted(s));
    if (index < 0) break;
    const job = sent[index] as Recorded;
    if (options.keep) from = index + 1;
    else sent.splice(index, 1);
    if (options.firstAttemptsOnly && job.delaySeconds) continue;
    const out = await consumer(sqsEvent([sqsRecord(job.body)]));
    if (out.batchItemFailures.length > 0) throw new Error(`the ${queue} consumer failed a job: ${JSON.stringify(job.body).slice(0, 300)}`);
    ran++;
  }
  return ran;
}
