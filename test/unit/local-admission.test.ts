// The local runtime's fair share of its one event loop: the queue consumers keep a floor of
// batches however busy the API is, take more only while it has room, and the API stops taking
// new work (not reads) while the consumers are too far behind. No timers: the lag probe is not
// started, busy-ness comes from requests held in flight, and the backlog is a stand-in.
import { describe, expect, it } from 'vitest';
import { Admission } from '../../shared/runtime/local/admission';
import { waitFor } from '../support/wait';

/** Consumer batches that run until released, counting how many run at once. */
function batches(admission: Admission) {
  const releases: Array<() => void> = [];
  let running = 0;
  const start = () =>
    admission.consumerTurn(async () => {
      running++;
      await new Promise<void>((resolve) => releases.push(resolve));
      running--;
    });
  return {
    start,
    get running() {
      return running;
    },
    releaseOne: () => releases.shift()?.(),
  };
}

describe('Admission: consumer batches', () => {
  it('runs the floor of batches while the API is busy, and more once it has room', async () => {
    // Prepare: two requests in flight of at most four is "busy" (half its room).
    const admission = new Admission({ maxInFlight: 4, minConsumerBatches: 2, maxConsumerBatches: 4 });
    expect(admission.admit('GET')).toBeUndefined();
    expect(admission.admit('GET')).toBeUndefined();
    expect(admission.busy()).toBe(true);
    const b = batches(admission);

    // Act: five batches want to run under load
    const all = Promise.all([b.start(), b.start(), b.start(), b.start(), b.start()]);
    await waitFor(() => b.running === 2, { what: 'the floor of two batches to run' });

    // Assess: the floor runs, no more
    expect(admission.consumerBatchesRunning).toBe(2);

    // Act: the API's requests end; the next batch to end lets the waiting ones fill the ceiling
    admission.release();
    admission.release();
    b.releaseOne();
    await waitFor(() => b.running === 4, { what: 'the ceiling of four batches to run' });
    expect(admission.consumerBatchesRunning).toBe(4);

    // Assess: every batch runs in the end, none waits any more
    for (let left = 4; left > 0; left--) {
      b.releaseOne();
      await waitFor(() => b.running === left - 1, { what: `${left - 1} batches to be left running` });
    }
    await all;
    expect(admission.consumerBatchesRunning).toBe(0);
  });

  it('never runs fewer than one batch, whatever it is given', () => {
    const admission = new Admission({ minConsumerBatches: 0, maxConsumerBatches: 0 });
    expect(admission.minConsumerBatches).toBe(1);
    expect(admission.maxConsumerBatches).toBe(1);
  });
});

describe('Admission: backlog', () => {
  const backlogOf = (size: number, drainMs: number) => ({ size, drainMs: () => drainMs });

  it('refuses new work, not reads, while the consumers would take too long to finish what is queued', () => {
    const admission = new Admission({ maxDrainMs: 1000, minBacklog: 20, backlog: backlogOf(300, 3000) });

    const post = admission.admit('POST');
    const get = admission.admit('GET');
    const head = admission.admit('HEAD');

    expect(post).toEqual({ reason: 'backlog', retryAfterSeconds: 1 });
    expect(get).toBeUndefined();
    expect(head).toBeUndefined();
    expect(admission.refused.backlog).toBe(1);
    expect(admission.requestsInFlight).toBe(2);
  });

  it('takes new work while the backlog drains soon enough, or is small', () => {
    expect(new Admission({ maxDrainMs: 1000, backlog: backlogOf(300, 900) }).admit('POST')).toBeUndefined();
    expect(new Admission({ minBacklog: 20, backlog: backlogOf(19, Number.POSITIVE_INFINITY) }).admit('DELETE')).toBeUndefined();
    expect(new Admission({}).admit('POST')).toBeUndefined();
  });
});
