// Waiting on something a test can only ask about, not be told about: another process (the local
// runtime, the SES emulator), an emulator's queue. The condition is the synchronization; the pause
// between probes only spares the CPU. A wait that runs out fails, naming what never happened,
// instead of handing back whatever the last probe saw for an assertion to trip over.
import { setTimeout as pause } from 'node:timers/promises';

export interface WaitOptions {
  /** What the test waits for, as the timeout error names it; a function is asked at that moment (to show the last state). */
  what: string | (() => string);
  /** Default 10 s. Keep it under the test's own timeout, so this error, not vitest's, reports it. */
  timeoutMs?: number;
  /** Pause between probes; default 50 ms. */
  intervalMs?: number;
}

/**
 * Calls `probe` until it returns something other than undefined or false, and resolves with that.
 * Throws when `timeoutMs` passes first; an error the probe throws fails the wait at once.
 */
export async function waitFor<T>(probe: () => T | undefined | false | Promise<T | undefined | false>, options: WaitOptions): Promise<T> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== false) return value;
    if (Date.now() >= deadline) {
      const what = typeof options.what === 'function' ? options.what() : options.what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    }
    await pause(options.intervalMs ?? 50);
  }
}
