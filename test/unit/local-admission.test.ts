// The local runtime's overload control: the API refuses only past its in-flight bound, never
// because the loop lags or the consumers are behind (issue 31); the queue consumers, on a thread of
// their own, are bounded only by how many batches run at once, whatever the API's load.
import { describe, expect, it } from 'vitest';
import { Admission } from '../../local/admission';
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
  it('runs up to its bound of batches however busy the API is, and the next once one ends', async () => {
    // Prepare: the API's whole request room taken
    const admission = new Admission({ maxInFlight: 2, maxConsumerBatches: 3 });
    expect(admission.admit()).toBeUndefined();
    expect(admission.admit()).toBeUndefined();
    const b = batches(admission);

    // Act: five batches want to run
    const all = Promise.all([b.start(), b.start(), b.start(), b.start(), b.start()]);
    await waitFor(() => b.running === 3, { what: 'three batches to run' });

    // Assess: the bound runs whatever the API's load; the rest wait their turn
    expect(admission.consumerBatchesRunning).toBe(3);
    b.releaseOne();
    await waitFor(() => b.running === 3 && admission.consumerBatchesRunning === 3, { what: 'the fourth batch to take the slot' });
    for (let left = 3; left > 0; left--) {
      b.releaseOne();
      await waitFor(() => b.running === Math.min(3, left), { what: `${left} batches to be left running` });
    }
    b.releaseOne();
    await all;
    expect(admission.consumerBatchesRunning).toBe(0);
  });

  it('never runs fewer than one batch, whatever it is given', () => {
    const admission = new Admission({ maxConsumerBatches: 0 });
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

  it('refuses nothing while the event loop is held; only the in-flight bound refuses', () => {
    const admission = new Admission();
    // Act: hold the loop, as a long synchronous piece of work would.
    const until = performance.now() + 300;
    while (performance.now() < until) {
      // busy
    }
    const write = admission.admit();
    const read = admission.admit();

    // Assess
    expect(write).toBeUndefined();
    expect(read).toBeUndefined();
    expect(admission.refused).toEqual({ in_flight: 0 });
  });
});
