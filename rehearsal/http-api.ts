// The HTTP API as API Gateway serves it from the template: the AWS::ApiGatewayV2::Route resources
// (their RouteKey, and the Target integration each names), the AWS::ApiGatewayV2::Integration each
// targets (AWS_PROXY to a function, payload format 2.0), the route chosen as API Gateway chooses
// it (the most specific path, a method over ANY, $default last), the request turned into a
// payload v2 event and the function's answer into the HTTP response the way API Gateway does.
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { InvokeResult } from './lambda';
import { resourcesOfType, type CfnTemplate, type Resolver } from './template';
import { listenOnLoopback } from './loopback';

export interface ApiRoute {
  routeKey: string;
  /** null for $default. */
  method: string | null;
  /** Path segments; `{name}` a variable, `{name+}` greedy. */
  segments: string[];
  /** The function's ARN the integration invokes. */
  functionArn: string;
  payloadFormatVersion: string;
}

/** The routes of the template's HTTP API, with the function each one's integration invokes. */
export function readRoutes(template: CfnTemplate, resolver: Resolver): ApiRoute[] {
  return resourcesOfType(template, 'AWS::ApiGatewayV2::Route').map(([id, route]) => {
    const props = route.Properties ?? {};
    const routeKey = resolver.string(props.RouteKey, `${id}.RouteKey`);
    const target = resolver.string(props.Target, `${id}.Target`);
    const integrationId = /^integrations\/(.+)$/.exec(target)?.[1];
    const integration = integrationId ? template.Resources[integrationId] : undefined;
    if (!integration || integration.Type !== 'AWS::ApiGatewayV2::Integration') throw new Error(`${id}: Target ${target} names no integration of the template`);
    const ip = integration.Properties ?? {};
    if (ip.IntegrationType !== 'AWS_PROXY') throw new Error(`${integrationId}: IntegrationType ${String(ip.IntegrationType)} is not rehearsed (AWS_PROXY only)`);
    const [method, path] = routeKey === '$default' ? [null, ''] : (routeKey.split(' ') as [string, string]);
    return {
      routeKey,
      method,
      segments: path.split('/').filter(Boolean),
      functionArn: resolver.string(ip.IntegrationUri, `${integrationId}.IntegrationUri`),
      payloadFormatVersion: String(ip.PayloadFormatVersion ?? '1.0'),
    };
  });
}

/** How well a route's path matches: per segment 3 literal, 2 variable, 1 greedy; undefined when it does not. */
function pathMatch(segments: readonly string[], parts: readonly string[]): { score: number[]; params: Record<string, string> } | undefined {
  const score: number[] = [];
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i]!;
    const greedy = /^\{(.+)\+\}$/.exec(segment);
    if (greedy) {
      if (i >= parts.length) return undefined;
      params[greedy[1]!] = parts.slice(i).join('/');
      return { score: [...score, 1], params };
    }
    const part = parts[i];
    if (part === undefined) return undefined;
    const variable = /^\{(.+)\}$/.exec(segment);
    if (variable) {
      params[variable[1]!] = part;
      score.push(2);
    } else if (segment === part) {
      score.push(3);
    } else {
      return undefined;
    }
  }
  return segments.length === parts.length ? { score, params } : undefined;
}

const compareScores = (a: readonly number[], b: readonly number[]): number => {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const d = (a[i] ?? 0) - (b[i] ?? 0);
    if (d !== 0) return d;
  }
  return 0;
};

/** The route API Gateway picks for a request, and its path parameters; undefined when none (404). */
export function matchRoute(routes: readonly ApiRoute[], method: string, path: string): { route: ApiRoute; params: Record<string, string> } | undefined {
  // `/` has no segments; `/a/b/` keeps its empty last one, which no literal matches.
  const cleaned = path === '/' ? [] : path.split('/').slice(1);
  let best: { route: ApiRoute; params: Record<string, string>; score: number[]; exactMethod: boolean } | undefined;
  for (const route of routes) {
    if (route.method === null) continue;
    if (route.method !== 'ANY' && route.method !== method) continue;
    const decoded = cleaned.map((part) => {
      try {
        return decodeURIComponent(part);
      } catch {
        return part;
      }
    });
    const match = pathMatch(route.segments, decoded);
    if (!match) continue;
    const exactMethod = route.method !== 'ANY';
    const order = best ? compareScores(match.score, best.score) || Number(exactMethod) - Number(best.exactMethod) : 1;
    if (order > 0) best = { route, params: match.params, score: match.score, exactMethod };
  }
  if (best) return { route: best.route, params: best.params };
  const fallback = routes.find((route) => route.method === null);
  return fallback ? { route: fallback, params: {} } : undefined;
}

const TEXT_TYPES = /^(text\/|application\/(json|[\w.+-]*\+json|xml|[\w.+-]*\+xml|x-www-form-urlencoded|javascript))/i;

