// Dead letters on the local runtime's own parts (issue 32), against the embedded local-aws-sqs: the
// poller dead-letters a message itself (the emulator's queues have no redrive policy) and journals
// it, the DLQ adapter lists and redrives it, and the journal keeps the redriven message once. A
// "kill" is what test/adapters/journaled-queue.test.ts plays: the emulator gone with everything in
// it, the journal file read again and replayed into a fresh one.
import { DeleteMessageCommand, ReceiveMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SqsDeadLetters } from '../../shared/adapters/aws/sqs-dead-letters';
import { SqsQueue } from '../../shared/adapters/aws/sqs-queue';
import { JournaledQueue } from '../../shared/adapters/local/journaled-queue';
import { queueNamed, type QueueName } from '../../shared/platform';
import { ManualClock } from '../../shared/ports/clock';
import { createLogger } from '../../shared/adapters/logger';
import { startSqs, type Running } from '../../local/emulators';
import { ensureQueues, type ProvisionedQueues } from '../../local/provision';
import { QueuePoller, type QueueHandler } from '../../local/queue-poller';
import { waitFor } from '../support/wait';

/** fanout dead-letters after 3 attempts, a second apart (the poller's shortest retry delay). */
const QUEUE: QueueName = 'fanout';
const DOOMED = JSON.stringify({ doomed: true });
const logger = createLogger('error', () => undefined);

interface Emulator {
  server: Running;
  sqs: SQSClient;
  provisioned: ProvisionedQueues;
}

/** One run of the local runtime's queue parts over a journal file. */
interface Run {
  emulator: Emulator;
  journal: JournaledQueue;
  counts: { waiting: number; dead: number };
}

const running: Emulator[] = [];
let dir: string;
let file: string;
const clock = new ManualClock('2026-03-01T12:00:00.000Z');

async function start(): Promise<Run> {
  const server = await startSqs();
  const sqs = new SQSClient({ endpoint: server.endpoint, region: 'us-east-1', credentials: { accessKeyId: 'test', secretAccessKey: 'test' } });
  const emulator = { server, sqs, provisioned: await ensureQueues(sqs) };
  running.push(emulator);
  const journal = JournaledQueue.open(file, new SqsQueue(sqs, emulator.provisioned.urls), { clock, logger });
  const counts = await journal.replay({ sqs, urls: emulator.provisioned.urls, dlqUrls: emulator.provisioned.dlqUrls });
  return { emulator, journal, counts };
}

/** A kill -9 and a start on the same journal file. */
async function kill(run: Run): Promise<Run> {
  running.splice(running.indexOf(run.emulator), 1);
  run.emulator.sqs.destroy();
  await run.emulator.server.close();
  return start();
}

/** The DLQ adapter as the local runtime wires it: a redrive is journaled before its send. */
const deadLettersOf = (run: Run, client: SQSClient = run.emulator.sqs, beforeRedrive = (q: QueueName, body: string) => run.journal.redriven(q, body)) =>
  new SqsDeadLetters(client, { urls: run.emulator.provisioned.urls, dlqUrls: run.emulator.provisioned.dlqUrls, beforeRedrive });

/** The poller as the local runtime wires it, its hooks telling the journal. */
function pollerOf(run: Run, handler: QueueHandler, onDeadLettered?: () => Promise<void>): QueuePoller {
  return new QueuePoller(run.emulator.sqs, {
    queue: queueNamed(QUEUE),
    url: run.emulator.provisioned.urls[QUEUE],
    arn: run.emulator.provisioned.arns[QUEUE],
    dlqUrl: run.emulator.provisioned.dlqUrls[QUEUE],
    region: 'us-east-1',
    handler,
    retryDelaySeconds: 0,
    logger,
    onDeleted: (records) => run.journal.acknowledge(records),
    onDeadLettered: async (records) => {
      await onDeadLettered?.();
      run.journal.deadLettered(records);
    },
  });
}

const failing: QueueHandler = async (event) => ({ batchItemFailures: event.Records.map((r) => ({ itemIdentifier: r.messageId })) });

/** Polls until `done()` holds (a failed message comes back only when its visibility runs out). */
async function pollUntil(p: QueuePoller, what: string, done: () => boolean | Promise<boolean>): Promise<void> {
  await waitFor(
    async () => {
      while (!(await done())) if ((await p.pollOnce()) === 0) return false;
      return true;
    },
    { what, timeoutMs: 15_000 },
  );
}

/** Every body on a queue or DLQ now (received and left invisible: call once per assertion). */
async function bodiesIn(run: Run, which: 'urls' | 'dlqUrls'): Promise<string[]> {
  const bodies: string[] = [];
  for (;;) {
    const out = await run.emulator.sqs.send(new ReceiveMessageCommand({ QueueUrl: run.emulator.provisioned[which][QUEUE], MaxNumberOfMessages: 10, VisibilityTimeout: 60 }));
    if (!out.Messages?.length) return bodies;
    bodies.push(...out.Messages.map((m) => m.Body ?? ''));
  }
}

