// Overload control of the local runtime. The API refuses only what it cannot start: a request
// that finds `maxInFlight` others in flight is answered 503 service_unavailable with Retry-After at
// once, before its body is read. It never refuses because the queue consumers are behind or the
// event loop is slow: accepted work is queued, as SQS queues it, and drained at the pace the
// machine allows (issue 31). Per-account limits are the rate limiter's, in the handlers.
//
// The queue consumers run on a thread of their own (functions-thread.ts), so the API no longer
// yields its loop to them; they are bounded only by how many batches run at once, all queues
// together (`consumerTurn`), in whichever thread runs them.
import type { Logger } from '../shared/adapters/logger';

export interface AdmissionOptions {
  /** Requests handled at once; the next one is refused (default 32). */
  maxInFlight?: number;
  /** Seconds a refused client is told to wait (Retry-After; default 1). */
  retryAfterSeconds?: number;
  /** Queue consumer batches handled at once, all queues together (default 12). */
  maxConsumerBatches?: number;
}

export type Refusal = { reason: 'in_flight'; retryAfterSeconds: number };

export class Admission {
  readonly maxInFlight: number;
  readonly retryAfterSeconds: number;
  readonly maxConsumerBatches: number;
  private inFlight = 0;
  private consumerBatches = 0;
  private readonly consumerWaiters: Array<() => void> = [];
  /** Requests refused since start, by reason (the shedding log reports them). */
  readonly refused = { in_flight: 0 };

  constructor(options: AdmissionOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 32;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.maxConsumerBatches = Math.max(1, options.maxConsumerBatches ?? 12);
  }

  /**
   * Takes a request slot, or says why not: only a full in-flight bound refuses. Every admitted
   * request must be `release`d once.
   */
  admit(): Refusal | undefined {
    if (this.inFlight >= this.maxInFlight) {
      this.refused.in_flight++;
      return { reason: 'in_flight', retryAfterSeconds: this.retryAfterSeconds };
    }
    this.inFlight++;
    return undefined;
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** Consumer batches running now. */
  get consumerBatchesRunning(): number {
    return this.consumerBatches;
  }

  /**
   * Runs one consumer batch when its turn comes: at once while fewer than `maxConsumerBatches`
   * run, otherwise once a running batch ends and it is the longest waiting (first come, first
   * served, so every queue gets its turns).
   */
  async consumerTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.consumerWaiters.length === 0 && this.consumerBatches < this.maxConsumerBatches) this.consumerBatches++;
    else await new Promise<void>((resolve) => this.consumerWaiters.push(resolve));
    try {
      return await work();
    } finally {
      // The slot passes to the longest waiter, if any.
      const next = this.consumerWaiters.shift();
      if (next) next();
      else this.consumerBatches--;
    }
  }
}

/** Logs shedding at most once per `everyMs` with the count since the last line. */
export function shedLogger(admission: Admission, logger: Logger, everyMs = 10_000): () => void {
  let last = 0;
  let seen = admission.refused.in_flight;
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    const since = admission.refused.in_flight - seen;
    seen = admission.refused.in_flight;
    logger.warn('overloaded: refusing requests with 503 service_unavailable', { refused_since_last: { in_flight: since }, in_flight: admission.requestsInFlight });
  };
}
