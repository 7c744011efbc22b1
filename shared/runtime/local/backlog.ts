// The work the local runtime has accepted and not yet finished: messages put on its queues that no
// poller has deleted or dead-lettered yet. A decorator of the Queue port counts what goes in; the
// pollers report what comes out, and how fast. Admission reads how long the consumers would take to
// finish what is queued, at the pace they have been finishing, and stops accepting new work (503)
// while that is too long: what the API accepts is what the one machine can also finish soon, how
// fast that is depending on the machine and whatever else runs on it.
//
// A message sent with a delay is not due yet and does not count (a webhook retry waiting its turn
// is not a backlog); it is remembered by body so that its deletion does not count either. Messages
// put back by the journal at start were never counted; the count never goes below zero.
import type { QueueName } from '../../platform';
import type { Queue } from '../../ports/queue';

/** The window over which the consumers' pace is measured. */
const PACE_WINDOW_MS = 2000;

export class Backlog {
  private count = 0;
  /** Finished messages per 100 ms slot over the last PACE_WINDOW_MS (a ring), and the slot's time. */
  private readonly slots = new Array<number>(PACE_WINDOW_MS / 100).fill(0);
  private slotAt = 0;
  /** JSON body → how many delayed messages with it are still out. */
  private readonly delayed = new Map<string, number>();

  /** Messages due or being handled, all queues together. */
  get size(): number {
    return this.count;
  }

  /**
   * The queue port, counting what it sends to the queues this runtime consumes (`consumed`; a
   * queue nobody here polls, as when a benchmark drives the consumers itself, is not this
   * runtime's backlog). Counted before the send (a poller may finish a message before the send's
   * answer is back) and taken back if the send fails.
   */
  counting(inner: Queue, consumed: ReadonlySet<QueueName>): Queue {
    return {
      send: async (queue: QueueName, body: unknown, options?: { delaySeconds?: number }) => {
        if (!consumed.has(queue)) return inner.send(queue, body, options);
        const key = (options?.delaySeconds ?? 0) > 0 ? JSON.stringify(body) : undefined;
        if (key === undefined) this.count++;
        else this.delayed.set(key, (this.delayed.get(key) ?? 0) + 1);
        try {
          await inner.send(queue, body, options);
        } catch (error) {
          if (key === undefined) this.count = Math.max(0, this.count - 1);
          else this.forget(key);
          throw error;
        }
      },
      sendBatch: async (queue: QueueName, bodies: readonly unknown[]) => {
        if (!consumed.has(queue)) return inner.sendBatch(queue, bodies);
        this.count += bodies.length;
        try {
          await inner.sendBatch(queue, bodies);
        } catch (error) {
          this.count = Math.max(0, this.count - bodies.length);
          throw error;
        }
      },
    };
  }

  /** Messages finished per second lately (over the last two seconds). */
  pace(now = performance.now()): number {
    this.advance(now);
    return (this.slots.reduce((a, b) => a + b, 0) * 1000) / PACE_WINDOW_MS;
  }

  /**
   * How long (ms) the consumers would take to finish what is queued at their recent pace; Infinity
   * when there is a backlog and nothing finished lately, 0 when there is none.
   */
  drainMs(now = performance.now()): number {
    if (this.count === 0) return 0;
    const pace = this.pace(now);
    return pace > 0 ? (this.count * 1000) / pace : Number.POSITIVE_INFINITY;
  }

  /** Moves the ring to `now`, emptying the slots that passed without a finish. */
  private advance(now: number): void {
    const slot = Math.floor(now / 100);
    const last = this.slotAt;
    if (slot === last) return;
    for (let s = Math.max(last + 1, slot - this.slots.length + 1); s <= slot; s++) this.slots[s % this.slots.length] = 0;
    this.slotAt = slot;
  }

  /** Messages a poller is done with (deleted, or moved to the DLQ), as they were sent. */
  finished(records: ReadonlyArray<{ body: string }>, now = performance.now()): void {
    this.advance(now);
    const slot = this.slotAt % this.slots.length;
    this.slots[slot] = (this.slots[slot] ?? 0) + records.length;
    for (const { body } of records) {
      if (!this.forget(body)) this.count = Math.max(0, this.count - 1);
    }
  }

  /** Takes one delayed message with this body off the books; false when none is out. */
  private forget(body: string): boolean {
    const delayed = this.delayed.size > 0 ? this.delayed.get(body) : undefined;
    if (delayed === undefined) return false;
    if (delayed <= 1) this.delayed.delete(body);
    else this.delayed.set(body, delayed - 1);
    return true;
  }
}
