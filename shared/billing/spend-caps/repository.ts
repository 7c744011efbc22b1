// Spend caps in the store: one item per account cap (no key) and per key cap, in the account's
// partition. The soft alert's mark (`soft_alert_period`) rides on the cap: set by one conditional
// write per period, so one alert per cap and period however many sends race past it.
import { allItems } from '../../db/all-items';
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { orConflict, wrote, type Store } from '../../db/store';
import { NotFoundError } from '../../errors';

export interface SpendCapItem extends ItemKey {
  entity: 'spend_cap';
  id: string;
  account_id: string;
  key_id: string | null;
  soft_limit_micros: number | null;
  hard_limit_micros: number | null;
  /** The period (YYYY-MM) whose soft alert was sent. */
  soft_alert_period?: string;
  created_at: string;
  updated_at: string;
}

export interface CapChange {
  id: string;
  keyId: string | null;
  /** undefined leaves the limit as it is (null on a new cap); null clears it. */
  soft?: number | null;
  hard?: number | null;
  now: string;
}

export class SpendCapRepository {
  constructor(private readonly store: Store) {}

  async upsert(accountId: string, change: CapChange): Promise<SpendCapItem> {
    const limit = (attr: string, value: number | null | undefined) =>
      value === undefined ? `${attr} = if_not_exists(${attr}, :null)` : `${attr} = :${attr}`;
    const values: Record<string, unknown> = { ':entity': 'spend_cap', ':id': change.id, ':account': accountId, ':key': change.keyId, ':now': change.now };
    if (change.soft === undefined || change.hard === undefined) values[':null'] = null;
    if (change.soft !== undefined) values[':soft_limit_micros'] = change.soft;
    if (change.hard !== undefined) values[':hard_limit_micros'] = change.hard;
    return this.store.update<SpendCapItem>(keys.spendCap(accountId, change.keyId), {
      expression: [
        'SET entity = :entity, id = if_not_exists(id, :id), account_id = :account, key_id = :key',
        'created_at = if_not_exists(created_at, :now), updated_at = :now',
        limit('soft_limit_micros', change.soft),
        limit('hard_limit_micros', change.hard),
      ].join(', '),
      values,
    });
  }

  /** The account cap and every key cap, account cap first. */
  list(accountId: string): Promise<SpendCapItem[]> {
    return allItems<SpendCapItem>(this.store, keyQueries.accountItems(accountId, keys.spendCapPrefix));
  }

  /**
   * The caps that hold a send by this key: the account's and the key's, where set. Eventually
   * consistent (half the units; two keys not found are a unit, not two): a cap set or changed a
   * moment before the send races it either way (docs/api-decisions.md, "the acceptance reads").
   */
  async forSend(accountId: string, keyId: string): Promise<{ account?: SpendCapItem; key?: SpendCapItem }> {
    const items = await this.store.batchGet<SpendCapItem>([keys.spendCap(accountId, null), keys.spendCap(accountId, keyId)], { consistent: false });
    return { account: items.find((i) => i.key_id === null), key: items.find((i) => i.key_id === keyId) };
  }

  async remove(accountId: string, keyId: string | null): Promise<void> {
    await orConflict(this.store.delete(keys.spendCap(accountId, keyId), { expression: 'attribute_exists(pk)' }), () => new NotFoundError('spend cap'));
  }

  /** Marks the period's soft alert sent; false when it already was (or the cap is gone). */
  markSoftAlert(accountId: string, keyId: string | null, period: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.spendCap(accountId, keyId), {
        expression: 'SET soft_alert_period = :period',
        condition: 'attribute_exists(pk) AND (attribute_not_exists(soft_alert_period) OR soft_alert_period <> :period)',
        values: { ':period': period },
      }),
    );
  }

  /** Takes the mark back when the alert could not be handed on, so a later send tries again. */
  async unmarkSoftAlert(accountId: string, keyId: string | null, period: string): Promise<void> {
    await wrote(
      this.store.update(keys.spendCap(accountId, keyId), { expression: 'REMOVE soft_alert_period', condition: 'soft_alert_period = :period', values: { ':period': period } }),
    );
  }
}
