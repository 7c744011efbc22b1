// Sliding-window limiter whose state lives in the store, so every process and every Lambda
// shares one budget per subject. One item per subject holds the admission times of the last
// second; admissions are optimistic-locked writes on its version, so under any concurrency exactly
// `limit` requests pass in a window.
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError } from '../errors';
import type { Clock } from '../ports/clock';

export const ACCOUNT_RATE_LIMIT = 10;
export const IP_RATE_LIMIT = 10;
export const RATE_WINDOW_MS = 1000;
const MAX_ATTEMPTS = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the oldest admission in the window ages out. */
  resetEpochSeconds: number;
  /** Whole seconds to wait; set when refused. */
  retryAfterSeconds?: number;
}

interface WindowItem {
  pk: string;
  sk: string;
  hits: number[];
  version: number;
}

export const accountSubject = (accountId: string): string => `acct#${accountId}`;
export const ipSubject = (ip: string): string => `ip#${ip}`;

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export async function admit(
  deps: { store: Store; clock: Clock },
  subject: string,
  limit: number,
  windowMs = RATE_WINDOW_MS,
): Promise<RateDecision> {
  const key = keys.rateWindow(subject);
  for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
    const item = await deps.store.get<WindowItem>(key);
    const now = deps.clock.now().getTime();
    const live = (item?.hits ?? []).filter((t) => t > now - windowMs).sort((a, b) => a - b);
    if (live.length >= limit) {
      const resetMs = (live[0] as number) + windowMs;
      return {
        allowed: false,
        limit,
        remaining: 0,
        resetEpochSeconds: Math.ceil(resetMs / 1000),
        retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
      };
    }
    const hits = [...live, now];
    try {
      await deps.store.put(
        { ...key, entity: 'rate_window', hits, version: (item?.version ?? 0) + 1, expires_at: Math.ceil(now / 1000) + 3600 },
        item
          ? { expression: 'version = :version', values: { ':version': item.version } }
          : { expression: 'attribute_not_exists(pk)' },
      );
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      await pause(Math.random() * 4 * Math.min(attempt + 1, 5)); // lost the race: read again
      continue;
    }
    return {
      allowed: true,
      limit,
      remaining: limit - hits.length,
      resetEpochSeconds: Math.ceil(((hits[0] as number) + windowMs) / 1000),
    };
  }
  // Contention this deep means the budget is being fought over: refuse rather than over-admit.
  const now = deps.clock.now().getTime();
  return { allowed: false, limit, remaining: 0, resetEpochSeconds: Math.ceil((now + windowMs) / 1000), retryAfterSeconds: 1 };
}
