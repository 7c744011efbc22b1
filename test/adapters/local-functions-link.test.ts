// The link between the local runtime's API thread and its functions thread (journal-link.ts,
// port-rpc.ts, over a real MessageChannel): the queue journal keeps one writer, a send of the other
// side is journaled before it is sent, and a mail handed across keeps its bytes and its kind of
// failure. The functions thread's store client keeps its bound of requests at the store.
import { SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MessageChannel } from 'node:worker_threads';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { JournaledQueue } from '../../shared/adapters/local/journaled-queue';
import type { QueueName } from '../../shared/platform';
import { systemClock } from '../../shared/ports/clock';
import { PermanentSendError, type OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { ChannelHttpHandler } from '../../local/channel-handler';
import { startSqs, type Running } from '../../local/emulators';
import { LinkedJournalQueue, LinkedMailer, serveJournal, serveMail } from '../../local/journal-link';
import { PortRpc } from '../../local/port-rpc';
import { ensureQueues } from '../../local/provision';
import { createLogger } from '../../shared/adapters/logger';
import { waitFor } from '../support/wait';

const logger = createLogger('silent');
let sqsServer: Running;
let sqs: SQSClient;
let urls: Record<QueueName, string>;
let dir: string;
const links: PortRpc[] = [];

/** Both ends of a link, as the two threads hold them. */
function link(): { api: PortRpc; functions: PortRpc } {
  const { port1, port2 } = new MessageChannel();
  const pair = { api: new PortRpc(port1), functions: new PortRpc(port2) };
  links.push(pair.api, pair.functions);
  return pair;
}

beforeAll(async () => {
  sqsServer = await startSqs();
  sqs = new SQSClient({ endpoint: sqsServer.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  urls = (await ensureQueues(sqs)).urls;
});
afterAll(async () => {
  sqs.destroy();
  await sqsServer.close();
});
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-link-'));
});
afterEach(() => {
  for (const rpc of links.splice(0)) rpc.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the queue journal across the link', () => {
  it('journals a send of the functions thread before it is sent, and settles what its pollers report', async () => {
    // Prepare: the journal on the API side; the functions side sends through the emulator and
    // notes, at each send, whether the journal file already held the body.
    const file = join(dir, 'queue-journal.jsonl');
    const journal = JournaledQueue.open(file, new SqsQueue(sqs, urls), { clock: systemClock, logger });
    const { api, functions } = link();
    serveJournal(api, journal);
    const journaledFirst: boolean[] = [];
    const emulator = new SqsQueue(sqs, urls);
    const observed: Queue = {
      send: async (queue, body, options) => {
        journaledFirst.push(readFileSync(file, 'utf8').includes(JSON.stringify(JSON.stringify(body))));
        await emulator.send(queue, body, options);
      },
      sendBatch: async (queue, bodies) => {
        journaledFirst.push(bodies.every((b) => readFileSync(file, 'utf8').includes(JSON.stringify(JSON.stringify(b)))));
        await emulator.sendBatch(queue, bodies);
      },
    };
    const queue = new LinkedJournalQueue(functions, observed);

    // Act
    await queue.send('webhooks', { n: 1 });
    await queue.sendBatch('send', [{ n: 2 }, { n: 3 }]);
    await queue.acknowledge([{ queue: 'webhooks', body: JSON.stringify({ n: 1 }) }]);
    await queue.deadLettered([{ queue: 'send', body: JSON.stringify({ n: 2 }) }]);

    // Assess: each send was in the file before it left; the journal and a reopened copy (a restart) agree
    expect(journaledFirst).toEqual([true, true]);
    expect(journal.outstanding()).toEqual({ waiting: 1, dead: 1 });
    expect(JournaledQueue.open(file, emulator, { clock: systemClock, logger }).outstanding()).toEqual({ waiting: 1, dead: 1 });
  });

  it('does not send what the journal could not take', async () => {
    // Prepare: a journal whose directory is gone, so its append fails
    const journal = JournaledQueue.open(join(dir, 'gone', 'queue-journal.jsonl'), new SqsQueue(sqs, urls), { clock: systemClock, logger });
    const { api, functions } = link();
    serveJournal(api, journal);
    const sent: unknown[] = [];
    const queue = new LinkedJournalQueue(functions, { send: async (_q, body) => void sent.push(body), sendBatch: async (_q, bodies) => void sent.push(...bodies) });

    // Act
    const attempt = queue.send('send', { n: 1 });

    // Assess
    await expect(attempt).rejects.toThrow(/ENOENT/);
    expect(sent).toEqual([]);
  });
});

describe('mail across the link', () => {
  const email: OutboundEmail = { from: 'a@example.com', to: 'b@example.com', subject: 'Hi', text: 'Hello', messageId: 'msg_1', accountId: 'acct_1', attachments: [{ filename: 'a.txt', contentType: 'text/plain', content: Buffer.from('bytes') }] };

  it('hands the API thread’s mail to the functions thread’s mailer with its attachment bytes, and its answer back', async () => {
    const { api, functions } = link();
    const got: OutboundEmail[] = [];
    serveMail(functions, { send: async (m) => (got.push(m), { providerMessageId: 'ses-1' }) });

    const receipt = await new LinkedMailer(api).send(email);

    expect(receipt).toEqual({ providerMessageId: 'ses-1' });
    expect(Buffer.isBuffer(got[0]?.attachments?.[0]?.content)).toBe(true);
    expect(got[0]?.attachments?.[0]?.content.toString()).toBe('bytes');
  });

  it('keeps a permanent refusal permanent, and any other failure a plain error', async () => {
    const { api, functions } = link();
    let refusal: Error = new PermanentSendError('address rejected');
    serveMail(functions, {
      send: async () => {
        throw refusal;
      },
    });
    const mailer = new LinkedMailer(api);

    const permanent = await mailer.send(email).catch((e: unknown) => e);
    refusal = new Error('throttled');
    const transient = await mailer.send(email).catch((e: unknown) => e);

    expect(permanent).toBeInstanceOf(PermanentSendError);
    expect((permanent as Error).message).toBe('address rejected');
    expect(transient).not.toBeInstanceOf(PermanentSendError);
    expect((transient as Error).message).toBe('throttled');
  });

  it('fails a call whose link closes before the answer', async () => {
    const { api, functions } = link();
    serveMail(functions, { send: () => new Promise(() => undefined) });
    const pending = new LinkedMailer(api).send(email);
    api.close();
    await expect(pending).rejects.toThrow(/closed/);
  });
});

describe('the store channel bound', () => {
  it('keeps at most its bound of requests at the store, and sends every one in the end', async () => {
    // Prepare: a store stand-in on the channel's far end that holds its answers until told
    const { port1, port2 } = new MessageChannel();
    const held: Array<{ id: number }> = [];
    port2.on('message', (request: { id: number }) => held.push(request));
    const handler = new ChannelHttpHandler(port1, 2);
    const request = { method: 'POST', path: '/', headers: {}, body: '{}' };

    // Act
    const answers = Array.from({ length: 5 }, () => handler.handle(request));
    await waitFor(() => held.length === 2, { what: 'two requests at the store' });
    const most: number[] = [];
    for (let answered = 0; answered < 5; answered++) {
      await waitFor(() => held.length > 0, { what: `request ${answered + 1} at the store` });
      most.push(held.length);
      const next = held.shift() as { id: number };
      port2.postMessage({ id: next.id, statusCode: 200, headers: {}, body: '{}' });
    }
    const responses = await Promise.all(answers);

    // Assess
    expect(Math.max(...most)).toBe(2);
    expect(responses.map((r) => r.response.statusCode)).toEqual([200, 200, 200, 200, 200]);
    port2.close();
    handler.destroy();
  });
});
