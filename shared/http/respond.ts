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

/** An HttpResult as API Gateway's structured result; `extra` are headers owed whatever happens. */
export function render(result: HttpResult, requestId: string, extra: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  // nosniff on every answer: a JSON error must never be read as HTML by a browser.
  const headers: Record<string, string> = { 'x-request-id': requestId, 'x-content-type-options': 'nosniff', ...extra, ...(result.headers ?? {}) };
  if (result.body === undefined) return { statusCode: result.status, headers };
  headers['content-type'] ??= 'application/json; charset=utf-8';
  const body = typeof result.body === 'string' ? result.body : JSON.stringify(result.body);
  return { statusCode: result.status, headers, body };
}

/** An error envelope as a complete response, for answers given outside a route's pipeline. */
export function errorResponse(error: ApiError, requestId: string = crypto.randomUUID()): APIGatewayProxyStructuredResultV2 {
  return render(errorResult(error), requestId, {});
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
export async function answer(event: APIGatewayProxyEventV2, run: () => Promise<HttpResult>): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = requestIdOf(event);
  try {
    return render(await run(), requestId, {});
  } catch (error) {
    return renderThrown(error, requestId, {}, { routeKey: event.routeKey });
  }
}
