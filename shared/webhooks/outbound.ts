// The SSRF guard for every request the service sends to a customer URL (webhooks, inbound
// forwards, the webhook channel). A URL is checked when it is saved and again on every attempt:
// the host is resolved once, every answer must be publicly routable, and the connection is pinned
// to those answers, so a DNS server that answers differently the second time (rebinding) cannot
// steer the request to an internal address. Redirects are never followed.
import { lookup as dnsLookup } from 'node:dns/promises';
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import { performance } from 'node:perf_hooks';
import { InvalidRequestError } from '../errors';

export interface OutboundPolicy {
  /** WEBHOOK_ALLOW_PRIVATE, local runtime only: http and non-public addresses are accepted. */
  allowPrivate: boolean;
}

export type Lookup = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

const systemLookup: Lookup = async (hostname) => {
  const answers = await dnsLookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A URL the service will not send to. An ApiError (400 invalid_request) when it escapes a handler. */
export class UnsafeUrlError extends InvalidRequestError {
  /**
   * @param reason what is wrong, without the field name: "resolves to 10.0.0.5, a private address"
   * @param field the request field named in the message; a caller validating another field
   *   re-wraps: `new UnsafeUrlError(error.reason, { field: 'forward_url' })`
   */
  constructor(
    readonly reason: string,
    options: { field?: string; cause?: unknown } = {},
  ) {
    super(`${options.field ?? 'endpoint_url'}: ${reason}`, { cause: options.cause });
    this.name = 'UnsafeUrlError';
  }
}

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'metadata'
  | 'cgnat'
  | 'multicast'
  | 'broadcast'
  | 'documentation'
  | 'benchmarking'
  | 'reserved'
  | 'unique_local'
  | 'ipv4_mapped'
  | 'invalid';

const classWords: Record<AddressClass, string> = {
  public: 'a public address',
  unspecified: 'an unspecified address',
  loopback: 'a loopback address',
  private: 'a private address',
  link_local: 'a link-local address',
  metadata: 'a cloud metadata address',
  cgnat: 'a carrier-grade NAT address',
  multicast: 'a multicast address',
  broadcast: 'a broadcast address',
  documentation: 'a documentation address',
  benchmarking: 'a benchmarking address',
  reserved: 'a reserved address',
  unique_local: 'a unique local address',
  ipv4_mapped: 'an IPv4-mapped address',
  invalid: 'not an IP address',
};

// Most specific first; the first match wins. Anything not listed is public.
const v4Table: Array<[string, number, AddressClass]> = [
  ['169.254.169.254', 32, 'metadata'], // EC2, GCP, Azure instance metadata
  ['169.254.170.2', 32, 'metadata'], // ECS task credentials
  ['169.254.170.23', 32, 'metadata'], // EKS pod identity
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'cgnat'],
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link_local'],
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'documentation'],
  ['192.88.99.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'benchmarking'],
  ['198.51.100.0', 24, 'documentation'],
  ['203.0.113.0', 24, 'documentation'],
  ['224.0.0.0', 4, 'multicast'],
  ['255.255.255.255', 32, 'broadcast'],
  ['240.0.0.0', 4, 'reserved'],
];

/** How an embedded IPv4 address is treated: refused with its own class, or accepted as `whenPublic`. */
type Embedded = { kind: 'embedded'; offset: number; whenPublic: AddressClass };

