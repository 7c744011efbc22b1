// The V8 heap of the process that runs the local runtime, sized for a laptop that does other
// things. V8's defaults suit a server with memory to spare: the young generation grows to 2 × 16 MiB
// under a high allocation rate (every request and every store call allocates), and the old
// generation may grow to up to 4× what the last collection left before the next one runs. Neither
// limit can be changed once the main thread's heap exists (and `tsx bin/local.ts` has no place for
// node flags), but two flags V8 reads at every collection can:
//  - --heap-growing-percent: the old generation grows by this much past what survived a full
//    collection before the next one (a little more collecting, a much lower peak);
//  - --semi-space-growth-factor: 1 stops the young generation growing. It is let grow to
//    `youngMb` and then held there: after every collection (a `gc` performance entry) the factor
//    is set to 1 while one more doubling would pass `youngMb`, and back to V8's 2 below that.
// The worker threads' heaps are bounded where they are created (emulators.ts, resourceLimits).
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export interface HeapOptions {
  /** The young generation's size (both semi-spaces together, MiB) past which it stops growing (default 8). */
  youngMb?: number;
  /** How much the old generation may grow past what a full collection kept, in percent (default 20). */
  growingPercent?: number;
}

const youngBytes = (): number => getHeapSpaceStatistics().reduce((sum, s) => (s.space_name === 'new_space' ? sum + s.space_size : sum), 0);

/** Applies the limits to this process; returns a stop for the young generation's watch (the flags stay). */
export function keepHeapSmall(options: HeapOptions = {}): () => void {
  const limit = (options.youngMb ?? 8) * 1024 * 1024;
  setFlagsFromString(`--heap-growing-percent=${options.growingPercent ?? 20}`);
  let held: boolean | undefined;
  const check = (): void => {
    // V8 grows the young generation by doubling it, at a collection.
    const hold = youngBytes() * 2 > limit;
    if (hold === held) return;
    setFlagsFromString(`--semi-space-growth-factor=${hold ? 1 : 2}`);
    held = hold;
  };
  check();
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  return () => observer.disconnect();
}
