// Overload control of the local runtime's one API process. A request the process cannot start on
// soon is refused at once with 503 service_unavailable and Retry-After, instead of joining a queue
// that grows for seconds. The queue pollers share the event loop with the API and get a fair share
// of it: a floor of consumer batches that always runs, however busy the API is (so accepted work
// keeps moving and a send reaches `delivered` in seconds, not in however long the load lasts), and
// more, up to a ceiling, while the API leaves room. The API in turn sheds by the lag the consumers'
// work adds, so neither side can starve the other.
import type { Logger } from '../logger';
import type { Backlog } from './backlog';

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
  /** Queue consumer batches handled at once, all queues together, while the API has room (default 12). */
  maxConsumerBatches?: number;
  /**
   * Consumer batches that run at once however busy the API is: the consumers' share that API load
   * never takes away (default 6, at most maxConsumerBatches). Past it, a batch waits for one to end
   * while the API is busy.
   */
  minConsumerBatches?: number;
  /** Period of the lag probe (default 20 ms). */
  sampleMs?: number;
  /**
   * With a `backlog`: a request that may add work (any method but GET and HEAD) is refused while
   * the consumers would take longer than this (ms) to finish what is queued, at the pace they have
   * been finishing (default 1000), so the API accepts no faster than the consumers finish and
   * accepted work is done in seconds. Reads are never refused for it.
   */
  maxDrainMs?: number;
  /** A backlog smaller than this never refuses anything (default 20). */
  minBacklog?: number;
  /** The queued work not yet finished (backlog.ts). */
  backlog?: Pick<Backlog, 'size' | 'drainMs'>;
}

export type Refusal = { reason: 'in_flight' | 'event_loop_lag' | 'backlog'; retryAfterSeconds: number };

const READS = new Set(['GET', 'HEAD']);

export class Admission {
  readonly maxInFlight: number;
  readonly maxLagMs: number;
  readonly retryAfterSeconds: number;
  readonly maxConsumerBatches: number;
  readonly minConsumerBatches: number;
  readonly maxDrainMs: number;
  readonly minBacklog: number;
  private readonly backlog: Pick<Backlog, 'size' | 'drainMs'> | undefined;
  private readonly sampleMs: number;
  private inFlight = 0;
  private consumerBatches = 0;
  private readonly consumerWaiters: Array<() => void> = [];
  private lastTick = performance.now();
  private lastLag = 0;
  private timer: NodeJS.Timeout | undefined;
  /** Requests refused since start, by reason (the benchmark reads them). */
  readonly refused = { in_flight: 0, event_loop_lag: 0, backlog: 0 };

  constructor(options: AdmissionOptions = {}) {
    this.maxInFlight = options.maxInFlight ?? 32;
    this.maxLagMs = options.maxLagMs ?? 200;
    this.retryAfterSeconds = options.retryAfterSeconds ?? 1;
    this.maxConsumerBatches = Math.max(1, options.maxConsumerBatches ?? 12);
    this.minConsumerBatches = Math.max(1, Math.min(this.maxConsumerBatches, options.minConsumerBatches ?? 6));
    this.sampleMs = options.sampleMs ?? 20;
    this.maxDrainMs = options.maxDrainMs ?? 1000;
    this.minBacklog = options.minBacklog ?? 20;
    this.backlog = options.backlog;
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

  /**
   * Takes a request slot, or says why not. Every admitted request must be `release`d once. `method`
   * (the request's) lets reads through while the consumers are behind.
   */
  admit(method?: string): Refusal | undefined {
    const reason =
      this.inFlight >= this.maxInFlight
        ? 'in_flight'
        : this.overdueMs() > this.maxLagMs
          ? 'event_loop_lag'
          : method !== undefined && !READS.has(method) && this.behind()
            ? 'backlog'
            : undefined;
    if (reason) {
      this.refused[reason]++;
      return { reason, retryAfterSeconds: this.retryAfterSeconds };
    }
    this.inFlight++;
    return undefined;
  }

  /** True while the consumers are too far behind to take on more work (see maxDrainMs). */
  behind(): boolean {
    return this.backlog !== undefined && this.backlog.size >= this.minBacklog && this.backlog.drainMs() > this.maxDrainMs;
  }

  release(): void {
    this.inFlight = Math.max(0, this.inFlight - 1);
  }

  get requestsInFlight(): number {
    return this.inFlight;
  }

  /** True while the API uses more than half its room (requests or lag): consumers keep to their floor. */
  busy(): boolean {
    return this.inFlight >= this.maxInFlight / 2 || this.lagMs() > this.maxLagMs / 2;
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

/** Logs shedding at most once per `everyMs` with the counts since the last line. */
export function shedLogger(admission: Admission, logger: Logger, everyMs = 10_000): () => void {
  let last = 0;
  let seen = { ...admission.refused };
  return () => {
    const now = performance.now();
    if (now - last < everyMs) return;
    last = now;
    const since = {
      in_flight: admission.refused.in_flight - seen.in_flight,
      event_loop_lag: admission.refused.event_loop_lag - seen.event_loop_lag,
      backlog: admission.refused.backlog - seen.backlog,
    };
    seen = { ...admission.refused };
    logger.warn('overloaded: refusing requests with 503 service_unavailable', { refused_since_last: since, in_flight: admission.requestsInFlight, lag_ms: Math.round(admission.lagMs()) });
  };
}
