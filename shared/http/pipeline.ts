// The request pipeline every HTTP function runs, as middy middlewares: the envelope (request id,
// and the one place that turns anything thrown into the error envelope), the container, the
// request, credentials (suspension, rate limit, scope, key mode), path ids, the JSON body (or the
// raw bytes alone, for a route declared `body: 'raw'`); then the route.
//
// Store round trips of an authenticated request on a warm path: the limiter's one conditional
// write, then the route's own; for a safe method (GET, HEAD) the two at once (shared/http/admission.ts). The key and its account come from this process's cache of
// verified keys (shared/accounts/api-keys/cache.ts), and the key's use is written at most once a minute,
// beside the route rather than before it.
//
// A request with no Authorization header and the console's session cookie is a signed-in person:
// on every key route they act as the account's admin (one GetItem for the session, one for the
// account), live once the owner's address is verified and in test mode before, and every
// state-changing request needs the session's CSRF token in X-CSRF-Token. An Authorization header
// always wins, so the API-key path reads nothing more than it did. Who may call what is
// docs/threat-model.md's table of powers.
import middy, { type MiddlewareObj } from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { routeKey, type Access, type FunctionDef, type HttpRoute, type RouteKeyOf } from '../platform';
import { safeEqual } from '../crypto/crypto';
import { ApiError } from '../errors';
import { parseJsonBody } from './json-body';
import { isHead, render, renderThrown, requestIdOf, transportHeaders, withoutBody } from './respond';
import { findKeyBySecret, recordKeyUse } from '../accounts/api-keys/service';
import { AccountRepository } from '../accounts/repository';
import type { AccountItem } from '../accounts/repository';
import { csrfTokenMatches, findSession, sessionActsInTestMode } from '../auth/session-lookup';
import type { SessionItem } from '../auth/sessions-repository';
import { cookieValue, SESSION_COOKIE } from './cookies';
import { keys } from '../db/keys';
import { ACCOUNT_RATE_LIMIT, IP_RATE_LIMIT, ipSubject } from '../accounts/rate-limit/service';
import { admission, limit, SAFE_METHODS, type PendingAdmission } from './admission';
import { publicBaseUrlOf, readRuntimeKind } from '../runtime/config';
import { getContainer, type Container } from '../runtime/container';
import { describeError } from '../adapters/logger';
import type { AuthContext, HttpRequest, HttpResult } from './types';

export type RouteHandler = (request: HttpRequest, container: Container) => Promise<HttpResult>;

const MAX_BODY_BYTES = 10 * 1024 * 1024; // API Gateway's own payload limit

/** The auth context of a key route; the pipeline guarantees it is there. */
export function authOf(request: HttpRequest): AuthContext {
  if (!request.auth) throw new Error(`route ${request.routeKey} used authOf without key access`);
  return request.auth;
}

function rawBodyOf(event: APIGatewayProxyEventV2): Buffer {
  if (!event.body) return Buffer.alloc(0);
  const raw = event.isBase64Encoded ? Buffer.from(event.body, 'base64') : Buffer.from(event.body, 'utf8');
  if (raw.length > MAX_BODY_BYTES) throw new ApiError('payload_too_large', 'request body is larger than 10 MiB');
  return raw;
}

/**
 * JSON unless the body is an upload (multipart, binary, an image). Any other content type is read
 * as JSON too: `curl -d` labels JSON as a form, and refusing it would only trip people up.
 */
function parseBody(raw: Buffer, contentType: string | undefined): unknown {
  if (contentType && /^(multipart\/|image\/|application\/octet-stream)/i.test(contentType)) return undefined;
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  return parseJsonBody(text);
}

/** Longer than any id or domain name we issue (domain names stop at 253): such a path names nothing. */
const MAX_PARAM_LENGTH = 256;

/** Path ids are checked before any use case can hand them to the store, whose keys are bounded. */
function checkParams(params: Record<string, string>): void {
  for (const [name, value] of Object.entries(params)) {
    if (value.length > MAX_PARAM_LENGTH) throw new ApiError('not_found', `no ${name} of ${value.length} characters exists`);
  }
}

const bearer = (header: string | undefined): string | undefined => /^Bearer ([^\s]+)$/.exec(header?.trim() ?? '')?.[1];

/** What the credentials step owes the rest of the request. */
interface Authorized {
  headers: Record<string, string>;
  /** The key-use write, when one is due: it runs beside the route and is awaited before the answer. */
  keyUse?: Promise<void>;
  /** A safe method's admission, running beside the route (shared/http/admission.ts). */
  admission?: PendingAdmission;
}

