// The V8 heap of the process that runs the local runtime, sized for a laptop that does other
// things. V8's defaults suit a server with memory to spare: the young generation grows to 2 × 16 MiB
// under a high allocation rate (every request and every store call allocates), and the old
// generation may grow to up to 4× what the last collection left before the next one runs. Neither
// limit can be changed once the main thread's heap exists (`npm start` runs under tsx, with no
// place for node flags), but two flags V8 reads at every collection can:
//  - --heap-growing-percent: the old generation grows by this much past what survived a full
//    collection before the next one (a little more collecting, a much lower peak);
//  - --semi-space-growth-factor: 1 stops the young generation growing. It is let grow to
//    `youngMb` and then held there, by a probe that switches the factor between V8's 2 and 1.
// The worker threads' heaps are bounded where they are created (emulators.ts, resourceLimits).
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';

export interface HeapOptions {
  /** The young generation's size (both semi-spaces together, MiB) past which it stops growing (default 8). */
  youngMb?: number;
  /** How much the old generation may grow past what a full collection kept, in percent (default 20). */
  growingPercent?: number;
  /** Period of the young generation probe (default 1000 ms). */
  probeMs?: number;
}

const youngBytes = (): number => getHeapSpaceStatistics().reduce((sum, s) => (s.space_name === 'new_space' ? sum + s.space_size : sum), 0);

/** Applies the limits to this process; returns a stop for the probe (the flags stay). */
export function keepHeapSmall(options: HeapOptions = {}): () => void {
  const limit = (options.youngMb ?? 8) * 1024 * 1024;
  setFlagsFromString(`--heap-growing-percent=${options.growingPercent ?? 20}`);
  let held = false;
  const probe = (): void => {
    const full = youngBytes() >= limit;
    if (full === held) return;
    setFlagsFromString(`--semi-space-growth-factor=${full ? 1 : 2}`);
    held = full;
  };
  probe();
  const timer = setInterval(probe, options.probeMs ?? 1000).unref();
  return () => clearInterval(timer);
}
