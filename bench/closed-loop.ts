// A bounded closed-loop load generator: `concurrency` lanes, each issuing its next operation as
// soon as the previous one finished, for a warm-up and then a fixed measuring window. Only
// completions inside the window count; nothing is issued after it closes.

export interface LoopOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
  /** Hard cap on operations issued, so the loop is bounded even if time misbehaves. */
  maxOps: number;
}

export interface LoopResult {
  /** Latency of every operation completed inside the measuring window, in ms. */
  latenciesMs: number[];
  /** Actual length of the measuring window, in ms. */
  windowMs: number;
  /** Outcome label → count, inside the measuring window. */
  outcomes: Record<string, number>;
  /** Outcome label → count, during the warm-up (and the tail after the window). */
  outsideOutcomes: Record<string, number>;
  issued: number;
}

/** `op(i)` returns an outcome label such as an HTTP status; a throw is recorded as `error:<name>`. */
export async function runClosedLoop(op: (i: number) => Promise<string>, options: LoopOptions): Promise<LoopResult> {
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  const latenciesMs: number[] = [];
  const outcomes: Record<string, number> = {};
  const outsideOutcomes: Record<string, number> = {};
  let issued = 0;

  const lane = async (): Promise<void> => {
    while (performance.now() < end && issued < options.maxOps) {
      const i = issued++;
      const t0 = performance.now();
      let outcome: string;
      try {
        outcome = await op(i);
      } catch (error) {
        const e = error as { code?: string; name?: string };
        outcome = `error:${e?.code ?? e?.name ?? 'unknown'}`;
      }
      const t1 = performance.now();
      if (t1 >= measureFrom && t1 <= end) {
        latenciesMs.push(t1 - t0);
        outcomes[outcome] = (outcomes[outcome] ?? 0) + 1;
      } else {
        outsideOutcomes[outcome] = (outsideOutcomes[outcome] ?? 0) + 1;
      }
    }
  };

  await Promise.all(Array.from({ length: options.concurrency }, lane));
  return { latenciesMs, windowMs: Math.min(end, performance.now()) - measureFrom, outcomes, outsideOutcomes, issued };
}
