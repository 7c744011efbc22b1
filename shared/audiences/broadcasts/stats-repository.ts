// Storage of broadcast stats (shared/audiences/broadcasts/stats.ts owns the protocol): counter shards, small
// items of their own that the broadcast's events move, and one marker per counted message and type.
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import { writeCounterAdd } from '../../db/tally';

/** The event types a broadcast counts: the BroadcastStats fields that come from the timeline. */
export const countedTypes = ['sent', 'delivered', 'bounced', 'complained', 'opened', 'failed'] as const;
export type CountedType = (typeof countedTypes)[number];

/**
 * One counter shard of a broadcast: a count per counted type (absent until its first event) and
 * the tokens of the counts in flight (`pending`), each dropped once its marker is settled.
 */
export interface StatShardItem extends ItemKey, Partial<Record<CountedType, number>> {
  entity: 'broadcast_stat_shard';
  pending?: Set<string>;
}

/** A message's event type counted in its broadcast's stats, by the count whose token it holds. */
export interface StatMarkerItem extends ItemKey {
  entity: 'broadcast_stat_marker';
  message_id: string;
  type: CountedType;
  account_id: string;
  broadcast_id: string;
  token: string;
  created_at: string;
}

/** Where one count goes: a broadcast's shard. */
export interface ShardRef {
  accountId: string;
  broadcastId: string;
  shard: number;
}

const one = (token: string): Set<string> => new Set([token]);

export class BroadcastStatsRepository {
  constructor(private readonly store: Store) {}

  shardKey(ref: ShardRef): ItemKey {
    return keys.broadcastStatShard(ref.accountId, ref.broadcastId, ref.shard);
  }

  /** The shards that exist (a shard is written by its first event), in any order. */
  shards(accountId: string, broadcastId: string, count: number): Promise<StatShardItem[]> {
    return this.store.batchGet<StatShardItem>(Array.from({ length: count }, (_, shard) => keys.broadcastStatShard(accountId, broadcastId, shard)));
  }

  getShard(ref: ShardRef): Promise<StatShardItem | undefined> {
    return this.store.get<StatShardItem>(this.shardKey(ref));
  }

  marker(messageId: string, type: CountedType): Promise<StatMarkerItem | undefined> {
    return this.store.get<StatMarkerItem>(keys.broadcastStatMarker(messageId, type));
  }

  /** Counts one event of `type` and records the count's token, in one write; the shard as it is now. */
  begin(ref: ShardRef, type: CountedType, token: string): Promise<StatShardItem> {
    return this.store.update<StatShardItem>(this.shardKey(ref), {
      expression: 'SET entity = :entity ADD #type :one, pending :token',
      names: { '#type': type },
      values: { ':entity': 'broadcast_stat_shard', ':one': 1, ':token': one(token) },
    });
  }

  /** `n` events of `type` counted with no token (a count that stands by itself: countNewBroadcastEvent). */
  async addCount(ref: ShardRef, type: CountedType, n: number): Promise<void> {
    await writeCounterAdd(this.store, { key: this.shardKey(ref), set: { entity: 'broadcast_stat_shard' }, add: { [type]: n } });
  }

  /** False when the message's type has a marker already (another count holds it). */
  createMarker(marker: Omit<StatMarkerItem, keyof ItemKey | 'entity'>): Promise<boolean> {
    return wrote(this.store.create<StatMarkerItem>({ ...keys.broadcastStatMarker(marker.message_id, marker.type), entity: 'broadcast_stat_marker', ...marker }));
  }

  /** The count of this token stands: forgets the token (a repeat changes nothing). */
  async end(ref: ShardRef, token: string): Promise<void> {
    await this.store.update(this.shardKey(ref), { expression: 'DELETE pending :token', values: { ':token': one(token) } });
  }

  /** Takes back the count of this token and forgets it, only while the token is there: at most once. */
  undo(ref: ShardRef, type: CountedType, token: string): Promise<boolean> {
    return wrote(
      this.store.update(this.shardKey(ref), {
        expression: 'ADD #type :minus DELETE pending :token',
        condition: 'contains(pending, :tok)',
        names: { '#type': type },
        values: { ':minus': -1, ':token': one(token), ':tok': token },
      }),
    );
  }
}
