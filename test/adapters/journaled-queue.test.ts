// The queue journal against the embedded local-aws-sqs: what a process kill would take from the
// in-memory emulator comes back at the next start. A "restart" here is what a kill leaves: the
// emulator gone with everything in it, the journal file, and a fresh emulator to replay into.
import { GetQueueAttributesCommand, ReceiveMessageCommand, SendMessageBatchCommand, SQSClient, type SendMessageBatchCommandInput, SendMessageCommand } from '@aws-sdk/client-sqs';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { SqsDeadLetters } from '../../shared/adapters/aws/sqs-dead-letters';
import { JournaledQueue } from '../../shared/adapters/local/journaled-queue';
import type { QueueName } from '../../shared/platform';
import { ManualClock } from '../../shared/ports/clock';
import { createLogger, type Logger } from '../../shared/adapters/logger';
import { startSqs, type Running } from '../../local/emulators';
import { ensureQueues, type ProvisionedQueues } from '../../local/provision';

interface Emulator {
  server: Running;
  sqs: SQSClient;
  provisioned: ProvisionedQueues;
  queue: SqsQueue;
}

const open: Emulator[] = [];
let dir: string;
let file: string;
let clock: ManualClock;

async function startEmulator(): Promise<Emulator> {
  const server = await startSqs();
  const sqs = new SQSClient({ endpoint: server.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const provisioned = await ensureQueues(sqs);
  const emulator = { server, sqs, provisioned, queue: new SqsQueue(sqs, provisioned.urls) };
  open.push(emulator);
  return emulator;
}

async function stopEmulator(emulator: Emulator): Promise<void> {
  open.splice(open.indexOf(emulator), 1);
  emulator.sqs.destroy();
  await emulator.server.close();
}

const target = (e: Emulator) => ({ sqs: e.sqs, urls: e.provisioned.urls, dlqUrls: e.provisioned.dlqUrls });

function logs(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  return { logger: createLogger('debug', (line) => lines.push(JSON.parse(line) as Record<string, unknown>)), lines };
}

function journalOver(e: Emulator, options: { compactAfter?: number; logger?: Logger } = {}): JournaledQueue {
  return JournaledQueue.open(file, e.queue, { clock, logger: options.logger ?? logs().logger }, options);
}

/** A kill, then a start: the old emulator and journal object are gone; the file is read again and replayed. */
async function restart(before: Emulator, logger?: Logger): Promise<{ emulator: Emulator; journal: JournaledQueue; counts: { waiting: number; dead: number } }> {
  await stopEmulator(before);
  const emulator = await startEmulator();
  const journal = journalOver(emulator, { logger });
  const counts = await journal.replay(target(emulator));
  return { emulator, journal, counts };
}

async function receiveBodies(e: Emulator, url: string): Promise<unknown[]> {
  const bodies: unknown[] = [];
  for (;;) {
    const out = await e.sqs.send(new ReceiveMessageCommand({ QueueUrl: url, MaxNumberOfMessages: 10, WaitTimeSeconds: 0 }));
    if (!out.Messages?.length) return bodies;
    bodies.push(...out.Messages.map((m) => JSON.parse(m.Body ?? 'null')));
  }
}

async function delayed(e: Emulator, queue: QueueName): Promise<number> {
  const out = await e.sqs.send(new GetQueueAttributesCommand({ QueueUrl: e.provisioned.urls[queue], AttributeNames: ['ApproximateNumberOfMessagesDelayed'] }));
  return Number(out.Attributes?.ApproximateNumberOfMessagesDelayed);
}

const journalLines = (): Array<Record<string, unknown>> =>
  readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);

const record = (queue: QueueName, body: unknown) => ({ queue, body: JSON.stringify(body) });

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-journal-'));
  file = join(dir, 'queue-journal.jsonl');
  clock = new ManualClock('2026-03-01T12:00:00.000Z');
});

afterEach(async () => {
  for (const e of [...open]) await stopEmulator(e);
  rmSync(dir, { recursive: true, force: true });
});

