// node:http turned into API Gateway HTTP API (payload v2) events for the same handler exports.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { type FunctionDef } from '../shared/platform';
import { ApiError } from '../shared/errors';
import { errorResponse } from '../shared/http/respond';
import { createRouteMatcher } from '../shared/http/route-match';
import { describeError, type Logger } from '../shared/adapters/logger';
import { shedLogger, type Admission } from './admission';

export type HttpLambda = (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2>;

const MAX_BODY_BYTES = 10 * 1024 * 1024;
const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]*\+json|xml|x-www-form-urlencoded|javascript))/i;

function readBody(req: IncomingMessage): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_BODY_BYTES) parts.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_BODY_BYTES ? 'too_large' : Buffer.concat(parts)));
    req.on('error', reject);
  });
}

function toEvent(req: IncomingMessage, body: Buffer, routeKey: string, params: Record<string, string>): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://local');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) {
    if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  }
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || TEXT_TYPES.test(contentType) || contentType === '';
  const now = new Date();
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    cookies: headers.cookie?.split(/;\s*/),
    headers,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: 'local',
      apiId: 'local',
      domainName: headers.host ?? 'localhost',
      domainPrefix: 'local',
      http: {
        method,
        path: url.pathname,
        protocol: `HTTP/${req.httpVersion}`,
        sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: randomUUID(),
      routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    body: body.length === 0 ? undefined : isText ? body.toString('utf8') : body.toString('base64'),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

function send(res: ServerResponse, result: APIGatewayProxyStructuredResultV2): void {
  const headers: Record<string, string | string[]> = Object.fromEntries(Object.entries(result.headers ?? {}).map(([k, v]) => [k, String(v)]));
  // API Gateway turns the result's `cookies` into Set-Cookie headers, one each.
  if (result.cookies?.length) headers['set-cookie'] = result.cookies;
  res.writeHead(result.statusCode ?? 200, headers);
  if (result.body === undefined) return void res.end();
  res.end(result.isBase64Encoded ? Buffer.from(result.body, 'base64') : result.body);
}

/**
 * The API over node:http. With `admission`, a request that finds the process full (its in-flight
 * bound reached) is answered 503 service_unavailable with Retry-After at once, before its body is
 * read or any handler runs; retrying it is always safe.
 */
export function createLocalHttpServer(
  functions: readonly FunctionDef[],
  loadHandler: (fn: FunctionDef) => Promise<HttpLambda>,
  logger: Logger,
  options: { admission?: Admission } = {},
): Server {
  const matchRoute = createRouteMatcher(functions);
  const fallback = functions.find((f) => f.defaultRoute);
  if (!fallback) throw new Error('the manifest has no defaultRoute function');
  const { admission } = options;
  const logShedding = admission ? shedLogger(admission, logger) : () => undefined;
  const server = createServer((req, res) => {
    const refusal = admission?.admit();
    if (refusal) {
      logShedding();
      const error = new ApiError('service_unavailable', 'the service is overloaded; retry after the number of seconds in Retry-After', {
        headers: { 'retry-after': String(refusal.retryAfterSeconds) },
      });
      return send(res, errorResponse(error));
    }
    if (admission) res.once('close', () => admission.release());
    void (async () => {
      try {
        const body = await readBody(req);
        if (body === 'too_large') {
          return send(res, errorResponse(new ApiError('payload_too_large', 'request body is larger than 10 MiB')));
        }
        const url = new URL(req.url ?? '/', 'http://local');
        const method = (req.method ?? 'GET').toUpperCase();
        // HEAD runs the GET route, as the stack's HEAD twins of every GET route do in AWS; Node
        // itself sends no body on a HEAD answer.
        const match = matchRoute(method === 'HEAD' ? 'GET' : method, url.pathname);
        const [fn, routeKey, params] =
          match.kind === 'route' ? [match.fn, method === 'HEAD' ? match.routeKey.replace(/^GET /, 'HEAD ') : match.routeKey, match.params] : [fallback, '$default', {}];
        const handler = await loadHandler(fn);
        send(res, await handler(toEvent(req, body, routeKey, params)));
      } catch (error) {
        // The pipeline answers every error itself; reaching here means the runtime itself broke.
        logger.error('local runtime failed a request', { error: describeError(error) });
        if (!res.headersSent) {
          send(res, errorResponse(new ApiError('internal_error', 'internal error')));
        }
      }
    })();
  });
  // Requests Node's own parser refuses (a NUL in a header, raw bytes in the path, headers past
  // 16 KiB) never reach a handler; they still get the error envelope instead of Node's plain text.
  server.on('clientError', (error: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || (socket as { _httpMessage?: unknown })._httpMessage) return void socket.destroy();
    const tooLarge = error.code === 'HPE_HEADER_OVERFLOW';
    const envelope = errorResponse(
      tooLarge
        ? new ApiError('invalid_request', 'request headers are larger than 16 KiB', { status: 431 })
        : new ApiError('invalid_request', 'malformed HTTP request'),
    );
    const body = envelope.body ?? '';
    const head = [
      `HTTP/1.1 ${envelope.statusCode} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}`,
      ...Object.entries(envelope.headers ?? {}).map(([k, v]) => `${k}: ${String(v)}`),
      `content-length: ${Buffer.byteLength(body)}`,
      'connection: close',
    ];
    socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  });
  return server;
}