/** An account's admission: its headers now, or (a safe method) pending beside the route. */
async function admitAccount(c: Container, request: HttpRequest, accountId: string): Promise<Pick<Authorized, 'headers' | 'admission'>> {
  const admitted = await admission(c, { method: request.method, subject: keys.accountRateSubject(accountId), ceiling: ACCOUNT_RATE_LIMIT, requestId: request.requestId });
  return 'pending' in admitted ? { headers: {}, admission: admitted.pending } : admitted;
}
const sessionEnded = (): ApiError => new ApiError('unauthorized', 'your session has ended; sign in again');
const suspended = (): ApiError => new ApiError('account_suspended', 'this account is suspended; contact support');

/** The signed-in person's session (a cookie and no Authorization header), CSRF-checked; undefined when the request has none. */
async function sessionOf(c: Container, request: HttpRequest) {
  if (request.headers.authorization !== undefined || request.sessionId === undefined) return undefined;
  const session = await findSession(c, request.sessionId);
  if (!session) throw sessionEnded();
  if (!SAFE_METHODS.has(request.method.toUpperCase()) && !csrfTokenMatches(request.sessionId, request.headers['x-csrf-token'])) {
    throw new ApiError('forbidden', 'a session request must send its CSRF token as X-CSRF-Token');
  }
  return session;
}

/** The session's account; a suspended account acts nowhere, staff routes included. */
async function sessionAccount(c: Container, session: SessionItem): Promise<AccountItem> {
  const account = await new AccountRepository(c.store).get(session.account_id);
  if (!account) throw sessionEnded();
  if (account.status === 'suspended') throw suspended();
  return account;
}

async function authorizeStaff(c: Container, request: HttpRequest): Promise<void> {
  const session = await sessionOf(c, request);
  if (session) {
    // Staff sessions are rare: the account read that makes suspension hold here too is cheap.
    await sessionAccount(c, session);
    if (session.role !== 'staff') throw new ApiError('forbidden', 'for staff only');
    return;
  }
  const token = bearer(request.headers.authorization);
  if (!token || !safeEqual(token, c.secrets.get('staff-token'))) throw new ApiError('unauthorized', 'a valid staff token is required');
}

async function authorize(c: Container, access: Access, request: HttpRequest): Promise<Authorized> {
  if (access.kind === 'public' || access.kind === 'staff') {
    const headers = await limit(c, ipSubject(request.sourceIp), IP_RATE_LIMIT, request.requestId);
    if (access.kind === 'staff') await authorizeStaff(c, request);
    return { headers };
  }
  const session = await sessionOf(c, request);
  if (session) {
    const account = await sessionAccount(c, session);
    const admitted = await admitAccount(c, request, account.id);
    // A person acts as the account's admin: live once their address is verified, in test mode
    // before (live-only routes refuse them, and what they send never leaves).
    const testMode = sessionActsInTestMode(account);
    request.auth = { accountId: account.id, keyId: session.user_id, scope: 'admin', testMode, account, session: { userId: session.user_id, role: session.role, verified: !testMode } };
    return admitted;
  }
  const secret = bearer(request.headers.authorization);
  if (!secret) throw new ApiError('unauthorized', 'missing or malformed Authorization header; expected "Bearer <API key>"');
  // Whatever the token looks like, it is looked up: a malformed key and an unknown one cost the
  // same work and get the same answer, so timing does not teach the key format.
  const found = await findKeyBySecret(c, secret);
  if (!found) throw new ApiError('unauthorized', 'unknown or revoked API key');
  const { identity, account } = found;
  // Suspension is checked before the limiter so a suspended account spends no budget.
  if (account.status === 'suspended') throw suspended();
  const admitted = await admitAccount(c, request, identity.accountId);
  request.auth = { ...identity, account };
  // Counted once admitted, scope refusals included. The record is bookkeeping: a failed write
  // keeps its count for the next one and fails no request.
  const keyUse = recordKeyUse(c, found)?.catch((error: unknown) => {
    c.logger.warn('key use not recorded; it is added to the next write', { requestId: request.requestId, keyId: identity.keyId, error: describeError(error) });
  });
  return { ...admitted, keyUse };
}

