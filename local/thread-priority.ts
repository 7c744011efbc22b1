// The API thread first when the CPU is short: the functions thread (consumers, timed functions,
// the scheduler, the SMTP listener) lowers its own scheduling priority, as a Lambda function's work
// never competes with the API's. On Linux a nice value is a thread's own (setpriority(2) on its
// thread id); the API thread and the store's thread keep the process's. Elsewhere nothing changes.
import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * The functions thread's nice value: its work gets about a third of the CPU the API's gets when
 * both want it (CFS weights 335 and 1024), and all of what the API leaves.
 */
export const FUNCTIONS_NICE = 5;

/** Raises the calling thread's nice value by `nice` (at most to 19); false where that cannot be done (not Linux, refused). */
export function niceThisThread(nice: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    // /proc/thread-self names the calling thread: <pid>/task/<tid>.
    const tid = Number(readlinkSync('/proc/thread-self').split('/').pop());
    if (!Number.isInteger(tid) || tid <= 0) return false;
    setPriority(tid, Math.min(19, getPriority(tid) + nice));
    return true;
  } catch {
    return false;
  }
}