// Most specific first. Outside 2000::/3 (global unicast) nothing is public.
const v6Table: Array<[string, number, AddressClass | Embedded]> = [
  ['::', 128, 'unspecified'],
  ['::1', 128, 'loopback'],
  ['::ffff:0:0', 96, { kind: 'embedded', offset: 96, whenPublic: 'ipv4_mapped' }],
  ['64:ff9b::', 96, { kind: 'embedded', offset: 96, whenPublic: 'public' }], // NAT64
  ['64:ff9b:1::', 48, 'reserved'], // local-use NAT64
  ['100::', 64, 'reserved'], // discard-only
  ['2001:2::', 48, 'benchmarking'],
  ['2001::', 23, 'reserved'], // IETF protocol assignments, Teredo
  ['2001:db8::', 32, 'documentation'],
  ['3fff::', 20, 'documentation'],
  ['2002::', 16, { kind: 'embedded', offset: 16, whenPublic: 'public' }], // 6to4
  ['5f00::', 16, 'reserved'], // SRv6 SIDs
  ['fd00:ec2::254', 128, 'metadata'], // EC2 instance metadata over IPv6
  ['fd00:ec2::23', 128, 'metadata'], // EKS pod identity over IPv6
  ['fc00::', 7, 'unique_local'],
  ['fe80::', 10, 'link_local'],
  ['fec0::', 10, 'reserved'], // deprecated site-local
  ['ff00::', 8, 'multicast'],
  ['2000::', 3, 'public'],
  ['::', 0, 'reserved'],
];

function parseV4(ip: string): number | undefined {
  const parts = ip.split('.');
  if (parts.length !== 4 || !parts.every((p) => /^\d{1,3}$/.test(p) && Number(p) <= 255)) return undefined;
  return parts.reduce((n, p) => n * 256 + Number(p), 0);
}

function parseV6(ip: string): bigint | undefined {
  if (isIP(ip) !== 6) return undefined;
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = parseV4(dotted[1]);
    if (v4 === undefined) return undefined;
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = tail === undefined ? left : [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(parseInt(g, 16)), 0n);
}

const v4Rules = v4Table.map(([base, bits, cls]) => ({ base: parseV4(base)!, bits, cls }));
const v6Rules = v6Table.map(([base, bits, cls]) => ({ base: parseV6(base)!, bits, cls }));

function classifyV4(n: number): AddressClass {
  for (const { base, bits, cls } of v4Rules) {
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    if (((n & mask) >>> 0) === ((base & mask) >>> 0)) return cls;
  }
  return 'public';
}

function classifyV6(n: bigint): AddressClass {
  for (const { base, bits, cls } of v6Rules) {
    const shift = BigInt(128 - bits);
    if (n >> shift !== base >> shift) continue;
    if (typeof cls === 'string') return cls;
    const inner = classifyV4(Number((n >> BigInt(128 - cls.offset - 32)) & 0xffffffffn));
    return inner === 'public' ? cls.whenPublic : inner;
  }
  return 'reserved';
}

/**
 * What kind of address this is; only 'public' may be sent to. IPv6 may be bracketed or carry a
 * zone (`fe80::1%eth0`). Embedded IPv4 (mapped, NAT64, 6to4) takes the class of the IPv4 address
 * when that is not public; a mapped public address is still 'ipv4_mapped', never 'public'.
 */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[(.*)\]$/, '$1').replace(/%.*$/, '');
  const v4 = parseV4(bare);
  if (v4 !== undefined) return classifyV4(v4);
  const v6 = parseV6(bare);
  return v6 === undefined ? 'invalid' : classifyV6(v6);
}

/** Classes refused even with allowPrivate: nothing local needs them. */
const alwaysRefused = new Set<AddressClass>(['metadata', 'invalid']);

const refusedAddress = (ip: string, policy: OutboundPolicy): string | undefined => {
  const cls = classifyAddress(ip);
  if (cls === 'public' || (policy.allowPrivate && !alwaysRefused.has(cls))) return undefined;
  return classWords[cls];
};

function refusedName(host: string, policy: OutboundPolicy): string | undefined {
  if (host === 'metadata.google.internal') return `${host} is a cloud metadata name`;
  if (policy.allowPrivate) return undefined;
  if (host === 'localhost' || host.endsWith('.localhost')) return `${host} is a loopback name`;
  const local = ['.internal', '.local', '.home.arpa', '.localdomain'].find((suffix) => host.endsWith(suffix));
  if (local) return `${host} is a private name (${local})`;
  if (!host.includes('.')) return `${host} is not a fully qualified name`;
  return undefined;
}

/** A DNS failure: not a refusal, so a delivery attempt reports it as such. */
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

