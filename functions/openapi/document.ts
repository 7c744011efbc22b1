// The OpenAPI 3.1 document, built from the route table (functions/manifest.ts: paths, access,
// summaries) and the routes' contracts (functions/contracts.ts: the zod schemas the handlers parse
// with, the answers and the error codes). `npm run openapi` writes it to docs/openapi.json, which
// GET /v1/openapi.json serves; test/unit/openapi.test.ts fails when the committed file is stale.
import * as z from 'zod';
import { errorStatus, type ErrorCode } from '../../shared/errors';
import type { Contracts, RouteContract } from '../../shared/http/contract';
import { DEFAULT_LIMIT, MAX_LIMIT } from '../../shared/pagination';
import type { Access, FunctionDef, HttpRoute } from '../../shared/platform';

type Json = Record<string, unknown>;

/** JSON Schema 2020-12 of a zod schema, as OpenAPI 3.1 takes it. */
function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): Json {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', unrepresentable: 'any', io, reused: 'inline' }) as Json;
  return rest;
}

/** The codes every route of an access kind can answer, whatever its own rules. */
function accessErrors(access: Access, contract: RouteContract, path: string): ErrorCode[] {
  const codes: ErrorCode[] = ['rate_limit_exceeded', 'service_unavailable', 'internal_error'];
  if (access.kind === 'key' || access.kind === 'any_key') codes.push('unauthorized', 'account_suspended');
  if (access.kind === 'key' || (access.kind === 'any_key' && access.modes === 'live_only')) codes.push('forbidden');
  if (access.kind === 'staff') codes.push('unauthorized');
  if (contract.body || contract.query || contract.paginated) codes.push('invalid_request');
  if (contract.body) codes.push('payload_too_large');
  if (path.includes('{')) codes.push('not_found');
  return codes;
}

const header = (description: string, schema: Json = { type: 'string' }): Json => ({ description, schema });

const HEADERS = {
  'X-Request-Id': header('The request id, also in the logs: quote it when asking about a request.'),
  'X-RateLimit-Limit': header('Requests allowed per second for this account (or client IP on public routes).', { type: 'integer' }),
  'X-RateLimit-Remaining': header('Requests left in the current window.', { type: 'integer' }),
  'X-RateLimit-Reset': header('When the window frees up, in epoch seconds.', { type: 'integer' }),
  'Retry-After': header('Seconds to wait before retrying (429, 503, and 409 idempotency_key_in_use).', { type: 'integer' }),
  'Cache-Control': header('no-store on answers that show a secret: no browser, proxy or CDN keeps a copy.'),
};

const RETRYABLE: ReadonlySet<ErrorCode> = new Set(['rate_limit_exceeded', 'service_unavailable', 'idempotency_key_in_use', 'test_send_daily_limit']);

function errorResponse(codes: ErrorCode[], status: number): Json {
  const retry = codes.some((c) => RETRYABLE.has(c));
  return {
    description: codes.join(', '),
    headers: { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' }, ...(retry ? { 'Retry-After': { $ref: '#/components/headers/Retry-After' } } : {}) },
    content: {
      'application/json': {
        schema: { allOf: [{ $ref: '#/components/schemas/ErrorEnvelope' }], properties: { error: { properties: { code: { enum: codes }, status: { const: status } } } } },
      },
    },
  };
}

/** The one error envelope; each answer narrows its code and status. */
const ERROR_ENVELOPE: Json = {
  type: 'object',
  required: ['error'],
  additionalProperties: false,
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      additionalProperties: false,
      properties: {
        code: { type: 'string', enum: Object.keys(errorStatus).sort() },
        message: { type: 'string', description: 'For people: what went wrong and what to do; never a stack trace' },
        status: { type: 'integer', description: 'The HTTP status, repeated' },
      },
    },
  },
};

function security(access: Access): Json[] {
  if (access.kind === 'public') return [];
  if (access.kind === 'staff') return [{ staffToken: [] }];
  return [{ apiKey: [] }];
}

function accessExtension(access: Access): Json {
  if (access.kind === 'key') return { kind: 'api_key', scopes: [...access.scopes, ...(access.scopes.includes('admin') ? [] : ['admin'])], modes: access.modes };
  if (access.kind === 'any_key') return { kind: 'api_key', scopes: ['admin', 'send', 'read'], modes: access.modes };
  return { kind: access.kind };
}

function parameters(route: HttpRoute, contract: RouteContract): Json[] {
  const out: Json[] = [];
  const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]!);
  const pathShape = contract.params?.shape ?? {};
  for (const name of pathNames) {
    const schema = (pathShape as Record<string, z.ZodType>)[name];
    out.push({ name, in: 'path', required: true, schema: schema ? jsonSchema(schema, 'input') : { type: 'string', maxLength: 256 } });
  }
  for (const [name, schema] of Object.entries((contract.query?.shape ?? {}) as Record<string, z.ZodType>)) {
    const described = jsonSchema(schema, 'input');
    const { description, ...rest } = described;
    out.push({ name, in: 'query', required: !schema.safeParse(undefined).success, ...(description ? { description } : {}), schema: rest });
  }
  return out;
}

