// Overload control of the local runtime's one API process. A request the process cannot start on
// soon is refused at once with 503 service_unavailable and Retry-After, instead of joining a queue
// that grows for seconds; and the queue pollers, which share the event loop with the API, give
// way while the API is busy, so draining a backlog never starves the requests a client waits on.
import type { Logger } from '../logger';

export interface AdmissionOptions {
  /** Requests handled at once; the next one is refused (default 32). */
  maxInFlight?: number;
  /**
   * Event-loop lag (ms) above which new requests are refused (default 200): how overdue, at the
   * moment the request is parsed, a timer is that should fire every `sampleMs`. That is how long
   * the request has waited behind other work; a stall that has already passed (a module loaded on
   * first use) does not count, the next timer has fired by then.
   */
  maxLagMs?: number;
  /** Seconds a refused client is told to wait (Retry-After; default 1). */
  retryAfterSeconds?: number;
  /** Queue consumer batches handled at once, all queues together (default 2). */
  maxConsumerBatches?: number;
  /** Longest a poller defers to a busy API before it takes a batch anyway (default 250 ms). */
  maxDeferMs?: number;
  /** Period of the lag probe (default 20 ms). */
  sampleMs?: number;
}

export type Refusal = { reason: 'in_flight' | 'event_loop_lag'; retryAfterSeconds: number };

const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

export class Admission {
  readonly maxInFlight: number;
  readonly maxLagMs: number;
  readonly retryAfterSeconds: number;
  readonly maxConsumerBatches: number;
  readonly maxDeferMs: number;
  private readonly sampleMs: number;
  private inFlight = 0;
  private consumerBatches = 0;
  private readonly consumerWaiters: Array<() => void> = [];
  private lastTick = performance.now();
  private lastLag = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Requests refused since start, by reason (the benchmark reads them). */
  readonly refused = { in_flight: 0, event_loop_lag: 0 };

  constructor(options: AdmissionOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 32;
    this.maxLagMs = options.maxLagMs ?? 200;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.maxConsumerBatches = options.maxConsumerBatches ?? 2;
    this.maxDeferMs = options.maxDeferMs ?? 250;
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

  /** How overdue the lag probe is right now: the wait of work queued behind the current work. */
  overdueMs(): number {
    if (!this.timer) return 0;
    return Math.max(0, performance.now() - this.lastTick - this.sampleMs);
  }

  /** The event loop's recent lag: the last sample's, or the overdue probe's if it is later still. */
  lagMs(): number {
    return Math.max(this.timer ? this.lastLag : 0, this.overdueMs());
  }

  /** Takes a request slot, or says why not. Every admitted request must be `release`d once. */
  admit(): Refusal | undefined {
    const reason = this.inFlight >= this.maxInFlight ? 'in_flight' : this.overdueMs() > this.maxLagMs ? 'event_loop_lag' : undefined;
    if (reason) {
      this.refused[reason]++;
      return { reason, retryAfterSeconds: this.retryAfterSeconds };
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

  /** True while the API uses more than half its room (requests or lag): pollers hold back. */
  busy(): boolean {
    return this.inFlight >= this.maxInFlight / 2 || this.lagMs() > this.maxLagMs / 2;
  }

  /**
   * Runs one consumer batch when its turn comes: at most `maxConsumerBatches` at once, each taken
   * only once the API is not busy or `maxDeferMs` has passed, so queues still drain under steady load.
   */
  async consumerTurn<T>(work: () => Promise<T>): Promise<T> {
    const deferUntil = performance.now() + this.maxDeferMs;
    while (this.busy() && performance.now() < deferUntil) await pause(this.sampleMs);
    if (this.consumerBatches >= this.maxConsumerBatches) await new Promise<void>((resolve) => this.consumerWaiters.push(resolve));
    else this.consumerBatches++;
    try {
      return await work();
    } finally {
      // The slot passes straight to a waiter, if any; otherwise it is given back.
      const next = this.consumerWaiters.shift();
      if (next) next();
      else this.consumerBatches--;
    }
  }
}

/** Logs shedding at most once per `everyMs` with the counts since the last line. */
export function shedLogger(admission: Admission, logger: Logger, everyMs = 10_000): () => void {
  let last = 0;
  let seen = { ...admission.refused };
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    const since = { in_flight: admission.refused.in_flight - seen.in_flight, event_loop_lag: admission.refused.event_loop_lag - seen.event_loop_lag };
    seen = { ...admission.refused };
    logger.warn('overloaded: refusing requests with 503 service_unavailable', { refused_since_last: since, in_flight: admission.requestsInFlight, lag_ms: Math.round(admission.lagMs()) });
  };
}
