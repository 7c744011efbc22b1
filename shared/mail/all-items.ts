// Every item of one key condition, page after page, in key order: for the Mail app's small,
// capped collections (inboxes, labels) and a thread's entries.
import type { KeyQuery } from '../db/keys';
import type { Store } from '../db/store';

export async function allItems<T extends object>(store: Store, query: KeyQuery): Promise<T[]> {
  const found: T[] = [];
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.query<T>({ ...query, ascending: true, startKey });
    found.push(...page.items);
    startKey = page.lastKey;
  } while (startKey);
  return found;
}
