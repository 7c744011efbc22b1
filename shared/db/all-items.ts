// Every item of one key condition, page after page, in key order: for small, capped collections
// read whole (the Mail app's inboxes and labels, a thread's entries, an account's spend caps).
import type { KeyQuery } from './keys';
import type { Store } from './store';

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
