// QueuePoller against the embedded local-aws-sqs, with the queues and DLQs the stack would create.
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type Message,
} from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queues, type QueueDef, type QueueName } from '../../shared/platform';
import type { Logger } from '../../shared/adapters/logger';
import { startSqs, type Running } from '../../local/emulators';
import { ensureQueues, type ProvisionedQueues } from '../../local/provision';
import { QueuePoller, type PollerOptions, type PolledRecord, type QueueHandler } from '../../local/queue-poller';
import { waitFor } from '../support/wait';

const REGION = 'us-east-1';
/** Every wait below fails after this long; a redelivery takes about a second at most. */
const DEADLINE_MS = 10_000;

let sqsServer: Running;
let sqs: SQSClient;
let provisioned: ProvisionedQueues;

beforeAll(async () => {
  sqsServer = await startSqs();
  sqs = new SQSClient({
    endpoint: sqsServer.endpoint,
    region: REGION,
    credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
  });
  provisioned = await ensureQueues(sqs);
});

afterAll(async () => {
  sqs?.destroy();
  await sqsServer?.close();
});

function queueDef(name: QueueName): QueueDef {
  const def = queues.find((q) => q.name === name);
  if (!def) throw new Error(`no queue ${name} in the manifest`);
  return def;
}

interface RecordingLogger extends Logger {
  lines: { level: string; msg: string; fields?: Record<string, unknown> }[];
}

function recordingLogger(): RecordingLogger {
  const lines: RecordingLogger['lines'] = [];
  const at = (level: string) => (msg: string, fields?: Record<string, unknown>) => {
    lines.push({ level, msg, fields });
  };
  return { lines, debug: at('debug'), info: at('info'), warn: at('warn'), error: at('error') };
}

function poller(
  name: QueueName,
  handler: QueueHandler,
  logger: Logger = recordingLogger(),
  hooks: Pick<PollerOptions, 'onDeleted' | 'onDeadLettered'> = {},
  client: SQSClient = sqs,
): QueuePoller {
  return new QueuePoller(client, {
    queue: queueDef(name),
    url: provisioned.urls[name],
    arn: provisioned.arns[name],
    dlqUrl: provisioned.dlqUrls[name],
    region: REGION,
    handler,
    retryDelaySeconds: 0,
    waitTimeSeconds: 0,
    logger,
    ...hooks,
  });
}

async function enqueue(name: QueueName, bodies: readonly unknown[]): Promise<void> {
  const out = await sqs.send(
    new SendMessageBatchCommand({
      QueueUrl: provisioned.urls[name],
      Entries: bodies.map((body, i) => ({ Id: String(i), MessageBody: JSON.stringify(body) })),
    }),
  );
  expect(out.Failed ?? []).toEqual([]);
}

/** Both counts zero means every message was deleted or moved (local-aws-sqs counts in-flight ones in both). */
async function depth(url: string): Promise<{ visible: number; inFlight: number }> {
  const out = await sqs.send(
    new GetQueueAttributesCommand({
      QueueUrl: url,
      AttributeNames: ['ApproximateNumberOfMessages', 'ApproximateNumberOfMessagesNotVisible'],
    }),
  );
  return {
    visible: Number(out.Attributes?.ApproximateNumberOfMessages),
    inFlight: Number(out.Attributes?.ApproximateNumberOfMessagesNotVisible),
  };
}

/**
 * Polls until `done()` holds, and fails naming `what` if it does not within DEADLINE_MS. Each poll
 * returns at once (waitTimeSeconds 0); a failed message comes back only once its visibility
 * timeout has run out in local-aws-sqs, which the test can only find out by receiving again.
 */
async function pollUntil(p: QueuePoller, what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(
    async () => {
      while (!(await done())) if ((await p.pollOnce()) === 0) return false;
      return true;
    },
    { what, timeoutMs: DEADLINE_MS },
  );
}

async function receiveAll(url: string): Promise<Message[]> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return out.Messages ?? [];
}

