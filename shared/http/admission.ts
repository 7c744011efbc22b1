// The rate limiter's place in the request pipeline (shared/http/pipeline.ts). A request that may
// change something is admitted before its route runs. A safe one (GET, HEAD) changes nothing, so
// its admission (the limiter's one conditional write) runs beside its route instead of before it:
// the answer waits for both, and a refusal replaces whatever the route answered. That saves a
// store round trip on every read. So that a caller past its limit cannot make the routes work
// for answers it is refused, a subject refused in this process is admitted before its route again
// until its window resets.
import { ApiError } from '../errors';
import { admit, type RateDecision } from '../accounts/rate-limit/service';
import { describeError } from '../adapters/logger';
import type { Container } from '../runtime/container';

function rateHeaders(decision: RateDecision): Record<string, string> {
  const headers: Record<string, string> = {
    'x-ratelimit-limit': String(decision.limit),
    'x-ratelimit-remaining': String(decision.remaining),
    'x-ratelimit-reset': String(decision.resetEpochSeconds),
  };
  if (!decision.allowed) headers['retry-after'] = String(decision.retryAfterSeconds ?? 1);
  return headers;
}

const rateLimited = (): ApiError => new ApiError('rate_limit_exceeded', 'too many requests; retry after the number of seconds in Retry-After');

/** Subjects refused lately in this process, with when their window resets (epoch ms). Bounded: cleared past this size. */
const refusedUntil = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

function rememberRefusal(subject: string, decision: RateDecision): void {
  if (refusedUntil.size >= MAX_REMEMBERED) refusedUntil.clear();
  refusedUntil.set(subject, decision.resetEpochSeconds * 1000);
}

function refusedLately(c: Container, subject: string): boolean {
  const until = refusedUntil.get(subject);
  if (until === undefined) return false;
  if (until > c.clock.now().getTime()) return true;
  refusedUntil.delete(subject);
  return false;
}

/** Limits the account or IP: its rate headers, or a 429 thrown. If the limiter's store fails, the request goes on without headers. */
export async function limit(c: Container, subject: string, ceiling: number, requestId: string): Promise<Record<string, string>> {
  let decision: RateDecision;
  try {
    decision = await admit(c, subject, ceiling);
  } catch (error) {
    c.logger.warn('rate limiter unavailable; request proceeds unlimited', { requestId, subject, error: describeError(error) });
    return {};
  }
  if (!decision.allowed) {
    rememberRefusal(subject, decision);
    const err = rateLimited();
    Object.assign(err.headers, rateHeaders(decision));
    throw err;
  }
  return rateHeaders(decision);
}

export const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** An admission the pipeline settles before it answers: the rate headers, or the 429 that replaces the answer. */
export type PendingAdmission = Promise<{ headers: Record<string, string> } | { refused: ApiError }>;

/**
 * Admits a request: before its route (awaited here, a refusal thrown) unless it is a safe method
 * whose subject this process has not refused lately; then the admission is returned pending, to
 * run beside the route.
 */
export async function admission(
  c: Container,
  { method, subject, ceiling, requestId }: { method: string; subject: string; ceiling: number; requestId: string },
): Promise<{ headers: Record<string, string> } | { pending: PendingAdmission }> {
  if (!SAFE_METHODS.has(method.toUpperCase()) || refusedLately(c, subject)) return { headers: await limit(c, subject, ceiling, requestId) };
  const pending: PendingAdmission = limit(c, subject, ceiling, requestId).then(
    (headers) => ({ headers }),
    (error: unknown) => ({ refused: error instanceof ApiError ? error : rateLimited() }),
  );
  return { pending };
}
