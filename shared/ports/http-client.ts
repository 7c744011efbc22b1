// Outbound HTTP to URLs that customers give the service (webhook endpoints, the webhook channel,
// later inbound forwards and BIMI fetches), and to the OAuth providers (HttpExchange: an answer's
// body is read). The implementation decides which URLs may be reached at all, so a use case never
// opens a socket and never sees an address.

/** Whether a URL may be sent to. `reason` says what is wrong without naming any request field. */
export type UrlCheck = { ok: true; url: string } | { ok: false; reason: string };

export interface HttpPost {
  headers: Record<string, string>;
  body: string;
  /** The whole attempt (lookup, connect, TLS, answer status) is bounded by this. */
  timeoutMs?: number;
}

export interface HttpResult {
  /** A 2xx answer. */
  ok: boolean;
  /** The receiver's HTTP status; 0 when no HTTP answer arrived. */
  status: number;
  /** Why it failed: 'timeout', 'refused: …', 'dns: …', 'connection: …', 'tls: …', 'redirect not followed', 'request: …'. */
  error?: string;
  durationMs: number;
}

export interface HttpClient {
  /** Checked when a URL is saved; `post` checks again on every request. */
  check(url: string): Promise<UrlCheck>;
  /** Never throws: every outcome, a refused URL included, is an HttpResult. */
  post(url: string, request: HttpPost): Promise<HttpResult>;
}

export interface HttpExchangeRequest {
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  body?: string;
  /** The whole exchange (lookup, connect, TLS, the answer read) is bounded by this. */
  timeoutMs?: number;
}

export interface HttpAnswer extends HttpResult {
  /** The answer's body as UTF-8 text; at most 64 KiB of it are read. Empty when none arrived. */
  body: string;
}

/** A request whose answer is read: the same guard as HttpClient, redirects never followed. */
export interface HttpExchange {
  /** Never throws: every outcome, a refused URL included, is an HttpAnswer. */
  request(url: string, request: HttpExchangeRequest): Promise<HttpAnswer>;
}