export interface CheckedUrl {
  url: URL;
  /** The first answer: where the connection goes. */
  address: string;
  family: 4 | 6;
  /** Every answer of the one lookup, all checked; a connection may try each (dual stack). */
  addresses: Array<{ address: string; family: 4 | 6 }>;
}

async function inspect(raw: string, policy: OutboundPolicy, lookup: Lookup): Promise<CheckedUrl> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch (error) {
    throw new UnsafeUrlError('is not a valid URL', { cause: error });
  }
  const schemes = policy.allowPrivate ? ['https:', 'http:'] : ['https:'];
  if (!schemes.includes(url.protocol)) throw new UnsafeUrlError(policy.allowPrivate ? 'must be an http or https URL' : 'must be an https URL');
  if (url.username || url.password) throw new UnsafeUrlError('must not contain credentials');
  // The WHATWG parser has already turned 0x7f.1, 2130706433 and 127.1 into 127.0.0.1.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!host) throw new UnsafeUrlError('has no host');
  const family = isIP(host);
  if (family === 4 || family === 6) {
    const refused = refusedAddress(host, policy);
    if (refused) throw new UnsafeUrlError(`${host} is ${refused}`);
    return { url, address: host, family, addresses: [{ address: host, family }] };
  }
  const name = host.replace(/\.$/, '');
  const refusedHost = refusedName(name, policy);
  if (refusedHost) throw new UnsafeUrlError(refusedHost);
  let answers: Array<{ address: string; family: 4 | 6 }>;
  try {
    answers = await lookup(host);
  } catch (error) {
    throw new ResolveFailure(host, error);
  }
  if (answers.length === 0) throw new ResolveFailure(host, Object.assign(new Error('no addresses'), { code: 'ENODATA' }));
  for (const answer of answers) {
    const refused = refusedAddress(answer.address, policy);
    if (refused) throw new UnsafeUrlError(`resolves to ${answer.address}, ${refused}`);
  }
  // The family comes from the address itself: a resolver's label is not trusted.
  const addresses = answers.map((a) => ({ address: a.address, family: isIP(a.address) as 4 | 6 }));
  const [first] = addresses as [{ address: string; family: 4 | 6 }];
  return { url, address: first.address, family: first.family, addresses };
}

/**
 * Checks a URL the service is asked to send to, resolving its host once. Throws UnsafeUrlError
 * (400) when the URL or any address it resolves to is refused, or when it does not resolve.
 */
export async function checkUrl(raw: string, policy: OutboundPolicy, lookup: Lookup = systemLookup): Promise<CheckedUrl> {
  try {
    return await inspect(raw, policy, lookup);
  } catch (error) {
    if (error instanceof ResolveFailure) throw new UnsafeUrlError(error.message, { cause: error.cause });
    throw error;
  }
}

export interface PostResult {
  ok: boolean;
  /** The HTTP status; 0 when no HTTP answer arrived. */
  status: number;
  /** Why it failed: 'timeout', 'refused: …', 'dns: …', 'connection: …', 'tls: …', 'redirect not followed'. */
  error?: string;
  durationMs: number;
}

export interface PostOptions {
  /** The whole attempt (lookup, connect, TLS, answer status) is bounded by this. Default 30000. */
  timeoutMs?: number;
  lookup?: Lookup;
  /** Extra trusted CA certificates (PEM). Tests only: a self-signed receiver. */
  ca?: string | Buffer;
}

const maxResponseBytes = 64 * 1024;
// Framing is ours: a caller's copy of these could smuggle a second request or lie about the body.
const reservedHeaders = new Set(['host', 'content-length', 'transfer-encoding', 'connection']);

