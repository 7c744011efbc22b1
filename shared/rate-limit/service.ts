// Sliding-window limiter whose state lives in the store, so every process and every Lambda
// shares one budget per subject. A subject has `limit` slot items, each holding the time of the
// admission it last allowed. A request is admitted by a conditional write that claims a slot whose
// admission is at least a window old. Each slot admits at most once per window, so no window ever
// holds more than `limit` admissions, and while fewer happened some slot is free: exactly a
// sliding log of `limit` entries. Concurrent requests spread over different slots instead of
// fighting over one item.
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError } from '../errors';
import type { Clock } from '../ports/clock';

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

interface SlotItem {
  pk: string;
  sk: string;
  at: number;
}

export const accountSubject = (accountId: string): string => `acct#${accountId}`;
export const ipSubject = (ip: string): string => `ip#${ip}`;

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
  const slotKeys = Array.from({ length: limit }, (_, i) => keys.rateSlot(subject, i));
  for (let round = 0; round < MAX_ROUNDS; round++) {
    // The first read may be eventually consistent (half the cost): a stale read can only miss a
    // recent claim, which makes a conditional write below fail. Reads after that are strong.
    const found = await deps.store.batchGet<SlotItem>(slotKeys, { consistent: round > 0 });
    const now = deps.clock.now().getTime();
    const cutoff = now - windowMs;
    const bySk = new Map(found.map((slot) => [slot.sk, slot.at]));
    const busy = [...bySk.values()].filter((at) => at > cutoff).sort((a, b) => a - b);
    const free = shuffled(slotKeys.filter((k) => (bySk.get(k.sk) ?? -Infinity) <= cutoff));
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
      try {
        await deps.store.put(
          { ...slot, entity: 'rate_slot', at: now, expires_at: Math.ceil(now / 1000) + 3600 },
          { expression: 'attribute_not_exists(pk) OR #at <= :cutoff', names: { '#at': 'at' }, values: { ':cutoff': cutoff } },
        );
      } catch (error) {
        if (error instanceof ConditionFailedError) continue; // another request took this slot
        throw error;
      }
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
