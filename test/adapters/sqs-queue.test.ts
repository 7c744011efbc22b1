// SqsQueue against the embedded local-aws-sqs, and against a mocked client for partial batch failures.
import {
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type SendMessageBatchCommandInput,
} from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { RetryableError } from '../../shared/errors';
import { startSqs, type Running } from '../../local/emulators';
import { ensureQueues, type ProvisionedQueues } from '../../local/provision';
import { waitFor } from '../support/wait';

const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
let sqsServer: Running;
let sqs: SQSClient;
let provisioned: ProvisionedQueues;

beforeAll(async () => {
  sqsServer = await startSqs();
  sqs = new SQSClient({ endpoint: sqsServer.endpoint, region: 'us-east-1', credentials });
  provisioned = await ensureQueues(sqs);
});

afterAll(async () => {
  sqs?.destroy();
  await sqsServer?.close();
});

async function receiveOnce(url: string): Promise<unknown[]> {
  const out = await sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
  return (out.Messages ?? []).map((m) => JSON.parse(m.Body ?? 'null'));
}

/**
 * Receives until `expected` bodies arrived (failing if they do not), then once more: received
 * messages stay in flight, so that last receive sees only messages sent more than once.
 */
async function receiveBodies(url: string, expected: number): Promise<unknown[]> {
  const bodies: unknown[] = [];
  await waitFor(
    async () => {
      bodies.push(...(await receiveOnce(url)));
      return bodies.length >= expected;
    },
    { what: () => `${expected} messages on ${url} (received ${bodies.length})` },
  );
  bodies.push(...(await receiveOnce(url)));
  return bodies;
}

/** A client that is never reached over the network; tests mock its send. */
function offlineClient(): SQSClient {
  return new SQSClient({ endpoint: 'http://127.0.0.1:9', region: 'us-east-1', credentials, maxAttempts: 1 });
}

const URL = 'http://127.0.0.1:9/123456789012/send';

describe('SqsQueue on local-aws-sqs', () => {
  it('sends one body as JSON', async () => {
    // Prepare
    const queue = new SqsQueue(sqs, provisioned.urls);
    const body = { message_id: 'msg_1', to: ['a@example.com'], nested: { n: 1 } };

    // Act
    await queue.send('send', body);

    // Assess
    expect(await receiveBodies(provisioned.urls.send, 1)).toEqual([body]);
  });

  it('sends a batch of 25 bodies and every one arrives once as JSON', async () => {
    // Prepare
    const queue = new SqsQueue(sqs, provisioned.urls);
    const bodies = Array.from({ length: 25 }, (_, i) => ({ seq: i, text: `body ${i}` }));

    // Act
    await queue.sendBatch('webhooks', bodies);

    // Assess
    const received = (await receiveBodies(provisioned.urls.webhooks, bodies.length)) as { seq: number }[];
    expect(received).toHaveLength(bodies.length);
    expect([...received].sort((a, b) => a.seq - b.seq)).toEqual(bodies);
  });
});

describe('SqsQueue with a mocked client', () => {
  // The pause before each retry of a batch is a timer: fake ones run it without waiting for it.
  afterEach(() => {
    vi.useRealTimers();
  });

  it('throws for a queue it has no URL for, without calling SQS', async () => {
    // Prepare
    const client = offlineClient();
    const mock = mockClient(client);
    const queue = new SqsQueue(client, { send: URL });

    // Act
    const single = queue.send('fanout', { x: 1 });
    const batch = queue.sendBatch('fanout', [{ x: 1 }]);

    // Assess
    await expect(single).rejects.toThrow(/fanout/);
    await expect(batch).rejects.toThrow(/fanout/);
    expect(mock.calls()).toHaveLength(0);
    mock.restore();
    client.destroy();
  });

  it('retries only the entry SQS reported as failed', async () => {
    // Prepare
    const client = offlineClient();
    const mock = mockClient(client);
    const calls: SendMessageBatchCommandInput[] = [];
    let failOnce = true;
    mock.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      calls.push(input);
      const entries = input.Entries ?? [];
      const fail = failOnce ? entries.filter((e) => e.Id === '3') : [];
      failOnce = false;
      return {
        Successful: entries.filter((e) => !fail.includes(e)).map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'x' })),
        Failed: fail.map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
      };
    });
    const queue = new SqsQueue(client, { send: URL });
    const bodies = Array.from({ length: 12 }, (_, i) => ({ seq: i }));
    vi.useFakeTimers();

    // Act
    const sent = queue.sendBatch('send', bodies);
    await vi.runAllTimersAsync();
    await sent;

    // Assess
    expect(calls.map((c) => c.Entries?.map((e) => JSON.parse(e.MessageBody ?? 'null').seq))).toEqual([
      [0, 1, 2, 3, 4, 5, 6, 7, 8, 9],
      [3],
      [10, 11],
    ]);
    expect(calls.every((c) => c.QueueUrl === URL)).toBe(true);
    mock.restore();
    client.destroy();
  });

  it('gives up with RetryableError when an entry keeps failing', async () => {
    // Prepare
    const client = offlineClient();
    const mock = mockClient(client);
    mock.on(SendMessageBatchCommand).callsFake((input: SendMessageBatchCommandInput) => {
      const entries = input.Entries ?? [];
      return {
        Successful: entries.filter((e) => e.Id !== '0').map((e) => ({ Id: e.Id, MessageId: `m-${e.Id}`, MD5OfMessageBody: 'x' })),
        Failed: entries.filter((e) => e.Id === '0').map((e) => ({ Id: e.Id, Code: 'InternalError', SenderFault: false })),
      };
    });
    const queue = new SqsQueue(client, { send: URL });
    vi.useFakeTimers();

    // Act
    const result = queue.sendBatch('send', [{ seq: 0 }, { seq: 1 }]);
    const outcome = expect(result).rejects.toBeInstanceOf(RetryableError);
    await vi.runAllTimersAsync();

    // Assess
    await outcome;
    const calls = mock.commandCalls(SendMessageBatchCommand);
    // Bounded: a first attempt and a fixed number of retries, each of the one failing entry after the first.
    expect(calls.length).toBeGreaterThan(1);
    expect(calls.length).toBeLessThanOrEqual(10);
    expect(calls.slice(1).every((c) => c.args[0].input.Entries?.length === 1)).toBe(true);
    mock.restore();
    client.destroy();
  });
});
