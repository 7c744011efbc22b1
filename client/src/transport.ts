// The client's transport: one request sent, and sent again by the retry policy (client/src/index.ts
// says which answers are retried and when), the answer read within the timeout, and a failure
// turned into a PostboxError.
import { PostboxError } from './errors';

export interface PostboxOptions {
  /**
   * An API key (sk_live_…, sk_test_…); the staff token for the `admin` routes. `null` in a
   * browser page that signs in with the console's session cookie instead: the browser sends the
   * cookie itself, and no Authorization header is sent (one would win over the cookie).
   */
  apiKey: string | null;
  /** With `apiKey: null` and a session: its CSRF token (GET /v1/auth/session), sent as X-CSRF-Token on every call but GET. */
  csrfToken?: string;
  /** Where the API is served, e.g. https://api.example.com or http://localhost:3000. */
  baseUrl: string;
  /** Default: the global fetch. */
  fetch?: typeof fetch;
  /** Further attempts after the first on a retryable answer; default 2. */
  maxRetries?: number;
  /** Per attempt, answer body included; default 30000. */
  timeoutMs?: number;
  /** Ceiling of the backoff between attempts when the answer gives no Retry-After; default 8000. */
  maxBackoffMs?: number;
  /**
   * A Retry-After longer than this is not waited for: the error is thrown at once, carrying
   * `retryAfter` (a daily limit asks to wait until tomorrow). Default 60.
   */
  maxRetryAfterSeconds?: number;
  /** For tests: how the client waits between attempts. */
  sleep?: (ms: number) => Promise<void>;
  /** For tests: the jitter's randomness, in [0, 1). */
  random?: () => number;
}

export type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export interface Call {
  method: Method;
  path: string;
  query?: object;
  body?: unknown;
  /** Repeating it after no answer cannot do anything twice. */
  resendable?: boolean;
}

/** Sends a call through the transport: what each area's methods are built on. */
export type Requester = <T>(call: Call) => Promise<T>;

/** A path parameter, encoded. */
export const enc = encodeURIComponent;
const defaultSleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function retryAfterSeconds(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\d+$/.test(value.trim())) return Number(value.trim());
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - now) / 1000));
}

/**
 * 429 and 503 are refusals before the work (a limiter, a shed request) and 409
 * idempotency_key_in_use asks to come back: always sent again. Another 5xx may come after the
 * work was done, so it is sent again only when repeating the request is harmless. A 503 whose
 * code ends in `_not_configured` (billing, OAuth, test sends) is the deployment's setting, which
 * no retry changes: never sent again.
 */
const retryable = (error: PostboxError, resendable: boolean): boolean => {
  if (error.code.endsWith('_not_configured')) return false;
  return error.status === 429 || error.status === 503 || (error.status === 409 && error.code === 'idempotency_key_in_use') || (error.status >= 500 && resendable);
};

export class Transport {
  readonly #apiKey: string | null;
  readonly #csrfToken: string | undefined;
  readonly #baseUrl: string;
  readonly #fetch: typeof fetch;
  readonly #maxRetries: number;
  readonly #timeoutMs: number;
  readonly #maxBackoffMs: number;
  readonly #maxRetryAfterSeconds: number;
  readonly #sleep: (ms: number) => Promise<void>;
  readonly #random: () => number;

  constructor(options: PostboxOptions) {
    if (options.apiKey !== null && !options.apiKey) throw new TypeError('Postbox: apiKey is required (null for a browser session)');
    if (!options.baseUrl) throw new TypeError('Postbox: baseUrl is required');
    this.#apiKey = options.apiKey;
    this.#csrfToken = options.csrfToken;
    this.#baseUrl = options.baseUrl.replace(/\/+$/, '');
    const f = options.fetch ?? globalThis.fetch;
    if (typeof f !== 'function') throw new TypeError('Postbox: no fetch in this runtime; pass options.fetch');
    // Called unbound: some runtimes refuse a fetch called with another `this`.
    this.#fetch = (input, init) => f(input, init);
    this.#maxRetries = Math.max(0, options.maxRetries ?? 2);
    this.#timeoutMs = options.timeoutMs ?? 30_000;
    this.#maxBackoffMs = options.maxBackoffMs ?? 8_000;
    this.#maxRetryAfterSeconds = options.maxRetryAfterSeconds ?? 60;
    this.#sleep = options.sleep ?? defaultSleep;
    this.#random = options.random ?? Math.random;
  }

