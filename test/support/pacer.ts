// Keeps a client under a per-second request limit, the way a well-behaved client paces itself:
// at most `perSecond` requests start in any second, counted per bucket (an account, a client IP).
// This is rate control, not synchronization: nothing waits for something else to happen.
import { setTimeout as pause } from 'node:timers/promises';

export class Pacer {
  private readonly started = new Map<string, number[]>();

  constructor(
    /** Requests a bucket may start in any window; keep it under the service's limit. */
    private readonly perSecond: number,
    private readonly windowMs = 1000,
  ) {}

  /** Resolves when a request of `bucket` may start, and counts it. */
  async slot(bucket: string): Promise<void> {
    for (;;) {
      const now = Date.now();
      const recent = (this.started.get(bucket) ?? []).filter((t) => now - t < this.windowMs);
      this.started.set(bucket, recent);
      if (recent.length < this.perSecond) {
        recent.push(now);
        return;
      }
      await pause(recent[0]! + this.windowMs - now + 5);
    }
  }
}

/**
 * Seconds a refusal asks to wait (Retry-After), when it is a refusal made before the route ran:
 * the per-second limiter (429 rate_limit_exceeded with no budget remaining) or the local runtime
 * shedding load (503 service_unavailable). Undefined for every other answer, which is the route's.
 */
export function refusedBeforeRoute(status: number, headers: Headers, body: unknown): number | undefined {
  const code = (body as { error?: { code?: string } } | undefined)?.error?.code;
  const limited = status === 429 && code === 'rate_limit_exceeded' && headers.get('x-ratelimit-remaining') === '0';
  const shed = status === 503 && code === 'service_unavailable';
  if (!limited && !shed) return undefined;
  const seconds = Number(headers.get('retry-after') ?? '1');
  return Number.isFinite(seconds) && seconds > 0 ? seconds : 1;
}
