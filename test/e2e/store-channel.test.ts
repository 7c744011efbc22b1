// The local runtime's store, reached the way the runtime reaches it: dynalite and the queue
// emulator in one worker thread, the store's requests over a MessagePort instead of loopback TCP
// (channel-handler.ts). Every kind of call the Store port makes answers as it does over HTTP,
// failed conditions included, and the TCP endpoint keeps serving the same data; the queue adapter
// likewise over the queue emulator's own channel.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DeleteMessageCommand, ListQueuesCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConditionFailedError } from '../../shared/errors';
import { Store } from '../../shared/db/store';
import { ChannelHttpHandler } from '../../local/channel-handler';
import { startStoreAndQueues, type Running } from '../../local/emulators';
import { ensureQueues, ensureTable } from '../../local/provision';
import { sqsClient } from '../../local/emulator-clients';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import type { MessagePort } from 'node:worker_threads';
import { waitFor } from '../support/wait';

const credentials = { accessKeyId: 'local', secretAccessKey: 'local' };
let dir: string;
let emulators: { store: Running; sqs: Running; sqsChannel: MessagePort };
let overChannel: Store;
let overHttp: Store;
const clients: Array<{ destroy(): void }> = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-store-channel-'));
  const started = await startStoreAndQueues({ path: join(dir, 'dynamodb') });
  emulators = started;
  const channelClient = new DynamoDBClient({ region: 'us-east-1', endpoint: started.store.endpoint, credentials, requestHandler: new ChannelHttpHandler(started.storeChannel) as never });
  const httpClient = new DynamoDBClient({ region: 'us-east-1', endpoint: started.store.endpoint, credentials });
  clients.push(channelClient, httpClient);
  await ensureTable(channelClient, 'channel-test');
  overChannel = new Store(channelClient, 'channel-test');
  overHttp = new Store(httpClient, 'channel-test');
});
afterAll(async () => {
  for (const c of clients) c.destroy();
  await emulators?.store.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the store over its thread channel', () => {
  it('writes, reads, queries and batches as over HTTP, and fails a condition the same way', async () => {
    // Act
    await overChannel.put({ pk: 'ACCT#1', sk: 'A', n: 1, text: 'é ✓ 😀' });
    await overChannel.batchPut(Array.from({ length: 30 }, (_, i) => ({ pk: 'ACCT#1', sk: `B#${String(i).padStart(2, '0')}`, n: i })));
    const conflict = await overChannel.create({ pk: 'ACCT#1', sk: 'A', n: 2 }).catch((error: unknown) => error);
    const updated = await overChannel.update<{ n: number }>({ pk: 'ACCT#1', sk: 'A' }, { expression: 'SET n = :n', values: { ':n': 3 } });

    // Assess
    expect(conflict).toBeInstanceOf(ConditionFailedError);
    expect(updated.n).toBe(3);
    expect(await overChannel.get({ pk: 'ACCT#1', sk: 'A' })).toMatchObject({ text: 'é ✓ 😀' });
    expect(await overHttp.get({ pk: 'ACCT#1', sk: 'A' })).toMatchObject({ text: 'é ✓ 😀' });
    const page = await overChannel.query({ keyCondition: 'pk = :pk AND begins_with(sk, :b)', values: { ':pk': 'ACCT#1', ':b': 'B#' }, ascending: true, limit: 10 });
    expect(page.items.map((i) => i.sk)).toEqual(Array.from({ length: 10 }, (_, i) => `B#${String(i).padStart(2, '0')}`));
    expect(page.lastKey).toBeDefined();
    const got = await overChannel.batchGet(Array.from({ length: 30 }, (_, i) => ({ pk: 'ACCT#1', sk: `B#${String(i).padStart(2, '0')}` })));
    expect(got).toHaveLength(30);
  });

  it('runs the queue emulator in the same thread, on its own endpoint', async () => {
    const sqs = new SQSClient({ region: 'us-east-1', endpoint: emulators.sqs.endpoint, credentials });
    clients.push(sqs);

    const listed = await sqs.send(new ListQueuesCommand({}));

    expect(listed.$metadata.httpStatusCode).toBe(200);
    expect(emulators.sqs.threadId).toBe(emulators.store.threadId);
  });

  it('answers the queue adapter over its own channel as over HTTP: sends, batches, receives and deletes', async () => {
    const overPort = sqsClient(emulators.sqs.endpoint, emulators.sqsChannel);
    const overTcp = sqsClient(emulators.sqs.endpoint);
    clients.push(overPort, overTcp);
    const { urls } = await ensureQueues(overPort);
    const queue = new SqsQueue(overPort, urls);

    await queue.send('webhooks', { n: 0, text: 'é ✓ 😀' });
    await queue.sendBatch('webhooks', Array.from({ length: 12 }, (_, i) => ({ n: i + 1 })));

    // Read back over TCP: the same queue, every message once.
    const bodies: Array<{ n: number; text?: string }> = [];
    await waitFor(
      async () => {
        const got = await overTcp.send(new ReceiveMessageCommand({ QueueUrl: urls.webhooks, MaxNumberOfMessages: 10 }));
        for (const m of got.Messages ?? []) {
          bodies.push(JSON.parse(m.Body ?? 'null'));
          await overPort.send(new DeleteMessageCommand({ QueueUrl: urls.webhooks, ReceiptHandle: m.ReceiptHandle }));
        }
        return bodies.length >= 13;
      },
      { what: () => `13 messages on the queue (${bodies.length} received)` },
    );
    expect(bodies.map((b) => b.n).sort((a, b) => a - b)).toEqual(Array.from({ length: 13 }, (_, i) => i));
    expect(bodies.find((b) => b.n === 0)?.text).toBe('é ✓ 😀');
  });
});
