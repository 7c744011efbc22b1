// The approximate count of an account's contacts: one item in the account's partition, moved by
// every contact write and delete (and once per step by an import run), read to scale a dynamic
// list's estimate (shared/audiences/contacts/lists.ts countMatches).
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';

interface ContactCountItem extends ItemKey {
  entity: 'contact_count';
  count: number;
}

export class ContactCountRepository {
  constructor(private readonly store: Store) {}

  async moveContactCount(accountId: string, delta: number): Promise<void> {
    await this.store.update(keys.contactCount(accountId), { expression: 'SET entity = :entity ADD #count :delta', names: { '#count': 'count' }, values: { ':entity': 'contact_count', ':delta': delta } });
  }

  /**
   * Moves the count by `delta` once per step of a run named `mark` (an attribute on the count item
   * holds the last step counted): a repeat of a step, or of an earlier one, moves nothing.
   */
  async moveContactCountOnce(accountId: string, delta: number, mark: string, step: number): Promise<boolean> {
    return wrote(
      this.store.update(keys.contactCount(accountId), {
        expression: 'SET entity = :entity, #mark = :step ADD #count :delta',
        names: { '#count': 'count', '#mark': mark },
        values: { ':entity': 'contact_count', ':delta': delta, ':step': step },
        condition: 'attribute_not_exists(#mark) OR #mark < :step',
      }),
    );
  }

  /** Drops a finished run's mark from the count item. */
  async forgetCountMark(accountId: string, mark: string): Promise<void> {
    await wrote(this.store.update(keys.contactCount(accountId), { expression: 'REMOVE #mark', names: { '#mark': mark }, condition: 'attribute_exists(pk)' }));
  }

  async contactCount(accountId: string): Promise<number> {
    const item = await this.store.get<ContactCountItem>(keys.contactCount(accountId), false);
    return Math.max(0, item?.count ?? 0);
  }
}
