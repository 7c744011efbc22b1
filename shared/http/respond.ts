// Responses and the one place that turns anything thrown into the error envelope. Free of SDK
// imports so the catch-all function stays small.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { ApiError } from '../errors';
import { describeError } from '../runtime/logger';
import type { HttpResult } from './types';

export function json(status: number, body: unknown, headers: Record<string, string> = {}): HttpResult {
  return { status, body, headers };
}

export function noContent(): HttpResult {
  return { status: 204 };
}

export function errorResult(error: ApiError): HttpResult {
  return { status: error.status, body: { error: error.toBody() }, headers: error.headers };
}

function toResult(result: HttpResult, requestId: string, extra: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  // nosniff on every answer: a JSON error must never be read as HTML by a browser.
  const headers: Record<string, string> = { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', ...extra, ...(result.headers ?? {}) };
  if (result.body === undefined) return { statusCode: result.status, headers };
  headers['content-type'] ??= 'application/json; charset=utf-8';
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  return { statusCode: result.status, headers, body };
}

/** An error envelope as a complete response, for answers given outside a route's pipeline. */
export function errorResponse(error: ApiError, requestId: string = crypto.randomUUID()): APIGatewayProxyStructuredResultV2 {
  return toResult(errorResult(error), requestId, {});
}

export type LogError = (msg: string, fields: Record<string, unknown>) => void;

const stderrLog: LogError = (msg, fields) => process.stderr.write(`${JSON.stringify({ level: 'error', time: new Date().toISOString(), msg, ...fields })}\n`);

/**
 * Runs one request. `headers` collects what must be on the answer whatever happens next (rate
 * limit headers once the limiter passed). ApiErrors become their envelope; anything else is logged
 * once with the request id and answered with a generic 500.
 */
export async function answer(
  event: APIGatewayProxyEventV2,
  run: (requestId: string, headers: Record<string, string>) => Promise<HttpResult>,
  logError: () => LogError | undefined = () => undefined,
): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = event.requestContext?.requestId || crypto.randomUUID();
  const headers: Record<string, string> = {};
  try {
    return toResult(await run(requestId, headers), requestId, headers);
  } catch (error) {
    if (error instanceof ApiError) return toResult(errorResult(error), requestId, headers);
    (logError() ?? stderrLog)('unhandled error', { requestId, routeKey: event.routeKey, error: describeError(error) });
    const internal = new ApiError('internal_error', `internal error (request id ${requestId})`);
    return toResult(errorResult(internal), requestId, headers);
  }
}
