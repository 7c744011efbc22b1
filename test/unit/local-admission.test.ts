// The local runtime's fair share of its one event loop: the queue consumers keep a floor of
// batches however busy the API is and take more only while it has room; the API refuses only past
// its in-flight bound, never because the loop lags or the consumers are behind (issue 31). Busy-ness
// comes from requests held in flight, or from a loop held on purpose where the lag is the point.
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
    expect(admission.admit()).toBeUndefined();
    expect(admission.admit()).toBeUndefined();
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

describe('Admission: what it refuses', () => {
  it('refuses only past the in-flight bound, whatever the method, and admits again once a slot frees', () => {
    const admission = new Admission({ maxInFlight: 2, retryAfterSeconds: 3 });

    const first = admission.admit();
    const second = admission.admit();
    const third = admission.admit();
    admission.release();
    const fourth = admission.admit();

    expect([first, second, fourth]).toEqual([undefined, undefined, undefined]);
    expect(third).toEqual({ reason: 'in_flight', retryAfterSeconds: 3 });
    expect(admission.refused).toEqual({ in_flight: 1 });
    expect(admission.requestsInFlight).toBe(2);
  });

  it('refuses nothing while the event loop lags; the lag only sends the consumers back to their floor', () => {
    const admission = new Admission({ sampleMs: 5, busyLagMs: 100 }).start();
    try {
      // Act: hold the loop well past the probe's period (and the old 200 ms refusal threshold), as
      // a consumer batch parsing a large payload would.
      const until = performance.now() + 300;
      while (performance.now() < until) {
        // busy: the probe's timer cannot fire
      }
      const lag = admission.lagMs();
      const write = admission.admit();
      const read = admission.admit();

      // Assess
      expect(lag).toBeGreaterThan(100);
      expect(write).toBeUndefined();
      expect(read).toBeUndefined();
      expect(admission.busy()).toBe(true);
    } finally {
      admission.stop();
    }
  });
});
