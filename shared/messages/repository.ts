// Storage of the messages area: a message and its timeline (one partition, so one query reads
// both), the reference from the provider's message id back to ours, the account's filtered message
// list, and the idempotency records that claim each send.
import type { Channel } from '../accounts/service';
import { sha256Hex } from '../crypto';
import { keys, table, type IndexKey, type ItemKey, keyQueries } from '../db/keys';
import { wrote, type Store } from '../db/store';
import { queryPage, type Page, type PageRequest } from '../pagination';
import { LEASE_MS, type IdempotencyItem, type NewIdempotencyRecord } from './idempotency';
import { providerRefItem, type EventType, type MessageItem, type MessageSummary, type ProviderRefItem, type TimelineEvent, type TimelineEventItem } from './model';

export type NewMessage = Omit<MessageItem, keyof ItemKey | keyof IndexKey | 'entity'>;

/** What the by-filter index holds of a message: enough for the list, never the body. */
export type MessageListEntry = ItemKey & IndexKey & Pick<MessageItem, 'entity' | keyof MessageSummary>;

export interface MessageListFilters {
  channel?: Channel;
  status?: string;
  /** Inclusive bounds on the message id, which sorts by creation time: the range read. */
  ids: { low: string; high: string };
  /** Inclusive bounds on created_at (ISO strings as stored): what is listed of that range. */
  createdAt?: { from?: string; to?: string };
}

export class MessageRepository {
  constructor(private readonly store: Store) {}

  get(messageId: string): Promise<MessageItem | undefined> {
    return this.store.get<MessageItem>(keys.message(messageId));
  }

  /** The message (if stored) and every event on its timeline, in storage order. */
  async getWithTimeline(messageId: string): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
    const events: TimelineEventItem[] = [];
    let message: MessageItem | undefined;
    let startKey: Record<string, unknown> | undefined;
    do {
      const page = await this.store.query<MessageItem | TimelineEventItem>({
        ...keyQueries.partition(keys.messagePartition(messageId)),
        ascending: true,
        startKey,
      });
      for (const item of page.items) {
        if (item.entity === 'message') message = item;
        else if (item.entity === 'message_event') events.push(item);
      }
      startKey = page.lastKey;
    } while (startKey);
    return { message, events };
  }

  /** Unconditional: each message id was claimed through its idempotency record first. */
  putAll(messages: readonly NewMessage[]): Promise<void> {
    return this.store.batchPut(
      messages.map((m): MessageItem => ({ ...keys.message(m.id), ...keys.messageListEntry(m.account_id, m.id), entity: 'message', ...m })),
    );
  }

  /** An account's messages, newest first, inside an id range and optionally of one channel or status. */
  list(accountId: string, filters: MessageListFilters, page: PageRequest): Promise<Page<MessageListEntry>> {
    const index = table.indexes.byFilter;
    const conditions: string[] = [];
    const names: Record<string, string> = { '#pk': index.partitionKey, '#sk': index.sortKey };
    const values: Record<string, unknown> = { ':pk': keys.messageListPartition(accountId), ':low': filters.ids.low, ':high': filters.ids.high };
    if (filters.channel) {
      conditions.push('channel = :channel');
      values[':channel'] = filters.channel;
    }
    if (filters.status) {
      conditions.push('#status = :status');
      names['#status'] = 'status';
      values[':status'] = filters.status;
    }
    if (filters.createdAt?.from !== undefined) {
      conditions.push('created_at >= :from');
      values[':from'] = filters.createdAt.from;
    }
    if (filters.createdAt?.to !== undefined) {
      conditions.push('created_at <= :to');
      values[':to'] = filters.createdAt.to;
    }
    return queryPage<MessageListEntry>(
      this.store,
      { index: index.name, keyCondition: '#pk = :pk AND #sk BETWEEN :low AND :high', names, values, filter: conditions.join(' AND ') || undefined },
      page,
    );
  }

  /** Takes a queued or scheduled message for the provider; false when it was canceled, sent or decided meanwhile. */
  markDispatched(messageId: string, now: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: 'SET dispatched_at = :now',
        condition: '#status IN (:queued, :scheduled) AND attribute_not_exists(provider_message_id)',
        names: { '#status': 'status' },
        values: { ':now': now, ':queued': 'queued', ':scheduled': 'scheduled' },
      }),
    );
  }

  /** Cancels the account's scheduled message unless it was dispatched; false for anything else. */
  /** `testModeOnly`: a test-mode caller may cancel test messages only (a live one is not found). */
  cancelScheduled(accountId: string, messageId: string, now: string, testModeOnly: boolean): Promise<boolean> {
    const condition = 'account_id = :account AND #status = :scheduled AND attribute_not_exists(dispatched_at)';
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: 'SET #status = :canceled, updated_at = :now',
        condition: testModeOnly ? `${condition} AND test_mode = :test` : condition,
        names: { '#status': 'status' },
        values: { ':canceled': 'canceled', ':scheduled': 'scheduled', ':account': accountId, ':now': now, ...(testModeOnly ? { ':test': true } : {}) },
      }),
    );
  }

  /**
   * Moves the status to `status` as of `at`, unless an event newer than `at` already set it (or the
   * message is gone): false then.
   */
  moveStatus(messageId: string, change: { status: EventType; at: string; now: string; providerMessageId?: string }): Promise<boolean> {
    const set = ['#status = :status', 'status_at = :at', 'updated_at = :now'];
    const values: Record<string, unknown> = { ':status': change.status, ':at': change.at, ':now': change.now };
    if (change.providerMessageId) {
      set.push('provider_message_id = :pmid');
      values[':pmid'] = change.providerMessageId;
    }
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: `SET ${set.join(', ')}`,
        condition: 'attribute_exists(#pk) AND (attribute_not_exists(status_at) OR status_at <= :at)',
        names: { '#pk': table.partitionKey, '#status': 'status' },
        values,
      }),
    );
  }

  /** Throws the store's failed-condition error when the message does not exist. */
  async setProviderMessageId(messageId: string, providerMessageId: string): Promise<void> {
    await this.store.update(keys.message(messageId), {
      expression: 'SET provider_message_id = :pmid',
      condition: 'attribute_exists(#pk)',
      names: { '#pk': table.partitionKey },
      values: { ':pmid': providerMessageId },
    });
  }

  /** False when the timeline already holds an event with this provider event id. */
  addEvent(event: TimelineEvent): Promise<boolean> {
    return wrote(this.store.create<TimelineEventItem>({ ...keys.messageEvent(event.message_id, event.provider_event_id), entity: 'message_event', ...event }));
  }

  getEvent(messageId: string, providerEventId: string): Promise<TimelineEventItem | undefined> {
    return this.store.get<TimelineEventItem>(keys.messageEvent(messageId, providerEventId));
  }

  async putProviderRef(providerMessageId: string, accountId: string, messageId: string): Promise<void> {
    await this.store.put(providerRefItem(providerMessageId, accountId, messageId));
  }

  getProviderRef(providerMessageId: string): Promise<ProviderRefItem | undefined> {
    return this.store.get<ProviderRefItem>(keys.providerRef(providerMessageId));
  }
}

