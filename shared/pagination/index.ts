// The one pagination module every list uses: limit parsing, signed opaque cursors bound to the
// account, the collection and the filters, and newest-first pages of a store query.
import * as z from 'zod';
import { hmacSha256, safeEqual, sha256Hex } from '../crypto';
import { table, keyQueries } from '../db/keys';
import type { Item, QueryRequest, Store } from '../db/store';
import { InvalidRequestError } from '../errors';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** Spec: default 50; above 100 clamps to 100; non-numeric or non-positive falls back to 50. */
export function parseLimit(raw: string | undefined): number {
  if (raw === undefined || !/^\s*\d+\s*$/.test(raw)) return DEFAULT_LIMIT;
  const value = Number(raw);
  if (!Number.isSafeInteger(value) || value <= 0) return DEFAULT_LIMIT;
  return Math.min(value, MAX_LIMIT);
}

export interface CursorScope {
  accountId: string;
  /** Which list the cursor walks, e.g. "keys" or "messages". */
  collection: string;
  /** The filters of the walk; a cursor replayed with other filters is refused. */
  filters?: Record<string, string | undefined>;
}

const payloadSchema = z.object({
  v: z.literal(1),
  a: z.string(),
  c: z.string(),
  f: z.string(),
  k: z.record(z.string(), z.union([z.string(), z.number()])),
});

function filterDigest(filters: CursorScope['filters'] = {}): string {
  const stable = Object.keys(filters)
    .sort()
    .filter((k) => filters[k] !== undefined && filters[k] !== '')
    .map((k) => [k, filters[k]]);
  return sha256Hex(JSON.stringify(stable)).slice(0, 32);
}

const sign = (secret: string, body: string): string => hmacSha256(secret, `cursor.v1.${body}`).toString('base64url');

export function encodeCursor(secret: string, scope: CursorScope, lastKey: Record<string, unknown>): string {
  const body = Buffer.from(
    JSON.stringify({ v: 1, a: scope.accountId, c: scope.collection, f: filterDigest(scope.filters), k: lastKey }),
  ).toString('base64url');
  return `${body}.${sign(secret, body)}`;
}

const invalidCursor = (): InvalidRequestError => new InvalidRequestError('cursor: invalid or expired cursor; start again without one');

/** The store key a cursor resumes from; 400 invalid_request for anything tampered or foreign. */
export function decodeCursor(secret: string, scope: CursorScope, cursor: string): Record<string, unknown> {
  const [body, signature, extra] = cursor.split('.');
  if (!body || !signature || extra !== undefined || cursor.length > 2048) throw invalidCursor();
  if (!safeEqual(sign(secret, body), signature)) throw invalidCursor();
  let parsed: z.infer<typeof payloadSchema>;
  try {
    parsed = payloadSchema.parse(JSON.parse(Buffer.from(body, 'base64url').toString('utf8')));
  } catch (error) {
    throw new InvalidRequestError('cursor: invalid or expired cursor; start again without one', { cause: error });
  }
  if (parsed.a !== scope.accountId || parsed.c !== scope.collection) throw invalidCursor();
  if (parsed.f !== filterDigest(scope.filters)) throw new InvalidRequestError('cursor: filters changed during a walk; keep them identical on every page');
  return parsed.k;
}

export interface PageRequest {
  secret: string;
  scope: CursorScope;
  limit: number;
  cursor?: string;
}

export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/**
 * One page of a query whose sort key orders by created_at then id (ULID sort keys do). Reads one
 * item past the limit so next_cursor is null exactly when nothing follows.
 */
export async function queryPage<T extends object = Item>(
  store: Store,
  query: Omit<QueryRequest, 'limit' | 'startKey'>,
  page: PageRequest,
): Promise<Page<T>> {
  let startKey = page.cursor ? decodeCursor(page.secret, page.scope, page.cursor) : undefined;
  const collected: T[] = [];
  const keyOf = (item: T): Record<string, unknown> => {
    const names = [table.partitionKey, table.sortKey, ...keyNamesOfIndex(query.index)];
    return Object.fromEntries(names.map((n) => [n, (item as Item)[n]]));
  };
  // A filter may leave a store page short; keep reading until the page is full or the end.
  for (;;) {
    const out = await store.query<T>({ ...query, limit: page.limit + 1 - collected.length, startKey });
    collected.push(...out.items);
    if (collected.length > page.limit || !out.lastKey) break;
    startKey = out.lastKey;
  }
  const items = collected.slice(0, page.limit);
  const last = items[items.length - 1];
  const nextCursor = collected.length > page.limit && last ? encodeCursor(page.secret, page.scope, keyOf(last)) : null;
  return { items, nextCursor };
}

function keyNamesOfIndex(index: string | undefined): string[] {
  const found = Object.values(table.indexes).find((i) => i.name === index);
  return found ? [found.partitionKey, found.sortKey] : [];
}

/** A page of an account's items of one kind (sort key prefix), newest first, as wire views. */
export async function listAccountItems<Stored extends object, View>(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  list: { prefix: string; collection: string },
  page: { limit: number; cursor?: string },
  toView: (item: Stored) => View,
): Promise<Page<View>> {
  const out = await queryPage<Stored>(
    deps.store,
    keyQueries.accountItems(accountId, list.prefix),
    { secret: deps.cursorSecret, scope: { accountId, collection: list.collection }, limit: page.limit, cursor: page.cursor },
  );
  return { items: out.items.map(toView), nextCursor: out.nextCursor };
}

/** The page a client asked for (`limit`, `cursor`), as every list route parses it. */
export interface PageInput {
  limit: number;
  cursor?: string;
}

/** One walk of a list: the cursor key, the cursor's binding (account, list, filters) and the page. */
export function pageRequest(deps: { cursorSecret: string }, scope: CursorScope, page: PageInput): PageRequest {
  return { secret: deps.cursorSecret, scope, limit: page.limit, cursor: page.cursor };
}

/** A page of stored items as a page of their wire views. */
export function mapPage<T, U>(page: Page<T>, toView: (item: T) => U): Page<U> {
  return { items: page.items.map(toView), nextCursor: page.nextCursor };
}
