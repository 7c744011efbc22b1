// Sliding-window limiter whose state lives in the store, so every process and every Lambda
// shares one budget per subject. The state is a log of the subject's latest `limit` admissions in
// one item; a request is admitted by one conditional UpdateItem that holds when the oldest of
// them is at least a window old (fewer than `limit` admissions inside the window) and that shifts
// the new admission in. That is exactly a sliding log of `limit` entries: capacity returns as each
// admission ages past the window, never more than `limit` pass in any window, and a refused
// write means the window really is full (DynamoDB applies conditional writes to one item one at
// a time, so concurrent requests cannot both take the last place). Nothing is read before the
// write; a refusal reads the log once to say when its oldest admission leaves.
//
// Times come from the clock of the process that admits. Processes whose clocks disagree by d ms
// can move the edge of a window by d ms, no more: the log stays exact in its own terms.
import type { Store } from '../../db/store';
import type { Clock } from '../../ports/clock';
import { keys } from '../../db/keys';
import { clientNetworkOf } from './client-network';
import { RateLogRepository } from './repository';

/** The rate-limit subject of a client IP: its network (an IPv4 address, an IPv6 address's /64). */
export const ipSubject = (ip: string): string => keys.ipRateSubject(clientNetworkOf(ip));

export const ACCOUNT_RATE_LIMIT = 10;
export const IP_RATE_LIMIT = 10;
export const RATE_WINDOW_MS = 1000;
/** The log outlives its newest admission's window by this much, for clocks that run behind. */
const EXPIRY_SLACK_SECONDS = 60;

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds when the oldest admission in the window ages out. */
  resetEpochSeconds: number;
  /** Whole seconds to wait; set when refused. */
  retryAfterSeconds?: number;
}

export async function admit(
  deps: { store: Store; clock: Clock },
  subject: string,
  limit: number,
  windowMs = RATE_WINDOW_MS,
): Promise<RateDecision> {
  const log = new RateLogRepository(deps.store);
  const now = deps.clock.now().getTime();
  const cutoff = now - windowMs;
  const after = await log.append(subject, limit, { now, cutoff, expiresAt: Math.ceil((now + windowMs) / 1000) + EXPIRY_SLACK_SECONDS });
  if (after) {
    // The remaining count is this admission's own: taken from the write that admitted it.
    const inWindow = after.filter((at) => at > cutoff);
    return { allowed: true, limit, remaining: limit - inWindow.length, resetEpochSeconds: Math.ceil((Math.min(...inWindow) + windowMs) / 1000) };
  }
  // The refusal stands whatever this read says; it only tells when capacity returns. Without it
  // (the store failed), the longest possible wait is the answer.
  const oldest = (await log.oldest(subject).catch(() => undefined)) ?? now;
  const resetMs = Math.max(oldest + windowMs, now);
  return {
    allowed: false,
    limit,
    remaining: 0,
    resetEpochSeconds: Math.ceil(resetMs / 1000),
    retryAfterSeconds: Math.max(1, Math.ceil((resetMs - now) / 1000)),
  };
}

/**
 * Whether `admit` would refuse now, without counting anything: one read. For budgets that count
 * only failures (sign-in attempts): the caller looks before trying and admits on failure.
 */
export async function exhausted(
  deps: { store: Store; clock: Clock },
  subject: string,
  windowMs: number,
): Promise<{ retryAfterSeconds: number } | undefined> {
  const now = deps.clock.now().getTime();
  // The log holds exactly `limit` slots: its oldest inside the window means the window is full.
  const oldest = await new RateLogRepository(deps.store).oldest(subject);
  if (oldest === undefined || oldest <= now - windowMs) return undefined;
  return { retryAfterSeconds: Math.max(1, Math.ceil((oldest + windowMs - now) / 1000)) };
}
