// Sliding-window limiter whose state lives in the store, so every process and every Lambda
// shares one budget per subject. A subject has `limit` slot items, each holding the time of the
// admission it last allowed. A request is admitted by a conditional write that claims a slot whose
// admission is at least a window old. Each slot admits at most once per window, so no window ever
// holds more than `limit` admissions, and while fewer happened some slot is free: exactly a
// sliding log of `limit` entries. Concurrent requests spread over different slots instead of
// fighting over one item.
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';
import { RateSlotRepository } from './repository';

export const ACCOUNT_RATE_LIMIT = 10;
export const IP_RATE_LIMIT = 10;
export const RATE_WINDOW_MS = 1000;
const MAX_ROUNDS = 20;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the oldest admission in the window ages out. */
  resetEpochSeconds: number;
  /** Whole seconds to wait; set when refused. */
  retryAfterSeconds?: number;
}

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function shuffled<T>(list: T[]): T[] {
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j] as T, list[i] as T];
  }
  return list;
}

export async function admit(
  deps: { store: Store; clock: Clock },
  subject: string,
  limit: number,
  windowMs = RATE_WINDOW_MS,
): Promise<RateDecision> {
  const slots = new RateSlotRepository(deps.store);
  const slotNumbers = Array.from({ length: limit }, (_, slot) => slot);
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // The first read may be eventually consistent (half the cost): a stale read can only miss a
    // recent claim, which makes a conditional write below fail. Reads after that are strong.
    const admissions = await slots.lastAdmissions(subject, limit, round > 0);
    const now = deps.clock.now().getTime();
    const cutoff = now - windowMs;
    const busy = [...admissions.values()].filter((at) => at > cutoff).sort((a, b) => a - b);
    const free = shuffled(slotNumbers.filter((slot) => (admissions.get(slot) ?? -Infinity) <= cutoff));
    if (free.length === 0) {
      const resetMs = (busy[0] as number) + windowMs;
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetEpochSeconds: Math.ceil(resetMs / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      };
    }
    for (const [index, slot] of free.entries()) {
      if (!(await slots.claim(subject, slot, now, cutoff))) continue; // another request took this slot
      const oldest = busy[0] ?? now;
      return {
        allowed: true,
        limit,
        remaining: Math.max(0, free.length - index - 1),
        resetEpochSeconds: Math.ceil((oldest + windowMs) / 1000),
      };
    }
    await pause(Math.random() * 3); // every free slot was taken under us: read again
  }
  // Contention this deep means the budget is being fought over: refuse rather than over-admit.
  const now = deps.clock.now().getTime();
  return { allowed: false, limit, remaining: 0, resetEpochSeconds: Math.ceil((now + windowMs) / 1000), retryAfterSeconds: 1 };
}