/** A run whose poller has dead-lettered DOOMED after its last attempt. */
async function deadLettered(): Promise<Run> {
  const run = await start();
  await run.journal.send(QUEUE, { doomed: true });
  const dlq = deadLettersOf(run);
  await pollUntil(pollerOf(run, failing), 'the poller to dead-letter the doomed message', async () => (await dlq.peek(QUEUE)).depth > 0);
  return run;
}

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'postbox-local-dlq-'));
  file = join(dir, 'queue-journal.jsonl');
});

afterEach(async () => {
  for (const e of running.splice(0)) {
    e.sqs.destroy();
    await e.server.close();
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('a local DLQ the poller fills', () => {
  it('holds the message the poller dead-letters, journaled dead before it reaches the DLQ, and keeps it there across a kill', async () => {
    // Prepare
    const run = await start();
    await run.journal.send(QUEUE, { doomed: true });
    const dlq = deadLettersOf(run);
    const inDlqWhenJournaled: number[] = [];

    // Act
    const poller = pollerOf(run, failing, async () => void inDlqWhenJournaled.push((await dlq.peek(QUEUE)).depth));
    await pollUntil(poller, 'the doomed message in the DLQ', async () => (await dlq.peek(QUEUE)).depth > 0);
    const listed = await dlq.peek(QUEUE);
    const after = await kill(run);

    // Assess: the journal knew before anything could find it in the DLQ (and redrive it).
    expect(inDlqWhenJournaled).toEqual([0]);
    expect(listed.messages.map((m) => m.body)).toEqual([DOOMED]);
    expect(after.counts).toEqual({ waiting: 0, dead: 1 });
    expect(await bodiesIn(after, 'dlqUrls')).toEqual([DOOMED]);
    expect(await bodiesIn(after, 'urls')).toEqual([]);
  });

  it('redrives it back to its queue, and a kill after the redrive neither loses nor duplicates it', async () => {
    // Prepare
    const run = await deadLettered();

    // Act
    const moved = await deadLettersOf(run).redrive(QUEUE);
    const after = await kill(run);

    // Assess
    expect(moved.map((m) => m.body)).toEqual([DOOMED]);
    expect(after.counts).toEqual({ waiting: 1, dead: 0 });
    expect(await bodiesIn(after, 'urls')).toEqual([DOOMED]);
    expect(await bodiesIn(after, 'dlqUrls')).toEqual([]);
  });

  it.each([
    ['after the redrive is journaled, before its send', 'journaled'],
    ['after its send, before the DLQ delete', 'sent'],
  ] as const)('keeps it once when killed mid-redrive: %s', async (_when, cut) => {
    // Prepare: the kill is played by the redrive stopping at that point (nothing after it runs).
    const run = await deadLettered();
    const killed = new Error('killed');
    const client = { send: (command: never) => (cut === 'sent' && (command as object) instanceof DeleteMessageCommand ? Promise.reject(killed) : run.emulator.sqs.send(command)) } as unknown as SQSClient;
    const dlq = deadLettersOf(run, client, (q, body) => {
      run.journal.redriven(q, body);
      if (cut === 'journaled') throw killed;
    });

    // Act
    await expect(dlq.redrive(QUEUE)).rejects.toBe(killed);
    const after = await kill(run);

    // Assess
    expect(after.counts).toEqual({ waiting: 1, dead: 0 });
    expect(await bodiesIn(after, 'urls')).toEqual([DOOMED]);
    expect(await bodiesIn(after, 'dlqUrls')).toEqual([]);
  });

  it('settles a redriven message by what the poller then does: acknowledged, it is gone after a kill; failing again, it is dead once', async () => {
    // Prepare: two dead letters, one to be fixed and one still poison.
    const run = await start();
    const fixed = JSON.stringify({ fixed: true });
    await run.journal.sendBatch(QUEUE, [{ doomed: true }, { fixed: true }]);
    const dlq = deadLettersOf(run);
    await pollUntil(pollerOf(run, failing), 'both messages in the DLQ', async () => (await dlq.peek(QUEUE)).depth === 2);

    // Act: the fault is fixed for one of them; both are redriven.
    await dlq.redrive(QUEUE);
    const handled: string[] = [];
    const poller = pollerOf(run, async (event) => {
      handled.push(...event.Records.map((r) => r.body));
      return { batchItemFailures: event.Records.filter((r) => r.body === DOOMED).map((r) => ({ itemIdentifier: r.messageId })) };
    });
    await pollUntil(poller, 'the poison one back in the DLQ', async () => (await dlq.peek(QUEUE)).depth === 1 && handled.includes(fixed));
    const after = await kill(run);

    // Assess
    expect(handled.filter((b) => b === fixed)).toEqual([fixed]);
    expect(after.counts).toEqual({ waiting: 0, dead: 1 });
    expect(await bodiesIn(after, 'dlqUrls')).toEqual([DOOMED]);
    expect(await bodiesIn(after, 'urls')).toEqual([]);
  });
});
