// The rate limiter's place in the request pipeline (shared/http/pipeline.ts). A request that may
// change something is admitted before its route runs. A safe one (GET, HEAD) changes nothing, so
// its admission (the limiter's one conditional write) may run beside its route instead of before
// it: the answer waits for both, and a refusal replaces whatever the route answered. That saves a
// store round trip on a read. So that a caller past its limit cannot make the routes work for
// answers it is refused, a read runs beside its admission only while this process knows the
// subject has room for it: the room its last decision here left, less the reads already running
// beside theirs. A subject this process has not decided lately, or refused last, is admitted
// before its route. A burst of concurrent reads thus runs at most that many routes before their
// refusals, and a process (a Lambda instance) that has not seen the subject runs none.
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

/** What this process knows of a subject's room: what its last decision here left, and the reads running beside their admission. */
interface Room {
  remaining: number;
  inFlight: number;
}

/** Bounded: cleared past this many subjects (a subject forgotten is admitted before its route until decided again). */
const rooms = new Map<string, Room>();
const MAX_REMEMBERED = 10_000;

function remember(subject: string, decision: RateDecision): void {
  const room = rooms.get(subject);
  if (room) room.remaining = decision.allowed ? decision.remaining : 0;
  else {
    if (rooms.size >= MAX_REMEMBERED) rooms.clear();
    rooms.set(subject, { remaining: decision.allowed ? decision.remaining : 0, inFlight: 0 });
  }
}

/** Takes a place beside the limiter for one read when the subject's known room has one left: the place, to give back once decided. */
function placeBeside(subject: string): Room | undefined {
  const room = rooms.get(subject);
  if (!room || room.remaining - room.inFlight <= 0) return undefined;
  room.inFlight++;
  return room;
}

/** Limits the account or IP: its rate headers, or a 429 thrown. If the limiter's store fails, the request goes on without headers. */
export async function limit(c: Container, subject: string, ceiling: number, requestId: string): Promise<Record<string, string>> {
  let decision: RateDecision;
  try {
    decision = await admit(c, subject, ceiling);
    remember(subject, decision);
  } catch (error) {
    c.logger.warn('rate limiter unavailable; request proceeds unlimited', { requestId, subject, error: describeError(error) });
    return {};
  }
  if (!decision.allowed) {
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
 * Admits a request: before its route (awaited here, a refusal thrown), unless it is a safe method
 * and this process knows the subject has room for it (placeBeside); then the admission is
 * returned pending, to run beside the route.
 */
export async function admission(
  c: Container,
  { method, subject, ceiling, requestId }: { method: string; subject: string; ceiling: number; requestId: string },
): Promise<{ headers: Record<string, string> } | { pending: PendingAdmission }> {
  const place = SAFE_METHODS.has(method.toUpperCase()) ? placeBeside(subject) : undefined;
  if (!place) return { headers: await limit(c, subject, ceiling, requestId) };
  const pending: PendingAdmission = limit(c, subject, ceiling, requestId)
    .then(
      (headers) => ({ headers }),
      (error: unknown) => ({ refused: error instanceof ApiError ? error : rateLimited() }),
    )
    .finally(() => void place.inFlight--);
  return { pending };
}
