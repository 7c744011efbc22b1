// Setup the benchmarks share: contacts written straight into the store in the contacts area's item
// shape (shared/contacts/repository.ts), and work spread over a few concurrent lanes.
import type { ContactItem } from '../../shared/contacts/repository';
import { keys } from '../../shared/db/keys';
import type { Container } from '../../shared/runtime/container';

/** Contact `i` of a seeded audience: `reader{i}@example.com`, Ada Lovelace, with `data`. */
export function benchContact(c: Container, accountId: string, i: number, data: ContactItem['data'], now: string, listIds?: Set<string>): ContactItem {
  const id = c.ids.next('ctc');
  return {
    ...keys.contact(accountId, id),
    entity: 'contact',
    id,
    account_id: accountId,
    email: `reader${i}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    data,
    unsubscribed: false,
    ...(listIds ? { list_ids: listIds } : {}),
    created_at: now,
    updated_at: now,
  };
}

/** `fn` on each of `items`, `lanes` at a time, in order of start. */
export async function inLanes<T>(items: readonly T[], lanes: number, fn: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: lanes }, async () => {
      while (next < items.length) await fn(items[next++]!);
    }),
  );
}
