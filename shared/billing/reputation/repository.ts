// Reputation counters in the store: one item per account and UTC hour, bumped with ADD so
// concurrent writers never lose an increment, and a deployment-wide board entry per account
// judged, for the staff's view. Buckets expire by `ttl` once past any window.
import { keyQueries, keys, type ItemKey } from '../../db/keys';
import { table } from '../../db/schema';
import type { Store } from '../../db/store';
import type { CounterAdd } from '../../db/tally';
import type { ReputationState, Window } from './policy';
import { allItems } from '../../db/all-items';

export type Counter = 'sends' | 'bounces' | 'complaints';

interface BucketItem extends ItemKey {
  entity: 'reputation_bucket';
  account_id: string;
  hour: string;
  sends?: number;
  bounces?: number;
  complaints?: number;
}

export interface BoardItem extends ItemKey {
  entity: 'reputation_board';
  account_id: string;
  state: ReputationState;
  sends: number;
  bounces: number;
  complaints: number;
  bounce_rate: number;
  complaint_rate: number;
  judged_at: string;
}

export type BoardEntry = Omit<BoardItem, keyof ItemKey | 'entity'>;

export class ReputationRepository {
  constructor(private readonly store: Store) {}

  /** One more of `counter` in the hour's bucket, as a counter add (written now or at a batch's end: shared/db/tally.ts). */
  static countAdd(accountId: string, hour: string, counter: Counter, expiresAt: number): CounterAdd {
    return { key: keys.reputationBucket(accountId, hour), set: { entity: 'reputation_bucket', account_id: accountId, hour, [table.ttlAttribute]: expiresAt }, add: { [counter]: 1 } };
  }

  async count(accountId: string, hour: string, counter: Counter, expiresAt: number): Promise<void> {
    await this.store.update(keys.reputationBucket(accountId, hour), {
      expression: 'SET entity = :entity, account_id = :account, #hour = :hour, #expires = :ttl ADD #counter :one',
      names: { '#hour': 'hour', '#expires': table.ttlAttribute, '#counter': counter },
      values: { ':entity': 'reputation_bucket', ':account': accountId, ':hour': hour, ':ttl': expiresAt, ':one': 1 },
    });
  }

  /** The sum of the buckets from one hour to another, both inclusive. */
  async window(accountId: string, fromHour: string, toHour: string): Promise<Window> {
    const sum: Window = { sends: 0, bounces: 0, complaints: 0 };
    for (const b of await allItems<BucketItem>(this.store, keyQueries.reputationBuckets(accountId, fromHour, toHour))) {
      sum.sends += Number(b.sends ?? 0);
      sum.bounces += Number(b.bounces ?? 0);
      sum.complaints += Number(b.complaints ?? 0);
    }
    return sum;
  }

  async post(entry: BoardEntry): Promise<void> {
    await this.store.put({ ...keys.reputationBoard(entry.account_id), entity: 'reputation_board', ...entry });
  }

  /** Every board entry (one per account ever judged). */
  async board(): Promise<BoardEntry[]> {
    const items = await allItems<BoardItem>(this.store, keyQueries.partition(keys.reputationBoardPartition));
    return items.map(({ pk: _pk, sk: _sk, entity: _e, ...entry }) => entry);
  }
}
