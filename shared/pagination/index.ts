// The one pagination module every list uses: limit parsing, sealed opaque cursors bound to the
// account, the collection and the filters, and newest-first pages of a store query.
import * as z from 'zod';
import { derivedKey, GCM_IV_BYTES as IV_BYTES, GCM_TAG_BYTES as TAG_BYTES, gcmOpen, gcmSeal, sha256Hex } from '../crypto/crypto';
import { keyQueries } from '../db/keys';
import { table } from '../db/schema';
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

// Cursors are sealed, not just signed: the store key inside (account ids, partition names) is
// nobody's business, and AES-GCM's tag makes any changed byte unreadable. The version names the
// scheme so a later one can be told apart.
const VERSION = 'c2';

/** The cursor key, derived from the cursor-signing-key secret so no new secret is needed. */
const cursorKey = (secret: string): Buffer => derivedKey(secret, 'cursor/aes-256-gcm/v2');

/** Account and list are bound as associated data: a cursor opens only in the walk it came from. */
const boundTo = (scope: CursorScope): Buffer => Buffer.from(JSON.stringify([VERSION, scope.accountId, scope.collection]), 'utf8');

export function encodeCursor(secret: string, scope: CursorScope, lastKey: Record<string, unknown>): string {
  const box = gcmSeal(cursorKey(secret), JSON.stringify({ f: filterDigest(scope.filters), k: lastKey }), boundTo(scope));
  return `${VERSION}.${Buffer.concat([box.iv, box.body, box.tag]).toString('base64url')}`;
}

const invalidCursor = (cause?: unknown): InvalidRequestError =>
  new InvalidRequestError('cursor: invalid or expired cursor; start again without one', { cause });

/** The store key a cursor resumes from; 400 invalid_request for anything tampered or foreign. */
export function decodeCursor(secret: string, scope: CursorScope, cursor: string): Record<string, unknown> {
  const [version, body, extra] = cursor.split('.');
  if (version !== VERSION || !body || extra !== undefined || cursor.length > 2048 || !/^[\w-]+$/.test(body)) throw invalidCursor();
  const sealed = Buffer.from(body, 'base64url');
  // Re-encoding must give the same text: base64url decoding ignores stray trailing bits.
  if (sealed.length < IV_BYTES + TAG_BYTES + 1 || sealed.toString('base64url') !== body) throw invalidCursor();
  let parsed: z.infer<typeof payloadSchema>;
  try {
    const box = { iv: sealed.subarray(0, IV_BYTES), body: sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES), tag: sealed.subarray(sealed.length - TAG_BYTES) };
    parsed = payloadSchema.parse(JSON.parse(gcmOpen(cursorKey(secret), box, boundTo(scope))));
  } catch (error) {
    throw invalidCursor(error);
  }
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
 * item past the limit so next_cursor is null exactly when nothing follows. `hydrate`, when given,
 * turns each store page into the items listed (reading what an index does not project, dropping
 * what a filter on it refuses), in order; the items it returns must keep the query's key
 * attributes, which the cursor is made of.
 */
export async function queryPage<T extends object = Item, U extends object = T>(
  store: Store,
  query: Omit<QueryRequest, 'limit' | 'startKey'>,
  page: PageRequest,
  hydrate: (items: T[]) => Promise<U[]> = async (items) => items as unknown as U[],
): Promise<Page<U>> {
  let startKey = page.cursor ? decodeCursor(page.secret, page.scope, page.cursor) : undefined;
  const collected: U[] = [];
  const keyOf = (item: U): Record<string, unknown> => {
    const names = [table.partitionKey, table.sortKey, ...keyNamesOfIndex(query.index)];
    return Object.fromEntries(names.map((n) => [n, (item as Item)[n]]));
  };
  // A filter may leave a store page short; keep reading until the page is full or the end.
  for (;;) {
    const out = await store.query<T>({ ...query, limit: page.limit + 1 - collected.length, startKey });
    collected.push(...(out.items.length > 0 ? await hydrate(out.items) : []));
    if (collected.length > page.limit || !out.lastKey) break;
    startKey = out.lastKey;
  }
  const items = collected.slice(0, page.limit);
  const last = items[items.length - 1];
  const nextCursor = collected.length > page.limit && last ? encodeCursor(page.secret, page.scope, keyOf(last)) : null;
  return { items, nextCursor };
}

/** How much of the store a filtered walk may read for one page: `pages` queries of `pageSize` items each. */
export interface WalkBudget {
  pageSize: number;
  pages: number;
}

/**
 * One page of a walk that filters in memory (a dynamic list's matcher, a prefix search): like
 * queryPage, but it stops after `budget.pages` store queries. A page cut short by the budget may
 * hold fewer than `limit` items (even none) and still have a next_cursor, which resumes the walk
 * right after the last item read; next_cursor is null only at the end of the walk. `select` keeps
 * and turns store items into what is listed, in order, keeping the query's key attributes.
 */
export async function walkPage<T extends object = Item, U extends object = T>(
  store: Store,
  query: Omit<QueryRequest, 'limit' | 'startKey'>,
  page: PageRequest,
  select: (items: T[]) => Promise<U[]>,
  budget: WalkBudget,
): Promise<Page<U>> {
  let startKey = page.cursor ? decodeCursor(page.secret, page.scope, page.cursor) : undefined;
  const names = [table.partitionKey, table.sortKey, ...keyNamesOfIndex(query.index)];
  const keyOf = (item: object): Record<string, unknown> => Object.fromEntries(names.map((n) => [n, (item as Item)[n]]));
  const collected: U[] = [];
  let resumeAt: Record<string, unknown> | undefined;
  for (let read = 0; ; read++) {
    if (read >= budget.pages) {
      resumeAt = startKey;
      break;
    }
    const out = await store.query<T>({ ...query, limit: budget.pageSize, startKey });
    collected.push(...(out.items.length > 0 ? await select(out.items) : []));
    if (collected.length > page.limit || !out.lastKey) {
      if (collected.length > page.limit) resumeAt = keyOf(collected[page.limit - 1] as U);
      break;
    }
    startKey = out.lastKey;
  }
  const items = collected.slice(0, page.limit);
  return { items, nextCursor: resumeAt ? encodeCursor(page.secret, page.scope, resumeAt) : null };
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
