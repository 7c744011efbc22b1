// The queue journal against the embedded local-aws-sqs: what a process kill would take from the
// in-memory emulator comes back at the next start. A "restart" here is what a kill leaves: the
// emulator gone with everything in it, the journal file, and a fresh emulator to replay into.
import {
  GetQueueAttributesCommand,
  ReceiveMessageCommand,
  SendMessageBatchCommand,
  SQSClient,
  type SendMessageBatchCommandInput,
} from '@aws-sdk/client-sqs';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { JournaledQueue } from '../../shared/adapters/local/journaled-queue';
import type { QueueName } from '../../shared/platform';
import { ManualClock } from '../../shared/ports/clock';
import { createLogger, type Logger } from '../../shared/runtime/logger';
import { startSqs, type Running } from '../../shared/runtime/local/emulators';
import { ensureQueues, type ProvisionedQueues } from '../../shared/runtime/local/provision';

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
