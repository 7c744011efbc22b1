// Storage of broadcasts: the broadcast with its running counts, and its recipient list in chunks.
import { keys, table, type ItemKey } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { listAccountItems, type Page, type PageRequest } from '../pagination';
import type { BroadcastItem, RecipientChunkItem } from './model';

export type NewBroadcast = Omit<BroadcastItem, keyof ItemKey | 'entity'>;

export interface ChunkCounts {
  sent: number;
  failed: number;
  skipped: number;
}

export class BroadcastRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, broadcastId: string): Promise<BroadcastItem | undefined> {
    return this.store.get<BroadcastItem>(keys.broadcast(accountId, broadcastId));
  }

  /** False when a broadcast with this id exists already. */
  create(broadcast: NewBroadcast): Promise<boolean> {
    return wrote(this.store.create<BroadcastItem>({ ...keys.broadcast(broadcast.account_id, broadcast.id), entity: 'broadcast', ...broadcast }));
  }

  /** An account's broadcasts, newest first. */
  list(accountId: string, page: PageRequest): Promise<Page<BroadcastItem>> {
    return listAccountItems<BroadcastItem, BroadcastItem>(
      { store: this.store, cursorSecret: page.secret },
      accountId,
      { prefix: keys.broadcastPrefix, collection: page.scope.collection },
      page,
      (item) => item,
    );
  }

  /** The recipient list in slices, stored under chunk numbers 0, 1, 2… (with each recipient's data for a template broadcast). */
  putChunks(accountId: string, broadcastId: string, chunks: ReadonlyArray<Pick<RecipientChunkItem, 'recipients' | 'data'>>): Promise<void> {
    return this.store.batchPut(
      chunks.map(
        ({ recipients, data }, chunk): RecipientChunkItem => ({
          ...keys.broadcastRecipients(broadcastId, chunk),
          entity: 'broadcast_recipients',
          broadcast_id: broadcastId,
          account_id: accountId,
          chunk,
          recipients,
          ...(data ? { data } : {}),
        }),
      ),
    );
  }

  getChunk(broadcastId: string, chunk: number): Promise<RecipientChunkItem | undefined> {
    return this.store.get<RecipientChunkItem>(keys.broadcastRecipients(broadcastId, chunk));
  }

  /**
   * Adds one chunk's counts and marks the chunk counted, in one conditional write: the broadcast
   * as it is now, or undefined when the chunk was counted already (or the broadcast is gone).
   */
  async countChunk(accountId: string, broadcastId: string, chunk: number, counts: ChunkCounts, now: string): Promise<BroadcastItem | undefined> {
    const write = this.store.update<BroadcastItem>(keys.broadcast(accountId, broadcastId), {
      expression: 'ADD sent_count :sent, failed_count :failed, skipped_count :skipped, chunks_done :chunks SET updated_at = :now',
      condition: 'attribute_exists(#pk) AND NOT contains(chunks_done, :chunk)',
      names: { '#pk': table.partitionKey },
      values: {
        ':sent': counts.sent,
        ':failed': counts.failed,
        ':skipped': counts.skipped,
        ':chunks': new Set([chunk]),
        ':chunk': chunk,
        ':now': now,
      },
    });
    return (await wrote(write)) ? await write : undefined;
  }

  /** sending → its final status; false when it is no longer sending (another chunk finished it). */
  finish(accountId: string, broadcastId: string, status: 'sent' | 'failed', now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.broadcast(accountId, broadcastId), {
        expression: 'SET #status = :final, updated_at = :now, completed_at = :now',
        condition: '#status = :sending',
        names: { '#status': 'status' },
        values: { ':final': status, ':now': now, ':sending': 'sending' },
      }),
    );
  }
}
