// A queue poller with several lanes handles batches of one queue at once, and never hands the
// same message to two lanes at once, even when the queue offers it again before the first lane is
// done (a batch slower than the visibility timeout). The SQS client is a stand-in answering from
// a list; its answers come on the next turn of the event loop, as a real one's do.
import type { SQSClient } from '@aws-sdk/client-sqs';
import type { SQSEvent } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import { queueNamed } from '../../shared/platform';
import { createLogger } from '../../shared/adapters/logger';
import { QueuePoller } from '../../local/queue-poller';
import { waitFor } from '../support/wait';

type Command = { constructor: { name: string }; input: Record<string, unknown> };

/** Offers every message it holds on each receive (as if each became visible again at once). */
function fakeSqs(messages: Array<{ MessageId: string; Body: string }>) {
  const deleted: string[] = [];
  let receives = 0;
  const client = {
    send: (command: Command) =>
      new Promise((resolve) =>
        setImmediate(() => {
          if (command.constructor.name === 'ReceiveMessageCommand') {
            receives++;
            return resolve({ Messages: messages.map((m) => ({ ...m, ReceiptHandle: `${m.MessageId}-${receives}`, Attributes: { ApproximateReceiveCount: '1' } })) });
          }
          const entries = command.input.Entries as Array<{ Id: string; ReceiptHandle: string }>;
          for (const e of entries) {
            deleted.push(e.ReceiptHandle.split('-')[0] as string);
            const i = messages.findIndex((m) => m.MessageId === e.ReceiptHandle.split('-')[0]);
            if (i >= 0) messages.splice(i, 1);
          }
          return resolve({ Successful: entries.map((e) => ({ Id: e.Id })), Failed: [] });
        }),
      ),
  };
  return {
    client: client as unknown as SQSClient,
    deleted,
    get receives() {
      return receives;
    },
  };
}

describe('QueuePoller lanes', () => {
  it('hands a message to one lane at a time, however often the queue offers it meanwhile', async () => {
    // Prepare: one message, a handler that holds it until told to finish
    const sqs = fakeSqs([{ MessageId: 'm1', Body: '{"n":1}' }]);
    const handled: string[] = [];
    let finish: () => void = () => undefined;
    const poller = new QueuePoller(sqs.client, {
      queue: queueNamed('webhooks'),
      url: 'http://local/queue/webhooks',
      arn: 'arn:aws:sqs:us-east-1:000000000000:webhooks',
      region: 'us-east-1',
      retryDelaySeconds: 1,
      logger: createLogger('error'),
      lanes: 3,
      idleMs: 1,
      handler: async (event: SQSEvent) => {
        handled.push(...event.Records.map((r) => r.messageId));
        await new Promise<void>((resolve) => (finish = resolve));
      },
    });

    // Act: the other lanes receive the same message again while the first still handles it
    poller.start();
    try {
      await waitFor(() => handled.length === 1 && sqs.receives >= 6, { what: 'the message to be offered again while it is handled' });
      expect(handled).toEqual(['m1']);
      finish();
      await waitFor(() => sqs.deleted.length === 1, { what: 'the message to be deleted' });
    } finally {
      await poller.stop();
    }

    // Assess: handled once, deleted once
    expect(handled).toEqual(['m1']);
    expect(sqs.deleted).toEqual(['m1']);
  });

  it('handles batches of one queue at once, one per lane', async () => {
    // Prepare: a receive offers the next unclaimed message only (as a real queue hides what it handed out)
    const bodies = ['a', 'b', 'c'];
    let next = 0;
    const client = {
      send: (command: Command) =>
        new Promise((resolve) =>
          setImmediate(() => {
            if (command.constructor.name !== 'ReceiveMessageCommand') return resolve({ Failed: [] });
            const body = bodies[next++];
            resolve({ Messages: body ? [{ MessageId: body, Body: '{}', ReceiptHandle: body }] : [] });
          }),
        ),
    } as unknown as SQSClient;
    let running = 0;
    const releases: Array<() => void> = [];
    const poller = new QueuePoller(client, {
      queue: queueNamed('send'),
      url: 'http://local/queue/send',
      arn: 'arn:aws:sqs:us-east-1:000000000000:send',
      region: 'us-east-1',
      retryDelaySeconds: 1,
      logger: createLogger('error'),
      lanes: 3,
      idleMs: 1,
      handler: async () => {
        running++;
        await new Promise<void>((resolve) => releases.push(resolve));
        running--;
      },
    });

    // Act
    poller.start();
    try {
      // Assess: three batches in hand at once
      await waitFor(() => running === 3, { what: 'three lanes to handle a batch each' });
    } finally {
      for (const release of releases) release();
      await poller.stop();
    }
  });
});