/** API Gateway's payload v2 event for a request. */
export function toEvent(req: IncomingMessage, body: Buffer, route: ApiRoute, params: Record<string, string>, apiId: string): APIGatewayProxyEventV2 {
  const url = new URL(req.url ?? '/', 'http://rehearsal');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(req.headers)) if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(',') : value;
  // Payload v2 hands the cookies over as their own field and leaves the Cookie header out.
  const cookies = headers.cookie?.split(';').map((c) => c.trim()).filter(Boolean);
  delete headers.cookie;
  const query: Record<string, string> = {};
  for (const [k, v] of url.searchParams) query[k] = k in query ? `${query[k]},${v}` : v;
  const contentType = headers['content-type'] ?? '';
  const isText = body.length === 0 || contentType === '' || TEXT_TYPES.test(contentType);
  const now = new Date();
  const method = (req.method ?? 'GET').toUpperCase();
  return {
    version: '2.0',
    routeKey: route.routeKey,
    rawPath: url.pathname,
    rawQueryString: url.search.slice(1),
    ...(cookies?.length ? { cookies } : {}),
    headers,
    ...(Object.keys(query).length ? { queryStringParameters: query } : {}),
    ...(Object.keys(params).length ? { pathParameters: params } : {}),
    requestContext: {
      accountId: '123456789012',
      apiId,
      domainName: headers.host ?? 'localhost',
      domainPrefix: (headers.host ?? 'localhost').split('.')[0]!,
      http: { method, path: url.pathname, protocol: `HTTP/${req.httpVersion}`, sourceIp: (req.socket.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''), userAgent: headers['user-agent'] ?? '' },
      requestId: randomUUID(),
      routeKey: route.routeKey,
      stage: '$default',
      time: now.toUTCString(),
      timeEpoch: now.getTime(),
    },
    ...(body.length ? { body: isText ? body.toString('utf8') : body.toString('base64') } : {}),
    isBase64Encoded: body.length > 0 && !isText,
  };
}

/** API Gateway's answer to an invocation's outcome (payload v2). */
export function toResponse(outcome: InvokeResult): { status: number; headers: Record<string, string | string[]>; body: Buffer } {
  const json = (status: number, message: string) => ({ status, headers: { 'content-type': 'application/json' }, body: Buffer.from(JSON.stringify({ message })) });
  if (!outcome.ok) return json(500, 'Internal Server Error');
  const result = outcome.result;
  if (result !== null && typeof result === 'object' && 'statusCode' in result) {
    const r = result as { statusCode: number; headers?: Record<string, unknown>; body?: string; isBase64Encoded?: boolean; cookies?: string[] };
    const headers: Record<string, string | string[]> = Object.fromEntries(Object.entries(r.headers ?? {}).map(([k, v]) => [k, String(v)]));
    if (r.cookies?.length) headers['set-cookie'] = r.cookies;
    const body = r.body === undefined ? Buffer.alloc(0) : r.isBase64Encoded ? Buffer.from(r.body, 'base64') : Buffer.from(r.body, 'utf8');
    return { status: r.statusCode, headers, body };
  }
  // Not a structured answer: API Gateway sends it as a JSON body with 200.
  return { status: 200, headers: { 'content-type': 'application/json' }, body: Buffer.from(typeof result === 'string' ? result : JSON.stringify(result)) };
}

/** Lambda's limit on a synchronous invocation's event and answer: 6 MB. */
const INVOKE_LIMIT_BYTES = 6 * 1024 * 1024;

export interface HttpApi {
  endpoint: string;
  close(): Promise<void>;
}

export async function startHttpApi(options: {
  routes: readonly ApiRoute[];
  apiId: string;
  invoke: (functionArn: string, event: APIGatewayProxyEventV2) => Promise<InvokeResult>;
  port?: number;
}): Promise<HttpApi> {
  const reply = (res: ServerResponse, answer: ReturnType<typeof toResponse>): void => {
    res.writeHead(answer.status, { ...answer.headers, 'apigw-requestid': randomUUID() });
    res.end(answer.body);
  };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      void (async () => {
        const url = new URL(req.url ?? '/', 'http://rehearsal');
        const found = matchRoute(options.routes, (req.method ?? 'GET').toUpperCase(), url.pathname);
        if (!found) return reply(res, { status: 404, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"message":"Not Found"}') });
        const event = toEvent(req, Buffer.concat(chunks), found.route, found.params, options.apiId);
        if (Buffer.byteLength(JSON.stringify(event)) > INVOKE_LIMIT_BYTES) {
          return reply(res, { status: 413, headers: { 'content-type': 'application/json' }, body: Buffer.from('{"message":"Request Entity Too Large"}') });
        }
        const outcome = await options.invoke(found.route.functionArn, event);
        if (outcome.ok && Buffer.byteLength(JSON.stringify(outcome.result)) > INVOKE_LIMIT_BYTES) return reply(res, toResponse({ ok: false, error: { errorType: 'ResponseSizeTooLarge', errorMessage: 'answer past 6 MB' } }));
        reply(res, toResponse(outcome));
      })().catch((error: unknown) => {
        if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: `rehearsal failure: ${String(error)}` }));
      });
    });
  });
  return listenOnLoopback(server, options.port);
}