export type Claim = { kind: 'new'; item: IdempotencyItem } | { kind: 'existing'; item: IdempotencyItem };

/** The key is stored as a digest, which bounds the item key's size whatever the client sent. */
const idempotencyKeyOf = (accountId: string, idempotencyKey: string): ItemKey => keys.idempotency(accountId, sha256Hex(idempotencyKey));

export class IdempotencyRepository {
  constructor(private readonly store: Store) {}

  get(accountId: string, idempotencyKey: string): Promise<IdempotencyItem | undefined> {
    return this.store.get<IdempotencyItem>(idempotencyKeyOf(accountId, idempotencyKey));
  }

  /** The records that exist among these keys, in no particular order. */
  getMany(accountId: string, idempotencyKeys: readonly string[]): Promise<IdempotencyItem[]> {
    return this.store.batchGet<IdempotencyItem>(idempotencyKeys.map((k) => idempotencyKeyOf(accountId, k)));
  }

  /**
   * Claims the key for this send: `new` when this request holds the claim (a fresh record, or a
   * pending one whose lease ran out, taken over under its own message id), `existing` otherwise.
   */
  async claim(record: NewIdempotencyRecord, nowMs: number): Promise<Claim> {
    const item: IdempotencyItem = { ...idempotencyKeyOf(record.account_id, record.idempotency_key), entity: 'idempotency', ...record };
    if (await wrote(this.store.create(item))) return { kind: 'new', item };
    const existing = await this.get(record.account_id, record.idempotency_key);
    if (!existing) return this.claim(record, nowMs); // removed in between: try again
    if (existing.body_digest !== record.body_digest || existing.state === 'done' || existing.lease_until > nowMs) {
      return { kind: 'existing', item: existing };
    }
    // A pending claim whose request died: this request finishes its work.
    const takeOver = this.store.update<IdempotencyItem>(idempotencyKeyOf(existing.account_id, existing.idempotency_key), {
      expression: 'SET lease_until = :lease',
      condition: '#state = :pending AND lease_until = :old',
      names: { '#state': 'state' },
      values: { ':lease': nowMs + LEASE_MS, ':pending': 'pending', ':old': existing.lease_until },
    });
    return (await wrote(takeOver)) ? { kind: 'new', item: await takeOver } : { kind: 'existing', item: existing };
  }

  /** The sends these records claimed are stored and handed on: a retry now only replays. */
  markDone(records: readonly IdempotencyItem[]): Promise<void> {
    return this.store.batchPut(records.map((r) => ({ ...r, state: 'done' as const })));
  }
}
