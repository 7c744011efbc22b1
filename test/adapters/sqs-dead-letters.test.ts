// The DLQ adapter's redrive when a short poll answers empty while a message waits: SQS samples a
// subset of its servers on a short poll, so an empty answer does not mean an empty queue, and a
// look of another request (a receive with VisibilityTimeout 0) holds a message for an instant.
// CI saw "Put all back" move 0 of 1 that way on the local emulator (a staff look in flight beside
// it). And its time budget: a deep DLQ is moved over several calls, each well inside the admin
// function's timeout. SQS's sampling and its latencies have no local stand-in, so the client is
// mocked here; the emulator's side of the redrive is test/adapters/local-dead-letters.test.ts.
import { DeleteMessageCommand, ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SqsDeadLetters } from '../../shared/adapters/aws/sqs-dead-letters';

const client = new SQSClient({ region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
const mock = mockClient(client);
const URLS = { urls: { webhooks: 'https://sqs.test/webhooks' }, dlqUrls: { webhooks: 'https://sqs.test/webhooks-dlq' } };
const WAITING = { MessageId: 'm-1', ReceiptHandle: 'rh-1', Body: '{"kind":"attempt"}', Attributes: { SentTimestamp: '1764000000000' } };

afterEach(() => mock.reset());

describe('SqsDeadLetters.redrive', () => {
  it('asks again with a long poll when a short poll answers empty, and moves the message that one finds', async () => {
    // Prepare: the short polls sample nothing; the long poll finds the message once
    mock.on(ReceiveMessageCommand, { WaitTimeSeconds: 0 }).resolves({ Messages: [] });
    mock.on(ReceiveMessageCommand, { WaitTimeSeconds: 1 }).resolvesOnce({ Messages: [WAITING] }).resolves({ Messages: [] });
    mock.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    mock.on(DeleteMessageCommand).resolves({});

    // Act
    const moved = await new SqsDeadLetters(client, URLS).redrive('webhooks');

    // Assess
    expect(moved.map((m) => m.id)).toEqual(['m-1']);
    expect(mock.commandCalls(SendMessageCommand).map((c) => c.args[0].input)).toEqual([{ QueueUrl: URLS.urls.webhooks, MessageBody: WAITING.Body }]);
    expect(mock.commandCalls(DeleteMessageCommand).map((c) => c.args[0].input)).toEqual([{ QueueUrl: URLS.dlqUrls.webhooks, ReceiptHandle: 'rh-1' }]);
    // Two rounds, each a short poll then its long poll: the second confirms the DLQ is done.
    expect(mock.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input.WaitTimeSeconds)).toEqual([0, 1, 0, 1]);
  });

  it('long-polls only to confirm the round that found nothing, and not at all once every chosen message moved', async () => {
    mock.on(ReceiveMessageCommand, { WaitTimeSeconds: 0 }).resolves({ Messages: [WAITING] });
    mock.on(ReceiveMessageCommand, { WaitTimeSeconds: 1 }).resolves({ Messages: [] });
    mock.on(SendMessageCommand).resolves({ MessageId: 'm-2' });
    mock.on(DeleteMessageCommand).resolves({});

    // One chosen message, found by the first short poll: nothing is left to look for.
    const chosen = await new SqsDeadLetters(client, URLS).redrive('webhooks', ['m-1']);
    const chosenPolls = mock.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input.WaitTimeSeconds);
    mock.resetHistory();
    mock.on(ReceiveMessageCommand, { WaitTimeSeconds: 0 }).resolvesOnce({ Messages: [WAITING] }).resolves({ Messages: [] });
    // All of them: the second short poll answers empty, and its long poll confirms it.
    const all = await new SqsDeadLetters(client, URLS).redrive('webhooks');
    const allPolls = mock.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input.WaitTimeSeconds);

    expect(chosen.map((m) => m.id)).toEqual(['m-1']);
    expect(chosenPolls).toEqual([0]);
    expect(all.map((m) => m.id)).toEqual(['m-1']);
    expect(allPolls).toEqual([0, 0, 1]);
  });

  it('starts no round once its time budget is spent, answers what it moved, and leaves the rest for the next call', async () => {
    // Prepare: a deep DLQ, ten new messages a round; each call to SQS takes 400 ms of a fake clock
    let at = 0;
    let next = 0;
    const letters = () => Array.from({ length: 10 }, () => ({ MessageId: `m-${++next}`, ReceiptHandle: `rh-${next}`, Body: `{"n":${next}}` }));
    mock.on(ReceiveMessageCommand).callsFake(() => ((at += 400), { Messages: letters() }));
    mock.on(SendMessageCommand).callsFake(() => ((at += 400), { MessageId: 'copy' }));
    mock.on(DeleteMessageCommand).callsFake(() => ((at += 400), {}));

    // Act: 3 s of budget; a round (a receive, ten sends and ten deletes) takes 8.4 s here
    const moved = await new SqsDeadLetters(client, { ...URLS, budgetMs: 3_000, now: () => at }).redrive('webhooks');
    const again = await new SqsDeadLetters(client, { ...URLS, budgetMs: 3_000, now: () => at }).redrive('webhooks');

    // Assess: one round each, whole (a round is never cut short: each message it took is moved)
    expect(moved.map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, i) => `m-${i + 1}`));
    expect(again.map((m) => m.id)).toEqual(Array.from({ length: 10 }, (_, i) => `m-${i + 11}`));
    expect(mock.commandCalls(DeleteMessageCommand)).toHaveLength(20);
  });

  it('skips the confirming long poll when it would outlast the budget', async () => {
    let at = 0;
    mock.on(ReceiveMessageCommand).callsFake(() => ((at += 2_500), { Messages: [] }));

    const moved = await new SqsDeadLetters(client, { ...URLS, budgetMs: 3_000, now: () => at }).redrive('webhooks');

    expect(moved).toEqual([]);
    expect(mock.commandCalls(ReceiveMessageCommand).map((c) => c.args[0].input.WaitTimeSeconds)).toEqual([0]);
  });
});