function operation(fn: FunctionDef, route: HttpRoute, contract: RouteContract): Json {
  const responses: Json = {};
  for (const [status, spec] of Object.entries(contract.responses)) {
    const headers: Json = { 'X-Request-Id': { $ref: '#/components/headers/X-Request-Id' } };
    // Every route passes a limiter: keyed routes the account's, public and staff routes the client IP's.
    for (const h of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset']) headers[h] = { $ref: `#/components/headers/${h}` };
    if (spec.secret) headers['Cache-Control'] = { $ref: '#/components/headers/Cache-Control' };
    responses[status] = {
      description: spec.description,
      headers,
      ...(spec.schema || spec.contentType ? { content: { [spec.contentType ?? 'application/json']: { schema: spec.schema ? jsonSchema(spec.schema, 'output') : { type: 'string' } } } } : {}),
    };
  }
  const codes = [...contract.errors.map((e) => (typeof e === 'string' ? { code: e, status: errorStatus[e] } : e)), ...accessErrors(route.access, contract, route.path).map((code) => ({ code, status: errorStatus[code] }))];
  const byStatus = new Map<number, Set<ErrorCode>>();
  for (const { code, status } of codes) byStatus.set(status, (byStatus.get(status) ?? new Set()).add(code));
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) responses[String(status)] = errorResponse([...list].sort(), status);
  const params = parameters(route, contract);
  return {
    operationId: contract.operationId,
    summary: route.summary,
    ...(contract.description ? { description: contract.description } : {}),
    tags: [fn.name],
    security: security(route.access),
    'x-postbox-access': accessExtension(route.access),
    ...(contract.paginated ? { 'x-postbox-paginated': { limit: `query limit, 1 to ${MAX_LIMIT}, default ${DEFAULT_LIMIT}`, cursor: 'query cursor, the next_cursor of the page before; null on the last page' } } : {}),
    ...(contract.idempotent ? { 'x-postbox-idempotent': 'Each send carries an idempotency_key: a retry with the same key and body gets the first answer again, even while the first is still in flight (the message, stored by one conditional write, is the idempotency record); a different body 409 idempotency_key_reused.' } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(contract.body
      ? {
          requestBody: {
            required: true,
            content: {
              [contract.bodyContentType ?? 'application/json']: { schema: jsonSchema(contract.body, 'input') },
              ...Object.fromEntries(Object.entries(contract.otherBodies ?? {}).map(([type, schema]) => [type, { schema: jsonSchema(schema, 'input') }])),
            },
          },
        }
      : {}),
    responses,
    'x-postbox-examples': contract.examples,
  };
}

/**
 * The version of the interface this document describes: the spec's Versioning section says the
 * interface description carries 1.0.0. It is the contract's version, not the package's (which
 * counts releases of this implementation), so it changes only with the interface.
 */
export const INTERFACE_VERSION = '1.0.0';

/** Builds the document; throws when a route has no contract or a contract names no route. */
export function buildDocument(functions: readonly FunctionDef[], contracts: Contracts): Json {
  const paths: Record<string, Json> = {};
  const seen = new Set<string>();
  const operationIds = new Set<string>();
  for (const fn of functions) {
    for (const route of fn.http ?? []) {
      const key = `${route.method} ${route.path}`;
      const contract = contracts[key];
      if (!contract) throw new Error(`no contract for ${key} (functions/${fn.name}: add it to the area's contract.ts)`);
      if (operationIds.has(contract.operationId)) throw new Error(`operationId ${contract.operationId} is used twice`);
      operationIds.add(contract.operationId);
      seen.add(key);
      paths[route.path] = { ...(paths[route.path] ?? {}), [route.method.toLowerCase()]: operation(fn, route, contract) };
    }
  }
  const orphans = Object.keys(contracts).filter((k) => !seen.has(k));
  if (orphans.length > 0) throw new Error(`contracts for routes that are not in the route table: ${orphans.join(', ')}`);
  const sortedPaths = Object.fromEntries(Object.keys(paths).sort().map((p) => [p, paths[p]]));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Postbox API',
      version: INTERFACE_VERSION,
      description:
        'One API, one key and one bill for sending messages. Every error is `{"error": {"code", "message", "status"}}` with the codes listed per operation. ' +
        'Authenticate with `Authorization: Bearer <API key>`; `x-postbox-access` names the key scopes (an admin key may call everything) and whether a test-mode key may call the route. ' +
        'Each account may make 10 requests a second: the `X-RateLimit-*` headers say where it stands, and a 429 carries `Retry-After`.',
    },
    servers: [{ url: '/', description: 'The deployment serving this document (its PUBLIC_BASE_URL)' }],
    tags: functions.filter((f) => (f.http ?? []).length > 0).map((f) => ({ name: f.name })),
    paths: sortedPaths,
    components: {
      securitySchemes: {
        apiKey: { type: 'http', scheme: 'bearer', description: 'An API key: pb_live_… or pb_test_… (test mode never reaches real recipients).' },
        staffToken: { type: 'http', scheme: 'bearer', description: 'The deployment\'s staff token, for the admin routes.' },
      },
      headers: HEADERS,
      schemas: { ErrorEnvelope: ERROR_ENVELOPE },
    },
  };
}