  async request<T>(call: Call): Promise<T> {
    const url = this.#url(call.path, call.query);
    const headers: Record<string, string> = { accept: 'application/json' };
    if (this.#apiKey !== null) headers.authorization = `Bearer ${this.#apiKey}`;
    else if (this.#csrfToken !== undefined && call.method !== 'GET') headers['x-csrf-token'] = this.#csrfToken;
    // Serialized once: every attempt sends these exact bytes, so the same idempotency keys.
    let body: string | FormData | undefined;
    if (call.body instanceof FormData) body = call.body;
    else if (call.body !== undefined) {
      body = JSON.stringify(call.body);
      headers['content-type'] = 'application/json';
    }
    const resendable = call.resendable === true || call.method !== 'POST';

    for (let attempt = 0; ; attempt++) {
      const outcome = await this.#attempt(url, { method: call.method, headers, body });
      if (outcome.ok) return outcome.value as T;
      const error = outcome.error;
      if (attempt >= this.#maxRetries) throw error;
      if (error.status === 0) {
        if (!resendable) throw error;
        await this.#sleep(this.#backoffMs(attempt));
        continue;
      }
      if (!retryable(error, resendable)) throw error;
      if (error.retryAfter !== undefined) {
        if (error.retryAfter > this.#maxRetryAfterSeconds) throw error;
        await this.#sleep(error.retryAfter * 1000);
      } else {
        await this.#sleep(this.#backoffMs(attempt));
      }
    }
  }

  /** One attempt, answer body read within the timeout. */
  async #attempt(url: string, init: { method: Method; headers: Record<string, string>; body: string | FormData | undefined }): Promise<{ ok: true; value: unknown } | { ok: false; error: PostboxError }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, this.#timeoutMs);
    try {
      const res = await this.#fetch(url, { ...init, signal: controller.signal });
      const text = await res.text();
      const requestId = res.headers.get('x-request-id') ?? undefined;
      const type = res.headers.get('content-type') ?? '';
      if (res.ok) {
        if (res.status === 204 || text === '') return { ok: true, value: undefined };
        return { ok: true, value: type.includes('json') ? JSON.parse(text) : text };
      }
      return { ok: false, error: this.#errorOf(res.status, text, requestId, res.headers.get('retry-after')) };
    } catch (cause) {
      const code = timedOut ? 'timeout' : 'connection_error';
      const message = timedOut ? `no answer within ${this.#timeoutMs} ms` : `request failed: ${(cause as Error)?.message ?? String(cause)}`;
      return { ok: false, error: new PostboxError({ code, message, status: 0, cause }) };
    } finally {
      clearTimeout(timer);
    }
  }

  #errorOf(status: number, text: string, requestId: string | undefined, retryAfterHeader: string | null): PostboxError {
    const retryAfter = retryAfterSeconds(retryAfterHeader, Date.now());
    let envelope: { error?: { code?: unknown; message?: unknown } } | undefined;
    try {
      envelope = JSON.parse(text) as typeof envelope;
    } catch {
      envelope = undefined;
    }
    const code = envelope?.error?.code;
    if (typeof code === 'string') {
      const message = typeof envelope?.error?.message === 'string' ? envelope.error.message : code;
      return new PostboxError({ code, message, status, requestId, retryAfter });
    }
    return new PostboxError({ code: 'unexpected_response', message: `HTTP ${status}: ${text.slice(0, 200)}`, status, requestId, retryAfter });
  }

  #backoffMs(attempt: number): number {
    const ceiling = Math.min(this.#maxBackoffMs, 500 * 2 ** attempt);
    return Math.round(ceiling * (0.5 + this.#random() * 0.5));
  }

  #url(path: string, query: object | undefined): string {
    const params = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      params.append(name, String(value));
    }
    const search = params.toString();
    return `${this.#baseUrl}${path}${search ? `?${search}` : ''}`;
  }
}
