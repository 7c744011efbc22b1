// Setup the benchmarks share: contacts as the contacts repository writes them
// (ContactRepository.putNewContacts), and work spread over a few concurrent lanes.
import type { NewContact } from '../../shared/audiences/contacts/repository';
import type { Container } from '../../shared/runtime/container';

/** Contact `i` of a seeded audience: `reader{i}@example.com`, Ada Lovelace, with `data`. */
export function benchContact(c: Container, accountId: string, i: number, data: NewContact['data'], now: string): NewContact {
  return {
    id: c.ids.next('ctc'),
    account_id: accountId,
    email: `reader${i}@example.com`,
    first_name: 'Ada',
    last_name: 'Lovelace',
    data,
    unsubscribed: false,
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
