// Storage of broadcasts: the broadcast (status, running counts, walk progress: small, since every
// chunk count rewrites it), its content items (one per version), and its recipient list in chunks.
import { keys, type ItemKey } from '../../db/keys';
import { table } from '../../db/schema';
import { wrote, type Store } from '../../db/store';
import { listAccountItems, type Page, type PageRequest } from '../../pagination';
import type { BroadcastContent, BroadcastContentItem, BroadcastItem, BroadcastStatus, RecipientChunkItem } from './model';

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

  /** The recipient list in slices, stored under chunk numbers base, base + 1… (with each recipient's data for a template broadcast). */
  putChunks(accountId: string, broadcastId: string, chunks: ReadonlyArray<Pick<RecipientChunkItem, 'recipients' | 'data'>>, base = 0): Promise<void> {
    return this.store.batchPut(
      chunks.map(
        ({ recipients, data }, i): RecipientChunkItem => ({
          ...keys.broadcastRecipients(broadcastId, base + i),
          entity: 'broadcast_recipients',
          broadcast_id: broadcastId,
          account_id: accountId,
          chunk: base + i,
          recipients,
          ...(data ? { data } : {}),
        }),
      ),
    );
  }

  /** One page of a list audience as a chunk; false when the chunk exists already (an earlier run of the page wrote it). */
  createChunk(item: Omit<RecipientChunkItem, keyof ItemKey | 'entity'>): Promise<boolean> {
    return wrote(this.store.create<RecipientChunkItem>({ ...keys.broadcastRecipients(item.broadcast_id, item.chunk), entity: 'broadcast_recipients', ...item }));
  }

  getContent(broadcastId: string, version: number): Promise<BroadcastContentItem | undefined> {
    return this.store.get<BroadcastContentItem>(keys.broadcastContent(broadcastId, version));
  }

  async deleteContent(broadcastId: string, version: number): Promise<void> {
    await this.store.delete(keys.broadcastContent(broadcastId, version));
  }

  /**
   * Written before the broadcast item, so a stored broadcast has its content; an edit of a draft
   * writes the next version and then moves the draft to it, so a broadcast that started meanwhile
   * keeps the content it started with.
   */
  putContent(accountId: string, broadcastId: string, version: number, content: BroadcastContent): Promise<void> {
    const defined = Object.fromEntries(Object.entries(content).filter(([, v]) => v !== undefined));
    return this.store.put<BroadcastContentItem>({ ...keys.broadcastContent(broadcastId, version), entity: 'broadcast_content', broadcast_id: broadcastId, account_id: accountId, ...defined });
  }

  /**
   * An edit of a draft, while it is still the draft that was read (updated_at): the fields given
   * replace the stored ones. Undefined when it changed meanwhile or is no longer a draft.
   */
  async updateDraft(accountId: string, broadcastId: string, seenUpdatedAt: string, fields: Partial<BroadcastItem>): Promise<BroadcastItem | undefined> {
    const entries = Object.entries(fields).filter(([, v]) => v !== undefined);
    const names: Record<string, string> = { '#status': 'status', '#seen': 'updated_at' };
    const values: Record<string, unknown> = { ':draft': 'draft', ':seen': seenUpdatedAt };
    const sets = entries.map(([k, v], i) => {
      names[`#f${i}`] = k;
      values[`:v${i}`] = v;
      return `#f${i} = :v${i}`;
    });
    let updated: BroadcastItem | undefined;
    const ok = await wrote(
      this.store
        .update<BroadcastItem>(keys.broadcast(accountId, broadcastId), {
          expression: `SET ${sets.join(', ')}`,
          condition: '#status = :draft AND #seen = :seen',
          names,
          values,
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /**
   * draft or scheduled (one of `from`) → sending, naming the start that moved it; the broadcast
   * after, or undefined when its status was none of `from`.
   */
  async start(accountId: string, broadcastId: string, from: readonly BroadcastStatus[], token: string, now: string, clearSchedule: boolean): Promise<BroadcastItem | undefined> {
    const values: Record<string, unknown> = { ':sending': 'sending', ':token': token, ':now': now, ':false': false };
    from.forEach((status, i) => (values[`:from${i}`] = status));
    let updated: BroadcastItem | undefined;
    const ok = await wrote(
      this.store
        .update<BroadcastItem>(keys.broadcast(accountId, broadcastId), {
          expression: `SET #status = :sending, start_token = :token, handed_on = :false, started_at = :now, updated_at = :now${clearSchedule ? ', scheduled_at = :null' : ''}`,
          condition: `#status IN (${from.map((_, i) => `:from${i}`).join(', ')})`,
          names: { '#status': 'status' },
          values: clearSchedule ? { ...values, ':null': null } : values,
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /** The start's hand-on is done (its jobs are queued); false when another start owns the broadcast or it stopped sending. */
  handedOn(accountId: string, broadcastId: string, token: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.broadcast(accountId, broadcastId), {
        expression: 'SET handed_on = :true',
        condition: '#status = :sending AND start_token = :token',
        names: { '#status': 'status' },
        values: { ':true': true, ':sending': 'sending', ':token': token },
      }),
    );
  }

  /** draft or scheduled (one of `from`) → cancelled; the broadcast after, or undefined when its status was none of them. */
  async cancel(accountId: string, broadcastId: string, from: BroadcastStatus, now: string): Promise<BroadcastItem | undefined> {
    let updated: BroadcastItem | undefined;
    const ok = await wrote(
      this.store
        .update<BroadcastItem>(keys.broadcast(accountId, broadcastId), {
          expression: 'SET #status = :cancelled, updated_at = :now, completed_at = :now',
          condition: '#status = :from',
          names: { '#status': 'status' },
          values: { ':cancelled': 'cancelled', ':from': from, ':now': now },
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
  }

  /** sending → failed with why; false when it is no longer sending. */
  fail(accountId: string, broadcastId: string, reason: string, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.broadcast(accountId, broadcastId), {
        expression: 'SET #status = :failed, failure_reason = :reason, updated_at = :now, completed_at = :now',
        condition: '#status = :sending',
        names: { '#status': 'status' },
        values: { ':failed': 'failed', ':reason': reason, ':sending': 'sending', ':now': now },
      }),
    );
  }

  /**
   * Records one walked page of a list audience, once: the page's counts, whether it made a chunk,
   * and where the next page starts (null: the walk is done). Conditional on the page being the
   * next one, so a re-run of the page never counts it twice. The broadcast after, or undefined.
   */
  async recordPage(
    accountId: string,
    broadcastId: string,
    page: number,
    counts: { recipients: number; unsubscribed: number; chunks: number },
    next: Record<string, unknown> | null,
    now: string,
  ): Promise<BroadcastItem | undefined> {
    let updated: BroadcastItem | undefined;
    const ok = await wrote(
      this.store
        .update<BroadcastItem>(keys.broadcast(accountId, broadcastId), {
          expression:
            'SET pages_walked = :next_page, walk_cursor = :cursor, walk_done = :done, updated_at = :now ADD total_recipients :total, skipped_count :unsub, chunk_count :chunks',
          condition: page === 0 ? '#status = :sending AND (attribute_not_exists(pages_walked) OR pages_walked = :page)' : '#status = :sending AND pages_walked = :page',
          names: { '#status': 'status' },
          values: {
            ':next_page': page + 1,
            ':page': page,
            ':cursor': next,
            ':done': next === null,
            ':now': now,
            ':total': counts.recipients + counts.unsubscribed,
            ':unsub': counts.unsubscribed,
            ':chunks': counts.chunks,
            ':sending': 'sending',
          },
        })
        .then((item) => void (updated = item)),
    );
    return ok ? updated : undefined;
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
