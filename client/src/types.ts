// The request and response types of each route, read from the generated document types
// (schema.d.ts, `npm run client:types`) by path and method, as functions/manifest.ts names them.
// A route the generated document does not describe yet falls back to the narrow local type the
// wrapper names beside it (fallback.ts); regenerating schema.d.ts from the full document makes
// every method typed from the document without touching the wrapper.
import type { paths } from './schema';

export type { paths };

export type HttpMethod = 'get' | 'post' | 'put' | 'delete';

type IsNever<T> = [T] extends [never] ? true : false;

/** `T`, or `F` when `T` is never (the document does not describe it). */
export type Or<T, F> = IsNever<T> extends true ? F : T;

/** The generated operation of a route; never while the document does not describe the route. */
export type Operation<P extends string, M extends HttpMethod> = P extends keyof paths
  ? M extends keyof paths[P]
    ? Exclude<paths[P][M], undefined>
    : never
  : never;

type SuccessStatus = 200 | 201 | 202 | 204;

/** A response's body: its JSON, else its one other content type (a zone file, a page), else undefined (204). */
type ContentOf<R> = R extends { content: { 'application/json': infer J } }
  ? J
  : R extends { content: Record<string, infer T> }
    ? T
    : undefined;

type SuccessOf<O> = O extends { responses: infer R } ? { [S in keyof R & SuccessStatus]: ContentOf<R[S]> }[keyof R & SuccessStatus] : never;

type BodyOf<O> = O extends { requestBody?: infer B } ? (NonNullable<B> extends { content: { 'application/json': infer J } } ? J : never) : never;

type QueryOf<O> = O extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never;

/** Lists take `limit` as a query string; the client takes a number too. */
type LooseLimit<Q> = Q extends { limit?: unknown } ? Omit<Q, 'limit'> & { limit?: number | string } : Q;

/** What a route answers on success (the union of its 2xx bodies). */
export type Ok<P extends string, M extends HttpMethod, Fallback> = Or<SuccessOf<Operation<P, M>>, Fallback>;

/** The JSON body a route takes. */
export type Body<P extends string, M extends HttpMethod, Fallback> = Or<BodyOf<Operation<P, M>>, Fallback>;

/** The query a route takes. */
export type Query<P extends string, M extends HttpMethod, Fallback> = LooseLimit<Or<QueryOf<Operation<P, M>>, Fallback>>;

type ErrorCodesOf<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends SuccessStatus ? never : R[S] extends { content: { 'application/json': { error: { code: infer C } } } } ? C : never }[keyof R]
  : never;

type AnyOperation = { [P in keyof paths & string]: { [M in HttpMethod]: Operation<P, M> }[HttpMethod] }[keyof paths & string];

/** Every error code the document lists; PostboxError.code may also be one it does not know yet. */
export type KnownErrorCode = ErrorCodesOf<AnyOperation>;

/** The element type of a list page's array (`{keys: Key[], next_cursor}` → Key). */
export type ItemOf<Page> = { [K in keyof Page]: Page[K] extends ReadonlyArray<infer I> ? I : never }[keyof Page];
