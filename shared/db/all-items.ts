// The one page walker: every page of one query in turn, and every item of one key condition read
// whole (for small, capped collections: the Mail app's inboxes and labels, a thread's entries, an
// account's spend caps, domains, routes, subscriptions). Repositories walk pages through these and
// never hand-roll the LastEvaluatedKey loop.
import type { KeyQuery } from './keys';
import type { QueryRequest, Store } from './store';

/** Each page of `query` in turn, in the query's own order and page size, until the store has no more. */
export async function* eachPage<T extends object>(store: Store, query: QueryRequest): AsyncGenerator<T[]> {
  let startKey = query.startKey;
  do {
    const page = await store.query<T>({ ...query, startKey });
    yield page.items;
    startKey = page.lastKey;
  } while (startKey);
}

/** Every item of one key condition, in key order unless `ascending: false` says newest first. */
export async function allItems<T extends object>(store: Store, query: KeyQuery & Pick<QueryRequest, 'ascending' | 'filter' | 'names' | 'consistent'>): Promise<T[]> {
  const found: T[] = [];
  for await (const items of eachPage<T>(store, { ascending: true, ...query })) found.push(...items);
  return found;
}
