// Timing helpers every benchmark shares: a bounded closed-loop load generator, latency summaries,
// number formatting, and the worker thread that generates load off the server's event loop.
import { Worker } from 'node:worker_threads';

export interface LoopOptions {
  concurrency: number;
  warmupMs: number;
  durationMs: number;
}

export interface LoopResult {
  /** Latency of every operation completed inside the measured window, in ms. */
  latenciesMs: number[];
  windowMs: number;
  /** Outcome label → count inside the window (a throw counts as `error:<name>`). */
  outcomes: Record<string, number>;
}

/** `concurrency` lanes each issue `op(i)` as soon as their previous one finished; only completions inside the window count. */
export async function closedLoop(op: (i: number) => Promise<string>, options: LoopOptions): Promise<LoopResult> {
  const measureFrom = performance.now() + options.warmupMs;
  const end = measureFrom + options.durationMs;
  const out: LoopResult = { latenciesMs: [], windowMs: 0, outcomes: {} };
  let issued = 0;
  const lane = async (): Promise<void> => {
    while (performance.now() < end) {
      const t0 = performance.now();
      const outcome = await op(issued++).catch((e: { code?: string; name?: string }) => `error:${e?.code ?? e?.name ?? 'unknown'}`);
      const t1 = performance.now();
      if (t1 < measureFrom || t1 > end) continue;
      out.latenciesMs.push(t1 - t0);
      out.outcomes[outcome] = (out.outcomes[outcome] ?? 0) + 1;
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, lane));
  out.windowMs = Math.min(end, performance.now()) - measureFrom;
  return out;
}

/** Completions per second, pooled over several windows. */
export const rate = (...loops: LoopResult[]): number =>
  (loops.reduce((n, r) => n + r.latenciesMs.length, 0) * 1000) / loops.reduce((n, r) => n + r.windowMs, 0);

/** Outcomes other than `ok`, pooled. */
export const failures = (ok: string, ...loops: LoopResult[]): number =>
  loops.reduce((n, r) => n + Object.entries(r.outcomes).reduce((k, [o, v]) => (o === ok ? k : k + v), 0), 0);

/** Nearest-rank percentile (p in 0..100). */
export function percentile(values: readonly number[], p: number): number {
  if (!values.length) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;
}

export const median = (values: readonly number[]): number => percentile(values, 50);
export const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

export const latencyCells = (ms: readonly number[], digits = 1): string =>
  [50, 90, 99, 100].map((p) => fmt(percentile(ms, p), digits)).join(' | ');

export const fmt = (value: number, digits = 1): string => (Number.isFinite(value) ? value.toFixed(digits) : 'n/a');
export const fmtInt = (value: number): string => (Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : 'n/a');
/** Small counts without noise: 6, 0.25, 0.0041. */
export const units = (x: number): string => (x === 0 ? '0' : x >= 0.1 ? fmt(x, 2).replace(/\.00$/, '') : x.toPrecision(2));
export const dollars = (x: number): string => `$${x < 0.01 && x > 0 ? x.toFixed(4) : x.toFixed(2)}`;

export const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `done` every 5 ms; false when `timeoutMs` passed first. */
export async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (!done()) {
    if (performance.now() > deadline) return false;
    await sleep(5);
  }
  return true;
}

/** bench/lib/load-worker.ts in a worker thread; tsx's loader does not reach workers on its own. */
export class LoadWorker<Task> {
  private readonly worker: Worker;

  constructor() {
    const tsxApi = import.meta.resolve('tsx/esm/api');
    const file = new URL('./load-worker.ts', import.meta.url).href;
    const code = `import(${JSON.stringify(tsxApi)}).then(({ tsImport }) => tsImport(${JSON.stringify(file)}, ${JSON.stringify(import.meta.url)}))`;
    this.worker = new Worker(code, { eval: true });
  }

  run(task: Task): Promise<LoopResult> {
    return new Promise((resolve, reject) => {
      const onMessage = (reply: { ok: true; result: LoopResult } | { ok: false; error: string }): void => {
        this.worker.off('error', reject);
        if (reply.ok) resolve(reply.result);
        else reject(new Error(`load worker: ${reply.error}`));
      };
      this.worker.once('message', onMessage);
      this.worker.once('error', reject);
      this.worker.postMessage(task);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}
