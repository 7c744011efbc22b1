// What the local runtime has queued and not yet finished, and how soon its consumers would finish
// it at their recent pace. Times are passed in, never waited for.
import { describe, expect, it } from 'vitest';
import type { QueueName } from '../../shared/platform';
import type { Queue } from '../../shared/ports/queue';
import { Backlog } from '../../shared/runtime/local/backlog';

/** A queue port that records what it is given, or refuses it. */
function innerQueue(fail = false): Queue & { sent: unknown[] } {
  const sent: unknown[] = [];
  return {
    sent,
    send: async (_queue: QueueName, body: unknown) => {
      if (fail) throw new Error('refused');
      sent.push(body);
    },
    sendBatch: async (_queue: QueueName, bodies: readonly unknown[]) => {
      if (fail) throw new Error('refused');
      sent.push(...bodies);
    },
  };
}

const record = (body: unknown) => ({ body: JSON.stringify(body) });
const ALL: ReadonlySet<QueueName> = new Set(['send', 'fanout', 'webhooks', 'ses-events']);

describe('Backlog', () => {
  it('counts what is sent, undelayed, until a poller finishes it', async () => {
    const backlog = new Backlog();
    const inner = innerQueue();
    const queue = backlog.counting(inner, ALL);

    await queue.send('send', { message_id: 'm1' });
    await queue.sendBatch('send', [{ message_id: 'm2' }, { message_id: 'm3' }]);
    await queue.send('webhooks', { delivery_id: 'd1', attempt: 2 }, { delaySeconds: 30 });

    expect(inner.sent).toHaveLength(4);
    expect(backlog.size).toBe(3);

    backlog.finished([record({ message_id: 'm1' }), record({ delivery_id: 'd1', attempt: 2 })], 0);
    expect(backlog.size).toBe(2); // the delayed retry was never counted, and is not taken off

    backlog.finished([record({ message_id: 'm2' }), record({ message_id: 'm3' }), record({ message_id: 'replayed at start' })], 0);
    expect(backlog.size).toBe(0); // never below zero
  });

  it('takes back what a failed send counted', async () => {
    const backlog = new Backlog();
    const queue = backlog.counting(innerQueue(true), ALL);

    await expect(queue.send('send', { message_id: 'm1' })).rejects.toThrow('refused');
    await expect(queue.sendBatch('send', [{ message_id: 'm2' }])).rejects.toThrow('refused');
    await expect(queue.send('webhooks', { delivery_id: 'd1' }, { delaySeconds: 5 })).rejects.toThrow('refused');

    expect(backlog.size).toBe(0);
  });

  it('estimates the time to drain from the pace of the last two seconds', async () => {
    const backlog = new Backlog();
    const queue = backlog.counting(innerQueue(), ALL);
    await queue.sendBatch('send', Array.from({ length: 100 }, (_, i) => ({ i })));

    expect(backlog.drainMs(10_000)).toBe(Number.POSITIVE_INFINITY); // queued, nothing finished yet

    // 40 finished over the last second: 20 a second over the two-second window
    for (let i = 0; i < 40; i++) backlog.finished([record({ i })], 10_000 + i * 25);
    expect(backlog.size).toBe(60);
    expect(backlog.pace(11_000)).toBe(20);
    expect(backlog.drainMs(11_000)).toBe(3000);

    // nothing finished for two seconds: the pace is forgotten
    expect(backlog.pace(13_100)).toBe(0);
    expect(backlog.drainMs(13_100)).toBe(Number.POSITIVE_INFINITY);

    backlog.finished(Array.from({ length: 60 }, (_, i) => record({ i: i + 40 })), 13_200);
    expect(backlog.drainMs(13_300)).toBe(0); // nothing queued
  });

  it('leaves out the queues nobody in this runtime polls (a benchmark driving the consumers itself)', async () => {
    const backlog = new Backlog();
    const inner = innerQueue();
    const queue = backlog.counting(inner, new Set<QueueName>(['webhooks']));

    await queue.send('send', { message_id: 'm1' });
    await queue.sendBatch('send', [{ message_id: 'm2' }]);
    await queue.send('webhooks', { delivery_id: 'd1' });

    expect(inner.sent).toHaveLength(3);
    expect(backlog.size).toBe(1);
  });
});
