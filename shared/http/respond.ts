// Responses and the one place that turns anything thrown into the error envelope. Free of SDK
// imports so the catch-all function stays small.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError } from '../errors';
import { describeError } from '../adapters/logger';
import type { HttpResult } from './types';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { status, body, headers };
}

/**
 * An answer that shows a secret (a new key, a signing secret, the staff token): it is shown once,
 * so no browser, proxy or CDN may keep a copy.
 */
export function shownOnce(status: number, body: unknown): HttpResult {
  return json(status, body, { 'cache-control': 'no-store' });
}

/**
 * A page the service renders for people who follow a link (a verification, an unsubscribe, a
 * sign-up form): HTML, no referrer, not cached unless `headers` says otherwise; `csp` is the page's
 * Content-Security-Policy (no page runs script).
 */
export function htmlPage(status: number, body: string, csp: string, headers: Record<string, string> = {}): HttpResult {
  return {
    status,
    body,
    headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': csp, 'referrer-policy': 'no-referrer', 'cache-control': 'no-store', ...headers },
  };
}

export function noContent(): HttpResult {
  return { status: 204 };
}

/** A redirect (302 to a short-lived file link, 303 after a form post): never cached, since the target is per request. */
export function redirect(status: 302 | 303, location: string, headers: Record<string, string> = {}): HttpResult {
  return { status, headers: { location, 'cache-control': 'no-store', ...headers } };
}

export function errorResult(error: ApiError): HttpResult {
  return { status: error.status, body: { error: error.toBody() }, headers: error.headers };
}

export type RuntimeKind = 'aws' | 'local';

/**
 * Headers owed by where the answer is served. In AWS the API is HTTPS only, so browsers are told
 * to never try plain HTTP for two years; locally the API is plain http and HSTS would be wrong.
 */
export const transportHeaders = (runtime: RuntimeKind): Record<string, string> =>
  runtime === 'aws' ? { 'strict-transport-security': 'max-age=63072000; includeSubDomains' } : {};

/** An HttpResult as API Gateway's structured result; `extra` are headers owed whatever happens. */
export function render(result: HttpResult, requestId: string, extra: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  // nosniff on every answer: a JSON error must never be read as HTML by a browser.
  const headers: Record<string, string> = { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', ...extra, ...(result.headers ?? {}) };
  if (result.cookies?.length) return { ...render({ ...result, cookies: undefined }, requestId, extra), cookies: result.cookies };
  if (result.body === undefined) return { statusCode: result.status, headers };
  // Bytes (a raw message, an attachment) travel base64-encoded, as API Gateway expects binary.
  if (Buffer.isBuffer(result.body)) return { statusCode: result.status, headers, body: result.body.toString('base64'), isBase64Encoded: true };
  headers['content-type'] ??= 'application/json; charset=utf-8';
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  return { statusCode: result.status, headers, body };
}

/** An error envelope as a complete response, for answers given outside a route's pipeline. */
export function errorResponse(error: ApiError, requestId: string = crypto.randomUUID(), runtime: RuntimeKind = 'local'): APIGatewayProxyStructuredResultV2 {
  return render(errorResult(error), requestId, transportHeaders(runtime));
}

export type LogError = (msg: string, fields: Record<string, unknown>) => void;

const stderrLog: LogError = (msg, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg, ...fields })}\n`);

/**
 * Anything thrown, as its answer: an ApiError becomes its envelope; anything else is logged once
 * with the request id and answered with a generic 500.
 */
export function renderThrown(
  error: unknown,
  requestId: string,
  headers: Record<string, string>,
  context: { routeKey: string; logError?: LogError },
): APIGatewayProxyStructuredResultV2 {
  if (error instanceof ApiError) return render(errorResult(error), requestId, headers);
  (context.logError ?? stderrLog)('unhandled error', { requestId, routeKey: context.routeKey, error: describeError(error) });
  return render(errorResult(new ApiError('internal_error', `internal error (request id ${requestId})`)), requestId, headers);
}

export const requestIdOf = (event: APIGatewayProxyEventV2): string => event.requestContext?.requestId || crypto.randomUUID();

/** Runs one request outside the route pipeline (the catch-all function). */
export async function answer(
  event: APIGatewayProxyEventV2,
  runtime: RuntimeKind,
  run: () => Promise<HttpResult>,
): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = requestIdOf(event);
  const headers = transportHeaders(runtime);
  const response = await run().then(
    (result) => render(result, requestId, headers),
    (error: unknown) => renderThrown(error, requestId, headers, { routeKey: event.routeKey }),
  );
  return isHead(event) ? withoutBody(response) : response;
}

/** HEAD asks for GET's answer without its body. */
export const isHead = (event: APIGatewayProxyEventV2): boolean => event.requestContext?.http?.method?.toUpperCase() === 'HEAD';

/** The answer to a HEAD: GET's status and headers, the length GET's body would have, no body. */
export function withoutBody(response: APIGatewayProxyStructuredResultV2): APIGatewayProxyStructuredResultV2 {
  if (response.body === undefined) return response;
  const length = response.isBase64Encoded ? Buffer.from(response.body, 'base64').length : Buffer.byteLength(response.body);
  const { body: _dropped, isBase64Encoded: _encoding, ...rest } = response;
  return { ...rest, headers: { ...(response.headers ?? {}), 'content-length': String(length) } };
}