/** Scope and key mode, once the key is known and the request counted. */
function permit(access: Access, request: HttpRequest): void {
  if (access.kind === 'public' || access.kind === 'staff') return;
  const auth = authOf(request);
  if (access.kind === 'key' && auth.scope !== 'admin' && !access.scopes.includes(auth.scope)) {
    throw new ApiError('forbidden', `this API key's scope (${auth.scope}) does not permit ${request.routeKey}`);
  }
  if (access.modes === 'live_only' && auth.testMode) {
    if (auth.session) {
      throw new ApiError('forbidden', `${request.routeKey} changes what live mail does; verify your email address first: until then you act in test mode`);
    }
    throw new ApiError('forbidden', `${request.routeKey} changes what live mail does; a test-mode key cannot call it, use a live key`);
  }
}

function lowerHeaders(headers: APIGatewayProxyEventV2['headers']): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(headers ?? {}).map(([k, v]) => [k.toLowerCase(), v]));
}

/**
 * The route a request runs. The stack routes a path served by one function as `ANY /path`
 * (shared/platform.ts, gatewayRoutes), so the method the request came with picks the route; where
 * functions share a path each method is routed alone and a GET has a HEAD twin. A HEAD runs the
 * GET route and its body is dropped at the end; a method the function does not serve at that path
 * finds no route (404, as $default answers it).
 */
function routeKeyOf(event: APIGatewayProxyEventV2): string {
  const { routeKey } = event;
  const [method, path] = routeKey.startsWith('ANY ') ? [event.requestContext.http.method.toUpperCase(), routeKey.slice(4)] : [routeKey.slice(0, routeKey.indexOf(' ')), routeKey.slice(routeKey.indexOf(' ') + 1)];
  return `${method === 'HEAD' ? 'GET' : method} ${path}`;
}

/** What the pipeline's middlewares hand each other and the route on the Lambda context. */
interface PipelineContext extends Context {
  requestId: string;
  routeKey: string;
  /** Headers owed on the answer whatever happens next (the rate limit's, once it passed). */
  headers: Record<string, string>;
  /** A write started beside the route (the key's use) that must finish before the answer. */
  keyUse?: Promise<void>;
  /** A safe method's admission, running beside the route: settled before the answer, and a refusal is the answer. */
  admission?: PendingAdmission;
  container?: Container;
  request?: HttpRequest;
}

type Step = MiddlewareObj<APIGatewayProxyEventV2, HttpResult | APIGatewayProxyStructuredResultV2, Error, PipelineContext>;

/** Headers every answer owes whatever happened: the transport's, then those steps collected. */
const owedHeaders = (context: PipelineContext): Record<string, string> => ({
  ...transportHeaders(context.container?.config.runtime ?? readRuntimeKind()),
  ...(context.headers ?? {}),
});

/** Waits for an admission running beside the route: its headers owed, or its refusal thrown (once). */
async function settleAdmission(context: PipelineContext): Promise<void> {
  const pending = context.admission;
  if (!pending) return;
  context.admission = undefined;
  const settled = await pending;
  if ('refused' in settled) throw settled.refused;
  Object.assign(context.headers, settled.headers);
}

/** Renders the route's result, or anything thrown by any step, as the answer (the envelope). */
const envelope = (): Step => ({
  name: 'envelope',
  before: ({ event, context }) => {
    context.requestId = requestIdOf(event);
    context.routeKey = routeKeyOf(event);
    context.headers = {};
  },
  after: async (request) => {
    await request.context.keyUse;
    await settleAdmission(request.context);
    const response = render(request.response as HttpResult, request.context.requestId, owedHeaders(request.context));
    request.response = isHead(request.event) ? withoutBody(response) : response;
  },
  onError: async (request) => {
    const { context, event } = request;
    await context.keyUse;
    // A refused admission is the answer, whatever the route met.
    await settleAdmission(context).catch((refused: unknown) => (request.error = refused as Error));
    const response = renderThrown(request.error, context.requestId ?? requestIdOf(event), owedHeaders(context), {
      routeKey: event.routeKey,
      logError: context.container?.logger.error,
    });
    request.response = isHead(event) ? withoutBody(response) : response;
  },
});

/** The container, built once per cold start; the invocation's log lines carry its request id and route. */
const withContainer = (): Step => ({
  name: 'container',
  before: async ({ context }) => {
    context.container = await getContainer();
    context.container.logger.invocation?.({ request_id: context.requestId, route: context.routeKey }, context);
  },
});

/**
 * A request no route of this function takes: on a path it serves (an ANY route, another method),
 * 405 with Allow, as the $default function answers a wrong method locally and in AWS; else 404.
 */
