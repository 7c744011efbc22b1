// What a route promises on the wire, beside its handler: the zod schemas of its path, query and
// body (the same ones the handler parses with), each status it can answer with its schema, the
// error codes it can return, and examples. functions/openapi/document.ts turns the route table and
// these contracts into the OpenAPI document; nothing else describes the API, so it cannot drift.
import type { FunctionDef, RouteKeyOf } from '../platform';
import type { z } from 'zod';
import type { ErrorCode } from '../errors';

export interface ResponseSpec {
  description: string;
  /** The JSON body's schema (its output side); absent for 204 and for non-JSON answers. */
  schema?: z.ZodType;
  /** Default application/json; a file (a zone file, an SVG) names its own type. */
  contentType?: string;
  /** Shows a secret once: answered with Cache-Control: no-store. */
  secret?: boolean;
}

/** An example call: what the contract test replays against the local runtime. */
export interface RouteExample {
  name: string;
  /**
   * Values may name a fixture the contract test makes first, as `{{name}}` (test/e2e/openapi-contract.test.ts
   * lists them): an id, a domain, a key. No spaces: a Mustache tag in a template body is written
   * `{{ name }}` and is sent as it is.
   */
  params?: Record<string, string>;
  query?: Record<string, string>;
  body?: unknown;
  /** The status the example is answered with. */
  status: number;
  /** Which credential the example is sent with; default the route's natural key (admin, send or read). */
  as?: 'admin' | 'send' | 'read' | 'test' | 'staff' | 'none';
}

export interface RouteContract {
  /** Unique, camelCase: the client's method names come from it. */
  operationId: string;
  /** Longer than the route table's summary; markdown. */
  description?: string;
  params?: z.ZodObject;
  query?: z.ZodObject;
  body?: z.ZodType;
  /** Default application/json. */
  bodyContentType?: string;
  /**
   * Other content types the same body may come as, each with its schema: a file sent raw as
   * `text/csv` or as a `multipart/form-data` form. Examples are sent as `bodyContentType`.
   */
  otherBodies?: Record<string, z.ZodType>;
  /** The answers that are not errors, by status. */
  responses: Record<number, ResponseSpec>;
  /**
   * The codes this route's own rules can return, at their status in shared/errors.ts, or at the
   * status given where the spec answers a code with another one. The codes every route of its
   * access kind can return (credentials, scope, rate limit, malformed JSON, overload) are added by
   * the document.
   */
  errors: readonly (ErrorCode | { code: ErrorCode; status: number })[];
  /** A list walked with `limit` and `cursor`, answered with `next_cursor`. */
  paginated?: boolean;
  /** Retries with the same idempotency_key replay the first answer. */
  idempotent?: boolean;
  examples: readonly RouteExample[];
}

/** Contracts by route key, `METHOD /path` as in functions/manifest.ts. */
export type Contracts = Record<string, RouteContract>;

/** One function's contracts: exactly its definition's routes, by key (a missing or extra one does not compile). */
export type ContractsOf<F extends FunctionDef> = { [K in RouteKeyOf<F>]: RouteContract };

export { listOf, pageQuery } from '../pagination/schemas';