describe('JournaledQueue', () => {
  it('puts back after a restart what was sent and not acknowledged: waiting, delayed and in flight', async () => {
    // Prepare
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.send('send', { n: 1 });
    await journal.sendBatch('webhooks', [{ n: 2 }, { n: 3 }]);
    await journal.send('send', { n: 4 }, { delaySeconds: 600 });
    // Received and not deleted: in flight when the process dies.
    const inFlight = await first.sqs.send(new ReceiveMessageCommand({ QueueUrl: first.provisioned.urls.send, MaxNumberOfMessages: 10, VisibilityTimeout: 300 }));
    expect(inFlight.Messages?.map((m) => JSON.parse(m.Body ?? 'null'))).toEqual([{ n: 1 }]);
    clock.advance(100_000);

    // Act
    await stopEmulator(first);
    const second = await startEmulator();
    const sent = vi.spyOn(second.sqs, 'send');
    const counts = await journalOver(second).replay(target(second));

    // Assess
    expect(counts).toEqual({ waiting: 4, dead: 0 });
    expect(await receiveBodies(second, second.provisioned.urls.send)).toEqual([{ n: 1 }]);
    expect(await receiveBodies(second, second.provisioned.urls.webhooks)).toEqual([{ n: 2 }, { n: 3 }]);
    expect(await delayed(second, 'send')).toBe(1);
    // The delayed one keeps what is left of its delay: 600 s less the 100 s that passed.
    const replayed = sent.mock.calls.map(([command]) => command).filter((c) => c instanceof SendMessageBatchCommand);
    const entries = replayed.flatMap((c) => (c.input as SendMessageBatchCommandInput).Entries ?? []);
    expect(entries.find((e) => e.MessageBody === JSON.stringify({ n: 4 }))?.DelaySeconds).toBe(500);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('sends through the inner queue only after the journal holds the message', async () => {
    const first = await startEmulator();
    let journaledBeforeSend: boolean | undefined;
    const inner = {
      send: async () => {
        journaledBeforeSend = readFileSync(file, 'utf8').includes(JSON.stringify(JSON.stringify({ n: 'first' })));
      },
      sendBatch: async () => undefined,
    };
    const journal = JournaledQueue.open(file, inner, { clock, logger: logs().logger });
    await journal.replay(target(first));

    await journal.send('send', { n: 'first' });

    expect(journaledBeforeSend).toBe(true);
  });

  it('does not put back what the poller acknowledged, and puts dead-lettered messages in the DLQ', async () => {
    // Prepare
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.sendBatch('send', [{ a: 1 }, { a: 2 }]);
    await journal.send('fanout', { poison: true });

    // Act
    journal.acknowledge([record('send', { a: 1 })]);
    journal.deadLettered([record('fanout', { poison: true })]);
    const { emulator: second, counts } = await restart(first);

    // Assess
    expect(counts).toEqual({ waiting: 1, dead: 1 });
    expect(await receiveBodies(second, second.provisioned.urls.send)).toEqual([{ a: 2 }]);
    expect(await receiveBodies(second, second.provisioned.urls.fanout)).toEqual([]);
    expect(await receiveBodies(second, second.provisioned.dlqUrls.fanout)).toEqual([{ poison: true }]);
    // Still dead after another restart: the DLQ is in memory too.
    const { emulator: third } = await restart(second);
    expect(await receiveBodies(third, third.provisioned.dlqUrls.fanout)).toEqual([{ poison: true }]);
  });

  it('counts the same body sent twice as two messages', async () => {
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.send('webhooks', { same: true });
    await journal.send('webhooks', { same: true });

    journal.acknowledge([record('webhooks', { same: true })]);
    const { emulator: second, counts } = await restart(first);

    expect(counts).toEqual({ waiting: 1, dead: 0 });
    expect(await receiveBodies(second, second.provisioned.urls.webhooks)).toEqual([{ same: true }]);
  });

  it('ignores acknowledgements of messages it never journaled', async () => {
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));

    journal.acknowledge([record('send', { never: 'sent' })]);
    const afterAck = readFileSync(file, 'utf8');
    await journal.send('send', { never: 'sent' });
    const { counts } = await restart(first);

    expect(afterAck).toBe('');
    expect(counts).toEqual({ waiting: 1, dead: 0 });
  });

  it('tolerates a torn last line, the write a kill cut short, and drops it when it compacts', async () => {
    // Prepare
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.send('send', { whole: 1 });
    appendFileSync(file, '{"op":"send","queue":"send","at":1772366400000,"delay":0,"bodies":["{\\"torn');
    const { logger, lines } = logs();

    // Act
    const { emulator: second, counts } = await restart(first, logger);

    // Assess
    expect(counts).toEqual({ waiting: 1, dead: 0 });
    expect(await receiveBodies(second, second.provisioned.urls.send)).toEqual([{ whole: 1 }]);
    expect(lines).toContainEqual(expect.objectContaining({ level: 'warn', msg: expect.stringContaining('torn last line') }));
    expect(readFileSync(file, 'utf8').endsWith('\n')).toBe(true);
    expect(journalLines()).toEqual([{ op: 'send', queue: 'send', at: expect.any(Number), delay: 0, bodies: [JSON.stringify({ whole: 1 })] }]);
  });

  it('compacts to exactly the outstanding entries, and reads back the same', async () => {
    // Prepare
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.sendBatch('send', [{ k: 1 }, { k: 2 }, { k: 3 }]);
    await journal.send('fanout', { k: 4 });
    await journal.send('send', { k: 5 }, { delaySeconds: 30 });
    journal.acknowledge([record('send', { k: 1 }), record('send', { k: 3 })]);
    journal.deadLettered([record('fanout', { k: 4 })]);
    // A kill during an earlier compaction leaves its temporary file; it is never read.
    writeFileSync(`${file}.tmp`, 'half a compac');

    // Act
    journal.compact();
    const reread = journalOver(first);

    // Assess
    const at = clock.now().getTime();
    expect(journalLines()).toEqual([
      { op: 'send', queue: 'send', at, delay: 0, bodies: [JSON.stringify({ k: 2 })] },
      { op: 'send', queue: 'fanout', at, delay: 0, bodies: [JSON.stringify({ k: 4 })] },
      { op: 'dead', queue: 'fanout', hashes: [expect.stringMatching(/^[0-9a-f]{64}$/)] },
      { op: 'send', queue: 'send', at, delay: 30, bodies: [JSON.stringify({ k: 5 })] },
    ]);
    expect(existsSync(`${file}.tmp`)).toBe(false);
    expect(reread.outstanding()).toEqual({ waiting: 2, dead: 1 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('compacts by itself once acknowledged entries outnumber the outstanding ones', async () => {
    const first = await startEmulator();
    const journal = journalOver(first, { compactAfter: 3 });
    await journal.replay(target(first));
    await journal.sendBatch('webhooks', [{ w: 1 }, { w: 2 }, { w: 3 }, { w: 4 }]);

    journal.acknowledge([record('webhooks', { w: 1 }), record('webhooks', { w: 2 })]);
    const beforeThreshold = journalLines().length;
    journal.acknowledge([record('webhooks', { w: 3 })]);

    // One send line and one line for the two acknowledgements of that call.
    expect(beforeThreshold).toBe(2);
    expect(journalLines()).toEqual([{ op: 'send', queue: 'webhooks', at: expect.any(Number), delay: 0, bodies: [JSON.stringify({ w: 4 })] }]);
  });

  it('keeps a message whose send failed, rather than lose one the emulator may have taken', async () => {
    const first = await startEmulator();
    const refusing = { send: async () => Promise.reject(new Error('emulator down')), sendBatch: async () => undefined };
    const journal = JournaledQueue.open(file, refusing, { clock, logger: logs().logger });

    await expect(journal.send('send', { maybe: true })).rejects.toThrow('emulator down');
    const { emulator: second, counts } = await restart(first);

    expect(counts).toEqual({ waiting: 1, dead: 0 });
    expect(await receiveBodies(second, second.provisioned.urls.send)).toEqual([{ maybe: true }]);
  });
});

describe('dead letters on the journaled local queues (issue 32)', () => {
  it('lists a dead message by peeking (it stays), and a redrive puts it back on its queue for good: a kill after it does not bring it back to the DLQ', async () => {
    // Prepare: a message dead-lettered in an earlier run sits in the fanout DLQ after the start.
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    await journal.send('fanout', { poison: 1 });
    await journal.send('fanout', { poison: 2 });
    journal.deadLettered([record('fanout', { poison: 1 }), record('fanout', { poison: 2 })]);
    const { emulator: second, journal: reopened } = await restart(first);
    const dlq = new SqsDeadLetters(second.sqs, { urls: second.provisioned.urls, dlqUrls: second.provisioned.dlqUrls, beforeRedrive: (q, body) => reopened.redriven(q, body) });

    // Act: look twice (a look leaves them), then redrive one by id.
    const seen = await dlq.peek('fanout');
    const again = await dlq.peek('fanout');
    const one = seen.messages.find((m) => m.body === JSON.stringify({ poison: 1 }));
    const moved = await dlq.redrive('fanout', [one?.id ?? '']);

    // Assess
    expect(seen.depth).toBe(2);
    expect(seen.messages.map((m) => JSON.parse(m.body)).sort((a, b) => a.poison - b.poison)).toEqual([{ poison: 1 }, { poison: 2 }]);
    expect(again.messages).toHaveLength(2);
    expect(moved.map((m) => m.id)).toEqual([one?.id]);
    expect(reopened.outstanding()).toEqual({ waiting: 1, dead: 1 });
    // The other one is visible again at once, and the redriven one waits on its queue.
    expect(await receiveBodies(second, second.provisioned.dlqUrls.fanout)).toEqual([{ poison: 2 }]);
    expect(await receiveBodies(second, second.provisioned.urls.fanout)).toEqual([{ poison: 1 }]);
    // A kill now: the redrive was journaled, so the start puts it on its queue, not in the DLQ.
    const { emulator: third, counts } = await restart(second);
    expect(counts).toEqual({ waiting: 1, dead: 1 });
    expect(await receiveBodies(third, third.provisioned.urls.fanout)).toEqual([{ poison: 1 }]);
    expect(await receiveBodies(third, third.provisioned.dlqUrls.fanout)).toEqual([{ poison: 2 }]);
  });

  it('redrives every message of a DLQ when no ids are given, and a body the journal never held is journaled as sent', async () => {
    const first = await startEmulator();
    const journal = journalOver(first);
    await journal.replay(target(first));
    // Straight into the DLQ, past the journal (as a message the journal never saw).
    await first.sqs.send(new SendMessageCommand({ QueueUrl: first.provisioned.dlqUrls.webhooks, MessageBody: 'not json' }));
    await first.sqs.send(new SendMessageCommand({ QueueUrl: first.provisioned.dlqUrls.webhooks, MessageBody: '{"b":1}' }));
    const dlq = new SqsDeadLetters(first.sqs, { urls: first.provisioned.urls, dlqUrls: first.provisioned.dlqUrls, beforeRedrive: (q, body) => journal.redriven(q, body) });

    const moved = await dlq.redrive('webhooks');

    expect(moved.map((m) => m.body).sort()).toEqual(['not json', '{"b":1}'].sort());
    expect((await dlq.peek('webhooks')).depth).toBe(0);
    expect(journal.outstanding()).toEqual({ waiting: 2, dead: 0 });
    const { emulator: second } = await restart(first);
    const out = await second.sqs.send(new ReceiveMessageCommand({ QueueUrl: second.provisioned.urls.webhooks, MaxNumberOfMessages: 10 }));
    expect((out.Messages ?? []).map((m) => m.Body).sort()).toEqual(['not json', '{"b":1}'].sort());
  });
});