function unrouted(declared: ReadonlyMap<string, HttpRoute>, key: string, event: APIGatewayProxyEventV2): ApiError {
  const path = key.slice(key.indexOf(' ') + 1);
  const allow = [...declared.values()].filter((r) => r.path === path).flatMap((r) => (r.method === 'GET' ? ['GET', 'HEAD'] : [r.method]));
  const { method } = event.requestContext.http;
  if (allow.length === 0) return new ApiError('not_found', `no route for ${method} ${event.rawPath}`);
  return new ApiError('method_not_allowed', `${method} is not allowed on ${event.rawPath}; allowed: ${allow.join(', ')}`, { headers: { allow: allow.join(', ') } });
}

/** The request as routes see it, for a route the manifest declares on this function. */
const routeRequest = (declared: ReadonlyMap<string, HttpRoute>): Step => ({
  name: 'request',
  before: ({ event, context }) => {
    if (!declared.has(context.routeKey)) throw unrouted(declared, context.routeKey, event);
    context.request = {
      requestId: context.requestId,
      method: event.requestContext.http.method,
      path: event.rawPath,
      routeKey: context.routeKey,
      params: (event.pathParameters ?? {}) as Record<string, string>,
      query: event.queryStringParameters ?? {},
      headers: lowerHeaders(event.headers),
      body: undefined,
      rawBody: Buffer.alloc(0),
      // Links come from configuration: Host and X-Forwarded-* are the client's to choose.
      baseUrl: publicBaseUrlOf(context.container!.config),
      sourceIp: event.requestContext.http.sourceIp,
      sessionId: cookieValue(SESSION_COOKIE, event.cookies, event.headers?.cookie ?? event.headers?.Cookie),
      cookies: event.cookies,
    };
  },
});

/** Credentials, suspension, rate limit, the key's use, scope and key mode, in that order. */
const credentials = (declared: ReadonlyMap<string, HttpRoute>): Step => ({
  name: 'credentials',
  before: async ({ context }) => {
    const route = declared.get(context.routeKey)!;
    const authorized = await authorize(context.container!, route.access, context.request!);
    Object.assign(context.headers, authorized.headers);
    context.keyUse = authorized.keyUse;
    context.admission = authorized.admission;
    permit(route.access, context.request!);
  },
});

const pathIds = (): Step => ({
  name: 'path-ids',
  before: ({ context }) => checkParams(context.request!.params),
});

/** The bytes always; JSON too unless the route takes its body raw (`body: 'raw'` in the manifest). */
const body = (declared: ReadonlyMap<string, HttpRoute>): Step => ({
  name: 'body',
  before: ({ event, context }) => {
    const request = context.request!;
    request.rawBody = rawBodyOf(event);
    request.body = declared.get(context.routeKey)!.body === 'raw' ? undefined : parseBody(request.rawBody, request.headers['content-type']);
  },
});

/**
 * Builds the Lambda handler of one manifest function from its route table: a middy handler whose
 * middlewares are the pipeline's steps. The table must name exactly the function's manifest
 * routes, so the two cannot drift apart.
 */
export function createHttpHandler<F extends FunctionDef>(
  fn: F,
  /** Exactly the definition's routes, by key: a missing or extra key does not compile (and is refused here too). */
  table: NoInfer<{ [K in RouteKeyOf<F>]: RouteHandler }>,
): (event: APIGatewayProxyEventV2) => Promise<APIGatewayProxyStructuredResultV2> {
  const routes: Record<string, RouteHandler> = table;
  const declared = new Map((fn.http ?? []).map((r) => [routeKey(r), r]));
  const missing = [...declared.keys()].filter((k) => !routes[k]);
  const extra = Object.keys(routes).filter((k) => !declared.has(k));
  if (missing.length || extra.length) {
    throw new Error(`function ${fn.name}: routes differ from the manifest (missing ${missing.join(', ') || 'none'}; extra ${extra.join(', ') || 'none'})`);
  }
  const handler = middy<APIGatewayProxyEventV2, HttpResult | APIGatewayProxyStructuredResultV2, Error, PipelineContext>()
    .use(envelope())
    .use(withContainer())
    .use(routeRequest(declared))
    .use(credentials(declared))
    .use(pathIds())
    .use(body(declared))
    .handler((_event, context) => routes[context.routeKey]!(context.request!, context.container!));
  // Lambda's context when Lambda calls it; the local server calls it with the event alone.
  return async (event, context?: Context) => (await handler(event, { ...context } as PipelineContext)) as APIGatewayProxyStructuredResultV2;
}