/** A net/tls lookup that answers only with addresses already checked: no second resolution. */
function pinnedLookup(addresses: Array<{ address: string; family: 4 | 6 }>): LookupFunction {
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

const tlsCodes = /CERT|SELF_SIGNED|TLS|SSL|ALTNAME|UNABLE_TO_VERIFY|UNABLE_TO_GET_ISSUER/;

function describeNetworkError(error: unknown): string {
  const err = error as NodeJS.ErrnoException & { errors?: unknown[] };
  const codes = err.errors?.length ? [...new Set(err.errors.map((e) => (e as NodeJS.ErrnoException).code ?? String(e)))].join(', ') : undefined;
  const code = codes ?? err.code ?? err.message;
  if (typeof code === 'string' && tlsCodes.test(code)) return `tls: ${code}`;
  return `connection: ${code}${err.message && err.message !== code ? ` (${err.message})` : ''}`;
}

/**
 * POSTs `body` to a checked URL. Never throws: every outcome is a PostResult. Connects only to the
 * addresses the single lookup returned (Host header and TLS servername stay the hostname, so
 * certificates validate as usual); a 3xx is a failed attempt and its Location is not visited.
 */
export async function postSigned(
  raw: string,
  body: string,
  headers: Record<string, string>,
  policy: OutboundPolicy,
  options: PostOptions = {},
): Promise<PostResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  const started = performance.now();
  const done = (result: Omit<PostResult, 'durationMs'>): PostResult => ({ ...result, durationMs: Math.round(performance.now() - started) });

  let target: CheckedUrl;
  let timer: NodeJS.Timeout | undefined;
  try {
    const lookupDeadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const checked = await Promise.race([inspect(raw, policy, options.lookup ?? systemLookup), lookupDeadline]);
    if (checked === 'timeout') return done({ ok: false, status: 0, error: 'timeout' });
    target = checked;
  } catch (error) {
    if (error instanceof UnsafeUrlError) return done({ ok: false, status: 0, error: `refused: ${error.reason}` });
    if (error instanceof ResolveFailure) return done({ ok: false, status: 0, error: `dns: ${error.message}` });
    return done({ ok: false, status: 0, error: `request: ${error instanceof Error ? error.message : String(error)}` });
  } finally {
    clearTimeout(timer);
  }
  const remainingMs = Math.max(1, timeoutMs - (performance.now() - started));
  return done(await send(target, body, headers, remainingMs, options.ca));
}

/**
 * One POST to the checked addresses. Settles when the status is known and the response body is
 * read (≤ 64 KiB, discarded), or at the deadline: a timeout before the status line, otherwise the
 * status already received. The request is destroyed either way.
 */
function send(
  target: CheckedUrl,
  payload: string,
  extra: Record<string, string>,
  timeoutMs: number,
  ca: string | Buffer | undefined,
): Promise<Omit<PostResult, 'durationMs'>> {
  return new Promise((resolve) => {
    const { url } = target;
    const tls = url.protocol === 'https:';
    const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
    const bytes = Buffer.from(payload, 'utf8');
    const requestHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(extra)) if (!reservedHeaders.has(name.toLowerCase())) requestHeaders[name] = value;
    requestHeaders['content-length'] = String(bytes.length);

    let request: ReturnType<typeof httpRequest>;
    try {
      request = (tls ? httpsRequest : httpRequest)({
        method: 'POST',
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
      resolve({ ok: false, status: 0, error: `request: ${error instanceof Error ? error.message : String(error)}` });
      return;
    }

    let answered: Omit<PostResult, 'durationMs'> | undefined;
    let settled = false;
    const finish = (result: Omit<PostResult, 'durationMs'>, response?: IncomingMessage): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      response?.destroy();
      request.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(answered ?? { ok: false, status: 0, error: 'timeout' }), timeoutMs);

    request.on('error', (error) => finish(answered ?? { ok: false, status: 0, error: describeNetworkError(error) }));
    request.on('response', (response) => {
      const status = response.statusCode ?? 0;
      const result: Omit<PostResult, 'durationMs'> =
        status >= 200 && status < 300
          ? { ok: true, status }
          : status >= 300 && status < 400
            ? { ok: false, status, error: 'redirect not followed' }
            : { ok: false, status };
      answered = result;
      let read = 0;
      response.on('data', (chunk: Buffer) => {
        read += chunk.length;
        if (read >= maxResponseBytes) finish(result, response);
      });
      response.on('end', () => finish(result, response));
      response.on('error', () => finish(result, response));
      response.on('close', () => finish(result, response));
    });
    request.end(bytes);
  });
}
