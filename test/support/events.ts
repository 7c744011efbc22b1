// Builders for the events Lambda receives, shaped as API Gateway and SQS send them.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { functions } from '../../functions/manifest';
import { createRouteMatcher } from '../../shared/http/route-match';

const matchRoute = createRouteMatcher(functions);

export interface HttpEventInput {
  method: string;
  path: string;
  key?: string;
  body?: unknown;
  rawBody?: string;
  /** rawBody is base64, as API Gateway sends a binary body. */
  base64?: boolean;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  sourceIp?: string;
  /** Request cookies, `name=value` each, as API Gateway hands them over (`event.cookies`). */
  cookies?: string[];
}

let counter = 0;

/** An API Gateway v2 event routed exactly as API Gateway would route it from the manifest. */
export function httpEvent(input: HttpEventInput): APIGatewayProxyEventV2 {
  const match = matchRoute(input.method, input.path);
  const routeKey = match.kind === 'route' ? match.routeKey : '$default';
  const params = match.kind === 'route' ? match.params : undefined;
  const headers: Record<string, string> = { 'content-type': 'application/json', ...(input.headers ?? {}) };
  if (input.key) headers.authorization = `Bearer ${input.key}`;
  const rawQuery = new URLSearchParams(input.query ?? {}).toString();
  return {
    version: '2.0',
    routeKey,
    rawPath: input.path,
    rawQueryString: rawQuery,
    cookies: input.cookies,
    headers,
    queryStringParameters: input.query,
    pathParameters: params && Object.keys(params).length ? params : undefined,
    requestContext: {
      accountId: 'test',
      apiId: 'test',
      domainName: 'api.test',
      domainPrefix: 'api',
      http: { method: input.method, path: input.path, protocol: 'HTTP/1.1', sourceIp: input.sourceIp ?? '198.51.100.7', userAgent: 'vitest' },
      requestId: `req-${++counter}`,
      routeKey,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
    body: input.rawBody ?? (input.body === undefined ? undefined : JSON.stringify(input.body)),
    isBase64Encoded: input.base64 ?? false,
  };
}

export interface ParsedResult {
  status: number;
  headers: Record<string, string>;
  /** Set-Cookie values (API Gateway's `cookies` array). */
  cookies: string[];
  body: any;
}

export function parseResult(result: APIGatewayProxyStructuredResultV2): ParsedResult {
  return {
    status: result.statusCode ?? 200,
    headers: (result.headers ?? {}) as Record<string, string>,
    cookies: result.cookies ?? [],
    body: result.body ? JSON.parse(result.body) : undefined,
  };
}
