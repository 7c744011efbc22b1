// Suppressions in the store: one item per (account, channel, normalized recipient), so checks are
// single reads and writes are upserts; the by-filter index lists them most recently changed first.
import type { Channel } from '../../accounts/schemas';
import { keys, type ItemKey, keyQueries } from '../../db/keys';
import { type IndexKey } from '../../db/schema';
import { wrote, type Store } from '../../db/store';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import type { SuppressionState, SuppressionView } from './schemas';

export interface SuppressionItem extends ItemKey, IndexKey {
  entity: 'suppression';
  account_id: string;
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
  created_at: string;
  updated_at: string;
}

/** What a suppression says; the recipient is already normalized for its channel. */
export interface SuppressionEntry {
  channel: Channel;
  recipient: string;
  state: SuppressionState;
  reason: string;
}

/** What a list page holds: the by-filter index projects only what the list shows. */
export type ListedSuppression = Pick<SuppressionItem, 'channel' | 'recipient' | 'state' | 'reason' | 'updated_at'>;

export const toSuppressionView = (item: ListedSuppression): SuppressionView => ({
  channel: item.channel,
  recipient: item.recipient,
  state: item.state,
  reason: item.reason,
  updated_at: item.updated_at,
});

function toItem(accountId: string, entry: SuppressionEntry, now: string): SuppressionItem {
  return {
    ...keys.suppression(accountId, entry.channel, entry.recipient),
    ...keys.suppressionListEntry(accountId, now, entry.channel, entry.recipient),
    entity: 'suppression',
    account_id: accountId,
    channel: entry.channel,
    recipient: entry.recipient,
    state: entry.state,
    reason: entry.reason,
    created_at: now,
    updated_at: now,
  };
}

export class SuppressionRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, channel: Channel, recipient: string): Promise<SuppressionItem | undefined> {
    return this.store.get<SuppressionItem>(keys.suppression(accountId, channel, recipient));
  }

  /** Which of these recipients are stored, in one batched read. */
  async storedAmong(accountId: string, channel: Channel, recipients: readonly string[], consistent = true): Promise<Set<string>> {
    const found = await this.store.batchGet<SuppressionItem>([...new Set(recipients)].map((r) => keys.suppression(accountId, channel, r)), { consistent });
    return new Set(found.map((i) => i.recipient));
  }

  /** Adds or refreshes one suppression, keeping when the recipient was first suppressed. */
  upsert(accountId: string, entry: SuppressionEntry, now: string): Promise<SuppressionItem> {
    const item = toItem(accountId, entry, now);
    return this.store.update<SuppressionItem>(keys.suppression(accountId, item.channel, item.recipient), {
      expression:
        'SET entity = :entity, account_id = :account, channel = :channel, recipient = :recipient, #state = :state, reason = :reason, updated_at = :now, created_at = if_not_exists(created_at, :now), gsi2pk = :gpk, gsi2sk = :gsk',
      names: { '#state': 'state' },
      values: {
        ':entity': item.entity,
        ':account': item.account_id,
        ':channel': item.channel,
        ':recipient': item.recipient,
        ':state': item.state,
        ':reason': item.reason,
        ':now': item.updated_at,
        ':gpk': item.gsi2pk,
        ':gsk': item.gsi2sk,
      },
    });
  }

  /**
   * Writes many suppressions in batches, each replacing what was stored (created_at included).
   * A batch may not name a key twice: the caller passes each (channel, recipient) once.
   */
  putMany(accountId: string, entries: readonly SuppressionEntry[], now: string): Promise<void> {
    return this.store.batchPut(entries.map((entry) => toItem(accountId, entry, now)));
  }

  /** false when nothing was stored for this recipient */
  remove(accountId: string, channel: Channel, recipient: string): Promise<boolean> {
    return wrote(this.store.delete(keys.suppression(accountId, channel, recipient), { expression: 'attribute_exists(pk)' }));
  }

  /** An account's suppressions, most recently changed first, of one channel or all. */
  list(accountId: string, channel: Channel | undefined, page: PageRequest): Promise<Page<ListedSuppression>> {
    const byFilter = keyQueries.byFilter(keys.suppressionListPartition(accountId));
    return queryPage<ListedSuppression>(
      this.store,
      {
        ...byFilter,
        values: { ...byFilter.values, ...(channel ? { ':channel': channel } : {}) },
        ...(channel ? { filter: '#channel = :channel', names: { '#channel': 'channel' } } : {}),
      },
      page,
    );
  }
}
