// consume(): the one shape every queue consumer has. Poison and failures are reported per record;
// the use case sees only typed jobs; the last receive is flagged.
import type { SQSEvent, SQSRecord } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as z from 'zod';
import { readDeadLetterNote } from '../../shared/operations/dead-letters/notes';
import { queueNamed } from '../../shared/platform';
import { consume, type Delivery } from '../../shared/runtime/consume';
import { installContainer } from '../../shared/runtime/container';
import { createTestContainer, type TestContainer } from '../support/container';
import { sqsEvent, sqsRecord } from '../support/sqs';

let c: TestContainer;
beforeAll(async () => {
  c = await createTestContainer();
  installContainer(c);
});
afterAll(async () => c.testStore.close());

const record = (id: string, body: string, receiveCount = 1): SQSRecord => sqsRecord(body, receiveCount, id);
const event = (...records: SQSRecord[]): SQSEvent => sqsEvent(records);
const job = z.object({ n: z.number() });

describe('consume', () => {
  it('hands each valid record to the use case as a typed job and reports only the failures', async () => {
    // Prepare
    const seen: Array<{ n: number; delivery: Omit<Delivery, 'container' | 'perBatch' | 'afterBatch'> }> = [];
    const handler = consume('send', job, async (j, { container, perBatch: _perBatch, afterBatch: _afterBatch, ...delivery }) => {
      expect(container).toBe(c);
      if (j.n === 2) throw new Error('boom');
      seen.push({ n: j.n, delivery });
    });
    // Act
    const out = await handler(event(record('a', '{"n":1}'), record('b', '{"n":2}'), record('c', '{"n":3}', 7)));
    // Assess
    expect(out).toEqual({ batchItemFailures: [{ itemIdentifier: 'b' }] });
    expect(seen.map((s) => s.n)).toEqual([1, 3]);
    // Each record sees the batch's jobs, its own among them.
    const jobs = [{ n: 1 }, { n: 2 }, { n: 3 }];
    expect(seen[0]?.delivery).toEqual({ recordId: 'a', receiveCount: 1, finalAttempt: false, jobs });
    expect(seen[1]?.delivery).toEqual({ recordId: 'c', receiveCount: 7, finalAttempt: true, jobs });
  });

  it('reports poison (not JSON, or breaking the contract) as failed without calling the use case, and logs it once', async () => {
    // Prepare
    let calls = 0;
    const handler = consume('webhooks', job, async () => void calls++);
    const before = c.logs.length;
    // Act
    const out = await handler(event(record('x', 'not json'), record('y', '{"n":"one"}')));
    // Assess
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['x', 'y']);
    expect(calls).toBe(0);
    const poison = c.logs.slice(before).filter((l) => l.level === 'error');
    expect(poison.map((l) => l.recordId)).toEqual(['x', 'y']);
  });

  it('flags the last receive from the queue’s own maxReceiveCount', async () => {
    // Prepare
    const { maxReceiveCount } = queueNamed('fanout');
    const flags: boolean[] = [];
    const handler = consume('fanout', job, async (_j, d) => void flags.push(d.finalAttempt));
    // Act
    await handler(event(record('1', '{"n":1}', maxReceiveCount - 1), record('2', '{"n":1}', maxReceiveCount)));
    // Assess
    expect(flags).toEqual([false, true]);
  });

  it('runs records together when asked, still reporting each failure', async () => {
    // Prepare
    const handler = consume('webhooks', job, async (j) => {
      if (j.n % 2 === 0) throw new Error('even');
    }, { order: 'parallel' });
    // Act
    const out = await handler(event(...[1, 2, 3, 4].map((n) => record(`r${n}`, JSON.stringify({ n })))));
    // Assess
    expect(out.batchItemFailures.map((f) => f.itemIdentifier).sort()).toEqual(['r2', 'r4']);
  });

  it('shares a read among the records of one batch, never across batches, and keeps no failed read', async () => {
    // Prepare
    let loads = 0;
    let failNext = false;
    const handler = consume('send', job, async (j, { perBatch }) => {
      const value = await perBatch(`account:${j.n}`, async () => {
        loads++;
        if (failNext) {
          failNext = false;
          throw new Error('store hiccup');
        }
        return j.n * 10;
      });
      expect(value).toBe(j.n * 10);
    });
    // Act
    const first = await handler(event(record('a', '{"n":1}'), record('b', '{"n":1}'), record('c', '{"n":2}')));
    const loadsInFirst = loads;
    await handler(event(record('d', '{"n":1}')));
    failNext = true;
    const third = await handler(event(record('e', '{"n":3}'), record('f', '{"n":3}')));
    // Assess
    expect(first.batchItemFailures).toEqual([]);
    expect(loadsInFirst).toBe(2);
    expect(loads).toBe(5);
    expect(third.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['e']);
  });

  it('runs a batch’s finishing step once after all its records, failed ones too; a finish that throws is logged and the outcomes stand', async () => {
    // Prepare
    const order: string[] = [];
    let jobsSeen: readonly unknown[] = [];
    const handler = consume('send', job, async (j, { afterBatch, jobs }) => {
      jobsSeen = jobs;
      afterBatch('sum', async () => void order.push('finish'));
      afterBatch('sum', async () => void order.push('a second finish for the key'));
      order.push(`record ${j.n}`);
      if (j.n === 2) throw new Error('boom');
    });
    const failing = consume('send', job, async (_j, { afterBatch }) => afterBatch('flush', async () => Promise.reject(new Error('store down'))));
    const before = c.logs.length;
    // Act
    const out = await handler(event(record('a', '{"n":1}'), record('p', 'not json'), record('b', '{"n":2}'), record('c', '{"n":3}')));
    const failed = await failing(event(record('d', '{"n":4}')));
    // Assess
    expect(order).toEqual(['record 1', 'record 2', 'record 3', 'finish']);
    expect(jobsSeen).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    expect(out.batchItemFailures.map((f) => f.itemIdentifier)).toEqual(['p', 'b']);
    expect(failed.batchItemFailures).toEqual([]);
    expect(c.logs.slice(before).filter((l) => l.level === 'error' && String(l.msg).includes('finishing step failed')).map((l) => l.step)).toEqual(['flush']);
  });

  it('notes why a record goes to the DLQ on its last failed receive only, poison or a use case that threw (issue 32)', async () => {
    // Prepare
    const { maxReceiveCount } = queueNamed('send');
    const handler = consume('send', job, async () => {
      throw new TypeError('the provider is down');
    });
    // Act
    await handler(event(record('early', '{"n":41}', maxReceiveCount - 1)));
    await handler(event(record('last', '{"n":42}', maxReceiveCount), record('poison', 'not json', maxReceiveCount), record('contract', '{"n":"x"}', maxReceiveCount)));
    // Assess
    expect(await readDeadLetterNote(c.store, 'send', '{"n":41}')).toBeUndefined();
    expect(await readDeadLetterNote(c.store, 'send', '{"n":42}')).toMatchObject({ reason: 'TypeError: the provider is down', receive_count: maxReceiveCount, last_failed_at: c.clock.now().toISOString() });
    expect((await readDeadLetterNote(c.store, 'send', 'not json'))?.reason).toMatch(/^poison message: SyntaxError/);
    // A broken contract names each field and what is wrong with it, not the issues' JSON.
    expect((await readDeadLetterNote(c.store, 'send', '{"n":"x"}'))?.reason).toBe('poison message: ZodError: n: Invalid input: expected number, received string');
  });
});