describe('QueuePoller', () => {
  it('delivers a batch as an SQSEvent and deletes the messages the handler accepted', async () => {
    // Prepare
    const name: QueueName = 'send';
    const events: SQSEvent[] = [];
    const p = poller(name, async (event) => {
      events.push(event);
      return { batchItemFailures: [] };
    });
    const bodies = [{ n: 1 }, { n: 2 }, { n: 3 }];
    await enqueue(name, bodies);

    // Act
    await pollUntil(p, 'all three messages handed to the handler', () => events.flatMap((e) => e.Records).length >= bodies.length);
    const receivedAfter = await p.pollOnce();

    // Assess
    const records = events.flatMap((e) => e.Records);
    expect(records.map((r) => JSON.parse(r.body))).toEqual(expect.arrayContaining(bodies));
    expect(records).toHaveLength(bodies.length);
    for (const record of records) {
      expect(record.messageId).toMatch(/\S/);
      expect(record.receiptHandle).toMatch(/\S/);
      expect(record.attributes.ApproximateReceiveCount).toBe('1');
      expect(record.eventSource).toBe('aws:sqs');
      expect(record.eventSourceARN).toBe(provisioned.arns[name]);
      expect(record.awsRegion).toBe(REGION);
    }
    expect(new Set(records.map((r) => r.messageId)).size).toBe(bodies.length);
    expect(receivedAfter).toBe(0);
    // Deleted, not merely invisible: the queue's visibility timeout would hide undeleted messages.
    expect(await depth(provisioned.urls[name])).toEqual({ visible: 0, inFlight: 0 });
  });

  it('redelivers only the messages the handler reported as failed', async () => {
    // Prepare
    const name: QueueName = 'webhooks';
    const seen: SQSRecord[] = [];
    let failId: string | undefined;
    const p = poller(name, async (event): Promise<SQSBatchResponse> => {
      seen.push(...event.Records);
      // Fail the message with body { n: 2 } the first time only.
      const target = event.Records.find((r) => JSON.parse(r.body).n === 2 && r.attributes.ApproximateReceiveCount === '1');
      if (target) failId = target.messageId;
      return { batchItemFailures: target ? [{ itemIdentifier: target.messageId }] : [] };
    });
    await enqueue(name, [{ n: 1 }, { n: 2 }, { n: 3 }]);
    await pollUntil(p, 'the first delivery of all three messages', () => seen.length >= 3);
    expect(failId).toBeDefined();
    const firstPass = seen.length;

    // Act
    await pollUntil(p, 'the failed message to come back', () => seen.length > firstPass);

    // Assess
    const again = seen.slice(firstPass);
    expect(again).toHaveLength(1);
    expect(again[0]?.messageId).toBe(failId);
    expect(JSON.parse(again[0]?.body ?? '{}')).toEqual({ n: 2 });
    expect(again[0]?.attributes.ApproximateReceiveCount).toBe('2');
    expect(await p.pollOnce()).toBe(0);
    // Nothing left, visible or in flight: the accepted messages were deleted on the first pass.
    expect(await depth(provisioned.urls[name])).toEqual({ visible: 0, inFlight: 0 });
  });

  it('moves a message that always fails to the DLQ after maxReceiveCount receives', async () => {
    // Prepare
    const name: QueueName = 'fanout';
    const { maxReceiveCount } = queueDef(name);
    const receiveCounts: string[] = [];
    const p = poller(name, async (event) => {
      receiveCounts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
      return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await enqueue(name, [{ doomed: true }]);

    const dlq: Message[] = [];

    // Act
    await pollUntil(p, 'the message to reach the DLQ', async () => {
      dlq.push(...(await receiveAll(provisioned.dlqUrls[name])));
      return dlq.length > 0;
    });

    // Assess
    expect(receiveCounts).toEqual(Array.from({ length: maxReceiveCount }, (_, i) => String(i + 1)));
    expect(dlq.map((m) => JSON.parse(m.Body ?? '{}'))).toEqual([{ doomed: true }]);
    expect(await depth(provisioned.urls[name])).toEqual({ visible: 0, inFlight: 0 });
  });

  it('treats a thrown handler as a failed batch and redelivers every message of it', async () => {
    // Prepare
    const name: QueueName = 'ses-events';
    const logger = recordingLogger();
    const seen: SQSRecord[] = [];
    let throwNext = true;
    const p = poller(
      name,
      async (event) => {
        seen.push(...event.Records);
        if (throwNext) {
          throwNext = false;
          throw new Error('provider down');
        }
      },
      logger,
    );
    await enqueue(name, [{ n: 1 }, { n: 2 }]);
    await pollUntil(p, 'the batch the handler throws on', () => !throwNext);
    const failedBatch = [...seen];

    // Act
    await pollUntil(p, 'the failed batch to come back', () => seen.length >= failedBatch.length * 2);

    // Assess
    expect(failedBatch).toHaveLength(2);
    const redelivered = seen.slice(failedBatch.length);
    expect(redelivered.map((r) => r.messageId).sort()).toEqual(failedBatch.map((r) => r.messageId).sort());
    expect(redelivered.map((r) => r.attributes.ApproximateReceiveCount)).toEqual(['2', '2']);
    expect(logger.lines).toContainEqual(
      expect.objectContaining({ level: 'error', msg: 'queue handler failed the batch', fields: expect.objectContaining({ queue: name }) }),
    );
    expect(await depth(provisioned.urls[name])).toEqual({ visible: 0, inFlight: 0 });
  });

  it('reports the records it deleted, and those that failed their last receive, to its hooks', async () => {
    // Prepare
    const name: QueueName = 'fanout';
    const { maxReceiveCount } = queueDef(name);
    const deleted: PolledRecord[][] = [];
    const dead: PolledRecord[][] = [];
    const receiveCounts: string[] = [];
    const p = poller(
      name,
      async (event) => {
        receiveCounts.push(...event.Records.filter((r) => JSON.parse(r.body).hooks === 'doomed').map((r) => r.attributes.ApproximateReceiveCount));
        return { batchItemFailures: event.Records.filter((r) => JSON.parse(r.body).hooks === 'doomed').map((r) => ({ itemIdentifier: r.messageId })) };
      },
      recordingLogger(),
      { onDeleted: (records) => void deleted.push([...records]), onDeadLettered: (records) => void dead.push([...records]) },
    );
    await enqueue(name, [{ hooks: 'fine' }, { hooks: 'doomed' }]);

    // Act
    await pollUntil(p, 'the failing message to fail its last receive', () => dead.length > 0);
    await pollUntil(p, 'the failing message to move to the DLQ', async () => {
      const { visible, inFlight } = await depth(provisioned.urls[name]);
      return visible + inFlight === 0;
    });

    // Assess
    expect(deleted).toEqual([[{ queue: name, body: JSON.stringify({ hooks: 'fine' }) }]]);
    expect(dead).toEqual([[{ queue: name, body: JSON.stringify({ hooks: 'doomed' }) }]]);
    expect(receiveCounts).toEqual(Array.from({ length: maxReceiveCount }, (_, i) => String(i + 1)));
  });

  it('neither counts nor dead-letters a message while it is handled, however often another lane receives it meanwhile', async () => {
    // Prepare: a handler slower than the retry delay (1 s) lets the queue offer its message again;
    // another lane of the same poller receives it each time and leaves it alone. The emulator
    // counts each of those receives, and moved the message to the DLQ at maxReceiveCount of them.
    const name: QueueName = 'fanout';
    const { maxReceiveCount } = queueDef(name);
    const received = new Map<string, number>();
    const spy = {
      send: async (command: Parameters<SQSClient['send']>[0]) => {
        const out = (await sqs.send(command as never)) as { Messages?: Message[] };
        if (command instanceof ReceiveMessageCommand) {
          for (const m of out.Messages ?? []) received.set(m.MessageId as string, (received.get(m.MessageId as string) ?? 0) + 1);
        }
        return out;
      },
    } as unknown as SQSClient;
    const attempts: string[] = [];
    const dead: PolledRecord[][] = [];
    let release: (() => void) | undefined;
    const p = poller(
      name,
      async (event) => {
        attempts.push(...event.Records.map((r) => r.attributes.ApproximateReceiveCount));
        if (attempts.length > 1) return;
        // The first attempt fails transiently, once the queue has offered it again more often than
        // maxReceiveCount (or has moved it away).
        await new Promise<void>((resolve) => (release = resolve));
        return { batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) };
      },
      recordingLogger(),
      { onDeadLettered: (records) => void dead.push([...records]) },
      spy,
    );
    await enqueue(name, [{ slow: true }]);
    // One lane: receives until it has the message, and is then held in its handler.
    const firstLane = (async () => {
      while ((await p.pollOnce()) === 0);
    })();
    await waitFor(() => release !== undefined, { what: 'the first attempt to start', timeoutMs: DEADLINE_MS });
    const [id] = [...received.keys()];

    // Act: play the other lane until the emulator offered the message past maxReceiveCount
    // receives, or the queue no longer holds it (the emulator moved it to the DLQ).
    await waitFor(
      async () => {
        await p.pollOnce();
        const { visible, inFlight } = await depth(provisioned.urls[name]);
        return (received.get(id as string) ?? 0) > maxReceiveCount || visible + inFlight === 0;
      },
      { what: 'the queue to offer the handled message again past maxReceiveCount', timeoutMs: DEADLINE_MS },
    );
    (release as () => void)();
    await firstLane;
    await pollUntil(p, 'the failed message to come back for its second attempt', () => attempts.length >= 2);

    // Assess: the second attempt is the second (not past the last), the message was never
    // dead-lettered, and the successful attempt deleted it.
    expect(attempts).toEqual(['1', '2']);
    expect(dead).toEqual([]);
    // (The DLQ may hold the earlier tests' doomed messages.)
    expect((await receiveAll(provisioned.dlqUrls[name])).filter((m) => JSON.parse(m.Body ?? '{}').slow)).toEqual([]);
    expect(await depth(provisioned.urls[name])).toEqual({ visible: 0, inFlight: 0 });
  });
});
