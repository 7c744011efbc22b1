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
