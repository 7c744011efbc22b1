// A rate-limit subject's slots in the store (see shared/rate-limit/service.ts): each remembers
// the time of the admission it last allowed, and expires an hour later.
import { keys, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';

export interface RateSlotItem extends ItemKey {
  entity: 'rate_slot';
  /** Epoch milliseconds of the admission this slot last allowed. */
  at: number;
  expires_at: number;
}

const SLOT_TTL_SECONDS = 3600;

export class RateSlotRepository {
  constructor(private readonly store: Store) {}

  /**
   * When each of the subject's `count` slots last admitted, by slot number; a slot never claimed
   * is absent. An eventually consistent read costs half and can only miss a recent claim.
   */
  async lastAdmissions(subject: string, count: number, consistent: boolean): Promise<Map<number, number>> {
    const slotKeys = Array.from({ length: count }, (_, slot) => keys.rateSlot(subject, slot));
    const found = await this.store.batchGet<RateSlotItem>(slotKeys, { consistent });
    const atBySortKey = new Map(found.map((item) => [item.sk, item.at]));
    const admissions = new Map<number, number>();
    slotKeys.forEach((key, slot) => {
      const at = atBySortKey.get(key.sk);
      if (at !== undefined) admissions.set(slot, at);
    });
    return admissions;
  }

  /** false when another request claimed the slot after `cutoff` (its last admission is too recent). */
  claim(subject: string, slot: number, now: number, cutoff: number): Promise<boolean> {
    const item: RateSlotItem = { ...keys.rateSlot(subject, slot), entity: 'rate_slot', at: now, expires_at: Math.ceil(now / 1000) + SLOT_TTL_SECONDS };
    return wrote(
      this.store.put(item, { expression: 'attribute_not_exists(pk) OR #at <= :cutoff', names: { '#at': 'at' }, values: { ':cutoff': cutoff } }),
    );
  }
}
