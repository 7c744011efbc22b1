// The HttpClient for URLs customers give the service, with its SSRF guard. A URL is checked when it
// is saved and again on every request: the host is resolved once, every answer must be publicly
// routable, and the connection is pinned to those answers, so a DNS server that answers
// differently the second time (rebinding) cannot steer the request to an internal address.
// Redirects are never followed.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { HttpAnswer, HttpClient, HttpExchange, HttpExchangeRequest, HttpPost, HttpResult } from '../ports/http-client';
import { classifyAddress, classWords, type AddressClass } from './address-class';

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

const systemLookup: Lookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

export interface GuardedHttpOptions {
  /** Local runtime only: http and non-public addresses are accepted (cloud metadata never is). */
  allowPrivate: boolean;
  /** The deadline of a request that names none. Default 30000. */
  timeoutMs?: number;
  /** The resolver; tests stub it, production uses the system's. */
  lookup?: Lookup;
  /** Extra trusted CA certificates (PEM). Tests only: a self-signed receiver. */
  ca?: string | Buffer;
}

export interface Address {
  address: string;
  family: 4 | 6;
}

/** A passed check also tells which addresses the one lookup gave (all checked). */
export type GuardedCheck = { ok: true; url: string; addresses: Address[] } | { ok: false; reason: string };

/** Classes refused even with allowPrivate: nothing local needs them. */
const alwaysRefused = new Set<AddressClass>(['metadata', 'invalid']);

/** A URL the guard will not send to; `reason` is the user-facing part. */
class Refused extends Error {
  constructor(
    readonly reason: string,
    cause?: unknown,
  ) {
    super(reason, { cause });
    this.name = 'Refused';
  }
}

/** A DNS failure: not a refusal, so a request reports it as such. */
class ResolveFailure extends Error {
  constructor(
    readonly host: string,
    cause: unknown,
  ) {
    const code = (cause as { code?: string })?.code ?? (cause instanceof Error ? cause.message : String(cause));
    super(`could not resolve ${host} (${code})`, { cause });
    this.name = 'ResolveFailure';
  }
}

interface CheckedUrl {
  url: URL;
  /** Every answer of the one lookup, all checked; a connection may try each (dual stack). */
  addresses: Address[];
}

const maxResponseBytes = 64 * 1024;
// Framing is ours: a caller's copy of these could smuggle a second request or lie about the body.
const reservedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);
const tlsCodes = /CERT|SELF_SIGNED|TLS|SSL|ALTNAME|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

type Outcome = Omit<HttpAnswer, 'durationMs'>;

export class GuardedHttp implements HttpClient, HttpExchange {
  private readonly lookup: Lookup;

  constructor(private readonly options: GuardedHttpOptions) {
    this.lookup = options.lookup ?? systemLookup;
  }

  /** Resolves the host once; refused when the URL or any address it resolves to is, or when it does not resolve. */
  async check(raw: string): Promise<GuardedCheck> {
    try {
      const checked = await this.inspect(raw);
      return { ok: true, url: checked.url.href, addresses: checked.addresses };
    } catch (error) {
      if (error instanceof Refused || error instanceof ResolveFailure) return { ok: false, reason: error instanceof Refused ? error.reason : error.message };
      throw error;
    }
  }

  /** POSTs `body`; the answer's body is read (≤ 64 KiB) and dropped. */
  async post(raw: string, request: HttpPost): Promise<HttpResult> {
    const { body: _read, ...result } = await this.request(raw, { ...request, method: 'POST' });
    return result;
  }

  /**
   * One request. Connects only to the addresses the single lookup returned (Host header and TLS
   * servername stay the hostname, so certificates validate as usual); a 3xx is a failure and its
   * Location is not visited.
   */
  async request(raw: string, request: HttpExchangeRequest): Promise<HttpAnswer> {
    const timeoutMs = request.timeoutMs ?? this.options.timeoutMs ?? 30_000;
    const started = performance.now();
    const done = (result: Outcome): HttpAnswer => ({ ...result, durationMs: Math.round(performance.now() - started) });

    let target: CheckedUrl;
    let timer: NodeJS.Timeout | undefined;
    try {
      const lookupDeadline = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), timeoutMs);
      });
      const checked = await Promise.race([this.inspect(raw), lookupDeadline]);
      if (checked === 'timeout') return done({ ok: false, status: 0, error: 'timeout', body: '' });
      target = checked;
    } catch (error) {
      if (error instanceof Refused) return done({ ok: false, status: 0, error: `refused: ${error.reason}`, body: '' });
      if (error instanceof ResolveFailure) return done({ ok: false, status: 0, error: `dns: ${error.message}`, body: '' });
      return done({ ok: false, status: 0, error: `request: ${error instanceof Error ? error.message : String(error)}`, body: '' });
    } finally {
      clearTimeout(timer);
    }
    const remainingMs = Math.max(1, timeoutMs - (performance.now() - started));
    return done(await send(target, request, remainingMs, this.options.ca));
  }

  private refusedAddress(ip: string): string | undefined {
    const cls = classifyAddress(ip);
    if (cls === 'public' || (this.options.allowPrivate && !alwaysRefused.has(cls))) return undefined;
    return classWords[cls];
  }

  private refusedName(host: string): string | undefined {
    if (host === 'metadata.google.internal') return `${host} is a cloud metadata name`;
    if (this.options.allowPrivate) return undefined;
    if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
    const local = ['.internal', '.local', '.home.arpa', '.localdomain'].find((suffix) => host.endsWith(suffix));
    if (local) return `${host} is a private name (${local})`;
    if (!host.includes('.')) return `${host} is not a fully qualified name`;
    return undefined;
  }

  private async inspect(raw: string): Promise<CheckedUrl> {
    const { allowPrivate } = this.options;
    let url: URL;
    try {
      url = new URL(raw);
    } catch (error) {
      throw new Refused('is not a valid URL', error);
    }
    const schemes = allowPrivate ? ['https:', 'http:'] : ['https:'];
    if (!schemes.includes(url.protocol)) throw new Refused(allowPrivate ? 'must be an http or https URL' : 'must be an https URL');
    if (url.username || url.password) throw new Refused('must not contain credentials');
    // The WHATWG parser has already turned 0x7f.1, 2130706433 and 127.1 into 127.0.0.1.
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    if (!host) throw new Refused('has no host');
    const family = isIP(host);
    if (family === 4 || family === 6) {
      const refused = this.refusedAddress(host);
      if (refused) throw new Refused(`${host} is ${refused}`);
      return { url, addresses: [{ address: host, family }] };
    }
    const refusedHost = this.refusedName(host.replace(/\.$/, ''));
    if (refusedHost) throw new Refused(refusedHost);
    let answers: Address[];
    try {
      answers = await this.lookup(host);
    } catch (error) {
      throw new ResolveFailure(host, error);
    }
    if (answers.length === 0) throw new ResolveFailure(host, Object.assign(new Error('no addresses'), { code: 'ENODATA' }));
    for (const answer of answers) {
      const refused = this.refusedAddress(answer.address);
      if (refused) throw new Refused(`resolves to ${answer.address}, ${refused}`);
    }
    // The family comes from the address itself: a resolver's label is not trusted.
    return { url, addresses: answers.map((a) => ({ address: a.address, family: isIP(a.address) as 4 | 6 })) };
  }
}

