// Each AWS::Lambda::EventSourceMapping on an SQS queue, as Lambda's poller runs it: it receives
// up to BatchSize messages with the function's own role, invokes the function with the SQS event,
// and deletes what succeeded. With ReportBatchItemFailures the answer's batchItemFailures stay on
// the queue (an answer that is not a valid report fails the whole batch, as Lambda treats it);
// without it, any error leaves the whole batch. What stays is received again after the queue's
// visibility timeout, and the queue's RedrivePolicy moves it to its DLQ after maxReceiveCount.
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { setTimeout as pause } from 'node:timers/promises';
import type { InvokeResult, LambdaError } from './lambda';
import { REHEARSAL_REGION } from './template';

export interface MappingSpec {
  logicalId: string;
  functionLogicalId: string;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  reportBatchItemFailures: boolean;
  enabled: boolean;
}

/** One batch handed to a function, and what became of its messages. */
export interface Delivery {
  mapping: string;
  functionLogicalId: string;
  bodies: string[];
  /** Deleted from the queue: the function took them. */
  succeeded: string[];
  /** Left on the queue, to be received again. */
  failed: string[];
  error?: LambdaError;
}

function toRecord(message: Message, spec: MappingSpec): SQSRecord {
  const a = message.Attributes ?? {};
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: a.ApproximateReceiveCount ?? '1',
      SentTimestamp: a.SentTimestamp ?? String(Date.now()),
      SenderId: a.SenderId ?? '',
      ApproximateFirstReceiveTimestamp: a.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, v]) => [name, { dataType: v.DataType ?? 'String', stringValue: v.StringValue, stringListValues: [], binaryListValues: [] }]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: spec.queueArn,
    awsRegion: REHEARSAL_REGION,
  };
}

/** The message ids a function's answer leaves on the queue; all of them when the answer is not a valid report. */
export function failedIds(spec: Pick<MappingSpec, 'reportBatchItemFailures'>, ids: readonly string[], outcome: InvokeResult): string[] {
  if (!outcome.ok) return [...ids];
  if (!spec.reportBatchItemFailures) return [];
  const result = outcome.result as { batchItemFailures?: unknown } | null;
  if (result === null || result === undefined || typeof result !== 'object' || result.batchItemFailures === undefined || result.batchItemFailures === null) return [];
  if (!Array.isArray(result.batchItemFailures)) return [...ids];
  const failed: string[] = [];
  for (const item of result.batchItemFailures as unknown[]) {
    const id = (item as { itemIdentifier?: unknown } | null)?.itemIdentifier;
    // An empty, missing or unknown identifier fails the whole batch.
    if (typeof id !== 'string' || !ids.includes(id)) return [...ids];
    failed.push(id);
  }
  return failed;
}

export interface Poller {
  stop(): Promise<void>;
}

export function startPoller(options: {
  spec: MappingSpec;
  /** An SQS client with the function role's credentials: the mapping polls as the function's role. */
  client: SQSClient;
  invoke: (event: SQSEvent) => Promise<InvokeResult>;
  onDelivery: (delivery: Delivery) => void;
  onError: (error: unknown) => void;
  idleMs?: number;
}): Poller {
  const { spec, client } = options;
  const abort = new AbortController();
  const loop = (async () => {
    while (!abort.signal.aborted) {
      try {
        // WaitTimeSeconds 0 with a short pause: local-aws-sqs holds a long poll for its whole wait.
        const { Messages = [] } = await client.send(
          new ReceiveMessageCommand({ QueueUrl: spec.queueUrl, MaxNumberOfMessages: Math.min(10, spec.batchSize), WaitTimeSeconds: 0, AttributeNames: ['All'], MessageSystemAttributeNames: ['All'], MessageAttributeNames: ['All'] }),
          { abortSignal: abort.signal },
        );
        if (Messages.length === 0) {
          await pause(options.idleMs ?? 50, undefined, { signal: abort.signal }).catch(() => undefined);
          continue;
        }
        const records = Messages.map((m) => toRecord(m, spec));
        const ids = records.map((r) => r.messageId);
        const outcome = await options.invoke({ Records: records });
        const failed = failedIds(spec, ids, outcome);
        const done = records.filter((r) => !failed.includes(r.messageId));
        for (let i = 0; i < done.length; i += 10) {
          await client.send(new DeleteMessageBatchCommand({ QueueUrl: spec.queueUrl, Entries: done.slice(i, i + 10).map((r, n) => ({ Id: String(n), ReceiptHandle: r.receiptHandle })) }));
        }
        options.onDelivery({
          mapping: spec.logicalId,
          functionLogicalId: spec.functionLogicalId,
          bodies: records.map((r) => r.body),
          succeeded: done.map((r) => r.messageId),
          failed,
          ...(outcome.ok ? {} : { error: outcome.error }),
        });
      } catch (error) {
        if (abort.signal.aborted) break;
        options.onError(error);
        await pause(500, undefined, { signal: abort.signal }).catch(() => undefined);
      }
    }
  })();
  return {
    stop: async () => {
      abort.abort();
      await loop;
    },
  };
}
