// Overload control of the local runtime's one API process. It refuses only what it cannot start:
// a request that finds `maxInFlight` others in flight is answered 503 service_unavailable with
// Retry-After at once, before its body is read. It never refuses because the queue consumers are
// behind or the event loop is slow: accepted work is queued, as SQS queues it, and drained at the
// pace the machine allows (issue 31). A request that arrives while consumers run waits its turn on
// the event loop instead of being turned away.
//
// The queue pollers share the event loop with the API and get a fair share of it: a floor of
// consumer batches that always runs, however busy the API is (so a burst drains while more
// requests arrive), and more, up to a ceiling, while the API leaves room. "Busy" is half the
// in-flight bound taken, or the event loop lagging (a probe timer running late), so the consumers
// step back to their floor while the API has requests waiting.
import type { Logger } from '../logger';

export interface AdmissionOptions {
  /** Requests handled at once; the next one is refused (default 32). */
  maxInFlight?: number;
  /** Seconds a refused client is told to wait (Retry-After; default 1). */
  retryAfterSeconds?: number;
  /** Queue consumer batches handled at once, all queues together, while the API has room (default 12). */
  maxConsumerBatches?: number;
  /**
   * Consumer batches that run at once however busy the API is: the consumers' share that API load
   * never takes away (default 6, at most maxConsumerBatches). Past it, a batch waits for one to end
   * while the API is busy.
   */
  minConsumerBatches?: number;
  /**
   * Event-loop lag (ms) above which the API counts as busy and the consumers keep to their floor
   * (default 100): how overdue a timer is that should fire every `sampleMs`. It refuses nothing.
   */
  busyLagMs?: number;
  /** Period of the lag probe (default 20 ms). */
  sampleMs?: number;
}

export type Refusal = { reason: 'in_flight'; retryAfterSeconds: number };

export class Admission {
  readonly maxInFlight: number;
  readonly retryAfterSeconds: number;
  readonly maxConsumerBatches: number;
  readonly minConsumerBatches: number;
  readonly busyLagMs: number;
  private readonly sampleMs: number;
  private inFlight = 0;
  private consumerBatches = 0;
  private readonly consumerWaiters: Array<() => void> = [];
  private lastTick = performance.now();
  private lastLag = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Requests refused since start, by reason (the shedding log reports them). */
  readonly refused = { in_flight: 0 };

  constructor(options: AdmissionOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 32;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.maxConsumerBatches = Math.max(1, options.maxConsumerBatches ?? 12);
    this.minConsumerBatches = Math.max(1, Math.min(this.maxConsumerBatches, options.minConsumerBatches ?? 6));
    this.busyLagMs = options.busyLagMs ?? 100;
    this.sampleMs = options.sampleMs ?? 20;
  }

  /** Starts the lag probe (an unref'd timer). */
  start(): this {
    if (this.timer) return this;
    this.lastTick = performance.now();
    this.timer = setInterval(() => {
      const now = performance.now();
      this.lastLag = Math.max(0, now - this.lastTick - this.sampleMs);
      this.lastTick = now;
    }, this.sampleMs).unref();
    return this;
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** The event loop's recent lag: the last sample's, or the overdue probe's if it is later still. */
  lagMs(): number {
    if (!this.timer) return 0;
    return Math.max(this.lastLag, performance.now() - this.lastTick - this.sampleMs);
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

  /** True while the API uses half its request room or the loop lags: consumers keep to their floor. */
  busy(): boolean {
    return this.inFlight >= this.maxInFlight / 2 || this.lagMs() > this.busyLagMs;
  }

  /** Consumer batches running now. */
  get consumerBatchesRunning(): number {
    return this.consumerBatches;
  }

  private consumerMayStart(): boolean {
    return this.consumerBatches < this.minConsumerBatches || (this.consumerBatches < this.maxConsumerBatches && !this.busy());
  }

  /**
   * Runs one consumer batch when its turn comes: at once while fewer than `minConsumerBatches` run,
   * or fewer than `maxConsumerBatches` and the API is not busy; otherwise once a running batch ends
   * and it is the longest waiting (first come, first served, so every queue gets its turns).
   */
  async consumerTurn<T>(work: () => Promise<T>): Promise<T> {
    if (this.consumerWaiters.length === 0 && this.consumerMayStart()) this.consumerBatches++;
    else await new Promise<void>((resolve) => this.consumerWaiters.push(resolve));
    try {
      return await work();
    } finally {
      this.consumerBatches--;
      // Every slot given back lets the longest waiters start, as many as the API's load allows now.
      while (this.consumerWaiters.length > 0 && this.consumerMayStart()) {
        this.consumerBatches++;
        this.consumerWaiters.shift()?.();
      }
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
    logger.warn('overloaded: refusing requests with 503 service_unavailable', { refused_since_last: { in_flight: since }, in_flight: admission.requestsInFlight, lag_ms: Math.round(admission.lagMs()) });
  };
}