/** A net/tls lookup that answers only with addresses already checked: no second resolution. */
function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_hostname, options, callback) => {
    const wanted = options.family === 4 || options.family === 6 ? addresses.filter((a) => a.family === options.family) : addresses;
    process.nextTick(() => {
      const [first] = wanted;
      if (!first) callback(Object.assign(new Error('no checked address of the requested family'), { code: 'ENOTFOUND' }), '', 0);
      else if (options.all) callback(null, wanted);
      else callback(null, first.address, first.family);
    });
  };
}

function describeNetworkError(error: unknown): string {
  const err = error as NodeJS.ErrnoException & { errors?: unknown[] };
  const codes = err.errors?.length ? [...new Set(err.errors.map((e) => (e as NodeJS.ErrnoException).code ?? String(e)))].join(', ') : undefined;
  const code = codes ?? err.code ?? err.message;
  if (typeof code === 'string' && tlsCodes.test(code)) return `tls: ${code}`;
  return `connection: ${code}${err.message && err.message !== code ? ` (${err.message})` : ''}`;
}

/**
 * One request to the checked addresses. Settles when the status is known and the response body is
 * read (≤ 64 KiB), or at the deadline: a timeout before the status line, otherwise the status
 * already received and what of the body had arrived. The request is destroyed either way.
 */
function send(target: CheckedUrl, exchange: HttpExchangeRequest, timeoutMs: number, ca: string | Buffer | undefined): Promise<Outcome> {
  return new Promise((resolve) => {
    const { url } = target;
    const tls = url.protocol === 'https:';
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const bytes = Buffer.from(exchange.body ?? '', 'utf8');
    const requestHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(exchange.headers)) if (!reservedHeaders.has(name.toLowerCase())) requestHeaders[name] = value;
    if (exchange.body !== undefined) requestHeaders['content-length'] = String(bytes.length);

    let request: ReturnType<typeof httpRequest>;
    try {
      request = (tls ? httpsRequest : httpRequest)({
        method: exchange.method,
        host,
        port: url.port || (tls ? 443 : 80),
        path: `${url.pathname}${url.search}`,
        headers: requestHeaders,
        agent: false,
        lookup: pinnedLookup(target.addresses),
        ...(tls ? { servername: isIP(host) ? undefined : host, ...(ca ? { ca } : {}) } : {}),
      });
    } catch (error) {
      // A header value the HTTP layer refuses (CR/LF): a caller bug, reported rather than thrown.
      resolve({ ok: false, status: 0, error: `request: ${error instanceof Error ? error.message : String(error)}`, body: '' });
      return;
    }

    let answered: Omit<Outcome, 'body'> | undefined;
    const chunks: Buffer[] = [];
    let settled = false;
    const finish = (result: Omit<Outcome, 'body'>, response?: IncomingMessage): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      response?.destroy();
      request.destroy();
      resolve({ ...result, body: Buffer.concat(chunks).subarray(0, maxResponseBytes).toString('utf8') });
    };
    const timer = setTimeout(() => finish(answered ?? { ok: false, status: 0, error: 'timeout' }), timeoutMs);

    request.on('error', (error) => finish(answered ?? { ok: false, status: 0, error: describeNetworkError(error) }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const result: Omit<Outcome, 'body'> =
        status >= 200 && status < 300
          ? { ok: true, status }
          : status >= 300 && status < 400
            ? { ok: false, status, error: 'redirect not followed' }
            : { ok: false, status };
      answered = result;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        chunks.push(chunk);
        if (read >= maxResponseBytes) finish(result, response);
      });
      response.on('end', () => finish(result, response));
      response.on('error', () => finish(result, response));
      response.on('close', () => finish(result, response));
    });
    request.end(bytes);
  });
}
