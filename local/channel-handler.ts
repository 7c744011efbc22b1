// The SDK's transport to the embedded store without TCP: a request handler that hands each request
// to the store's thread over a MessagePort (emulator-thread.mjs serves it with dynalite's own
// request listener) and turns the answer into the SDK's response. On loopback every HTTP call costs
// a write and a read system call each way and the HTTP parser on both threads; under load that was
// the largest single part of the main thread's time. The store still listens on TCP too, for
// anything outside the process (the DynamoDB endpoint `npm start` prints, the benchmark).
import type { MessagePort } from 'node:worker_threads';

interface ChannelRequest {
  method: string;
  path: string;
  query?: Record<string, string | string[] | null>;
  headers: Record<string, string>;
  body?: unknown;
}

interface Answer {
  id: number;
  statusCode: number;
  headers: Record<string, string>;
  body: string;
}

function pathOf(request: ChannelRequest): string {
  const query = Object.entries(request.query ?? {}).flatMap(([k, v]) =>
    v === null ? [encodeURIComponent(k)] : (Array.isArray(v) ? v : [v]).map((x) => `${encodeURIComponent(k)}=${encodeURIComponent(x)}`),
  );
  return query.length ? `${request.path}?${query.join('&')}` : request.path;
}

function bodyText(body: unknown): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
  throw new Error('the store channel sends only string or byte bodies');
}

/** A Smithy HttpHandler over `port`; pass it as a client's `requestHandler`. */
export class ChannelHttpHandler {
  private nextId = 0;
  private readonly pending = new Map<number, (answer: Answer) => void>();
  /** Requests waiting for one of the `maxInFlight` places. */
  private readonly queued: Array<() => void> = [];
  private active = 0;

  /**
   * `maxInFlight`: requests this client has at the store at once; more wait here. The functions
   * thread's client is bounded, so that a request of the API, on its own channel, never waits in
   * the store's thread behind more than that many of the consumers' (a 25-item batch write each).
   */
  constructor(
    private readonly port: MessagePort,
    private readonly maxInFlight = Number.POSITIVE_INFINITY,
  ) {
    port.on('message', (answer: Answer) => {
      const done = this.pending.get(answer.id);
      if (!done) return;
      this.pending.delete(answer.id);
      // The place passes to the longest waiting request, if any.
      const next = this.queued.shift();
      if (next) next();
      else this.active--;
      done(answer);
    });
    // Nothing waits on the port by itself: a pending call is held by whoever awaits it.
    port.unref();
  }

  readonly metadata = { handlerProtocol: 'http/1.1' };

  async handle(request: ChannelRequest): Promise<{ response: { statusCode: number; reason?: string; headers: Record<string, string>; body: Uint8Array } }> {
    if (this.active < this.maxInFlight) this.active++;
    else await new Promise<void>((resolve) => this.queued.push(resolve));
    const id = this.nextId++;
    const answer = await new Promise<Answer>((resolve) => {
      this.pending.set(id, resolve);
      this.port.postMessage({ id, method: request.method, url: pathOf(request), headers: request.headers, body: bodyText(request.body) });
    });
    return { response: { statusCode: answer.statusCode, headers: answer.headers, body: Buffer.from(answer.body, 'utf8') } };
  }

  updateHttpClientConfig(): void {}

  httpHandlerConfigs(): Record<string, never> {
    return {};
  }

  destroy(): void {
    this.port.close();
  }
}
