// Storage of the messages area: a message and its timeline (one partition, so one query reads
// both), the reference from the provider's message id back to ours, the account's filtered message
// list, and the outbox of messages not yet taken by the send worker.
import type { Channel } from '../../accounts/service';
import { keys, type ItemKey, keyQueries, OUTBOX_SHARDS } from '../../db/keys';
import { table, type MessageListKey } from '../../db/schema';
import { wrote, type Store } from '../../db/store';
import { queryPage, type Page, type PageRequest } from '../../pagination';
import { FOLDED_TYPES, timelineOf, toFolded, type EventType, type FoldedType, type MessageContentItem, type MessageItem, type MessageStatus, type TimelineEvent, type TimelineEventItem } from './model';
import { storedItemBytes } from '../../db/item-size';
import { allItems, eachPage } from '../../db/all-items';
import type { LegacyClaim } from './legacy-claims';

/** The outbox entry's attributes (the by-lookup index's keys), named in expressions. */
const OUTBOX_ATTRIBUTES = { '#gpk': table.indexes.byLookup.partitionKey, '#gsk': table.indexes.byLookup.sortKey };

export type NewMessage = Omit<MessageItem, keyof ItemKey | keyof MessageListKey | 'entity'>;

/** What the stored message item adds to a NewMessage (its keys, index attributes and entity), in DynamoDB bytes. */
export const messageKeyBytes = (m: Pick<NewMessage, 'id' | 'account_id' | 'created_at' | 'accepted_as'>): number =>
  storedItemBytes({
    ...keys.message(m.id),
    ...keys.messageListEntry(m.account_id, m.id, Date.parse(m.created_at)),
    ...(m.accepted_as === 'suppressed' ? keys.messageOutboxEntry(m.id, Date.parse(m.created_at)) : {}),
    entity: 'message',
  });

/** The stored message item of a new message, in the outbox until `outboxDueMs` when given. */
const messageItem = (m: NewMessage, outboxDueMs?: number): MessageItem => ({
  ...keys.message(m.id),
  ...keys.messageListEntry(m.account_id, m.id, m.body_digest === undefined ? undefined : Date.parse(m.created_at)),
  ...(outboxDueMs === undefined ? {} : keys.messageOutboxEntry(m.id, outboxDueMs)),
  entity: 'message',
  ...m,
});

/** What the by-message index holds of a message: its keys and what its filters read. */
type MessageListEntry = ItemKey & MessageListKey & Pick<MessageItem, 'channel' | 'created_at'>;

export interface MessageListFilters {
  channel?: Channel;
  status?: string;
  /** Inclusive bounds on the message id, which sorts by creation time: the range read. */
  ids: { low: string; high: string };
  /** Inclusive bounds on created_at (ISO strings as stored): what is listed of that range. */
  createdAt?: { from?: string; to?: string };
}

/** A status move (MessageRepository.moveStatus). */
export interface StatusChange {
  status: EventType;
  at: string;
  now: string;
  providerMessageId?: string;
  onlyFrom?: readonly MessageStatus[];
  alwaysFrom?: readonly MessageStatus[];
}

/** A status move's SET clauses and its condition (without the message's existence), with their names and values. */
function statusMove(change: StatusChange): { set: string[]; condition: string; names: Record<string, string>; values: Record<string, unknown> } {
  const set = ['#status = :status', 'status_at = :at', 'updated_at = :now'];
  const values: Record<string, unknown> = { ':status': change.status, ':at': change.at, ':now': change.now };
  const listed = (prefix: string, statuses: readonly MessageStatus[] = []): string[] =>
    statuses.map((status, i) => {
      values[`:${prefix}${i}`] = status;
      return `:${prefix}${i}`;
    });
  const from = listed('from', change.onlyFrom);
  const always = listed('always', change.alwaysFrom);
  if (change.providerMessageId) {
    set.push('provider_message_id = :pmid');
    values[':pmid'] = change.providerMessageId;
  }
  const newer = `(attribute_not_exists(status_at) OR status_at <= :at${always.length > 0 ? ` OR #status IN (${always.join(', ')})` : ''})`;
  return { set, condition: from.length > 0 ? `${newer} AND #status IN (${from.join(', ')})` : newer, names: { '#status': 'status' }, values };
}

export class MessageRepository {
  constructor(private readonly store: Store) {}

  get(messageId: string, consistent = true): Promise<MessageItem | undefined> {
    return this.store.get<MessageItem>(keys.message(messageId), consistent);
  }

  /** The stored messages among these ids, by id. */
  async getMany(messageIds: readonly string[]): Promise<Map<string, MessageItem>> {
    const items = messageIds.length === 0 ? [] : await this.store.batchGet<MessageItem>(messageIds.map((id) => keys.message(id)));
    return new Map(items.map((m) => [m.id, m]));
  }

  /**
   * The message (if stored) and every event on its timeline, in key order: the event items and the
   * events kept on the message item (model.ts timelineOf), each once.
   */
  async getWithTimeline(messageId: string, consistent = true): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
    const events: TimelineEventItem[] = [];
    let message: MessageItem | undefined;
    for (const item of await allItems<MessageItem | TimelineEventItem>(this.store, { ...keyQueries.messageTimeline(messageId), consistent })) {
      if (item.entity === 'message') message = item;
      else if (item.entity === 'message_event') events.push(item);
    }
    return { message, events: timelineOf(message, events) };
  }

  /**
   * Content items, written once and before their messages (a stored message always has its
   * content). Unconditional: the same content under the same key, should a retry write it again.
   */
  putContents(contents: ReadonlyArray<{ id: string; variant?: string; contentGz: Uint8Array }>): Promise<void> {
    return this.store.batchPut(
      contents.map(({ id, variant, contentGz }): MessageContentItem => ({ ...keys.messageContent(id, variant), entity: 'message_content', id, content_gz: contentGz })),
    );
  }

  /**
   * A content item never changes once written, so it is read eventually consistent (half the read
   * units of a content item that is most of a message's reads at send); one written a moment ago
   * and not yet seen so is asked again consistently.
   */
  async getContent(messageId: string, variant?: string): Promise<MessageContentItem | undefined> {
    const key = keys.messageContent(messageId, variant);
    return (await this.store.get<MessageContentItem>(key, false)) ?? this.store.get<MessageContentItem>(key);
  }

  /**
   * Accepts a message: stores it unless a message with its id exists (its id follows from the
   * idempotency key, so that is the key's first request: ./message-id.ts). In the outbox from
   * `outboxDueMs` when given (a suppressed send, until its timeline event is written: ./recovery.ts).
   * False when the id was taken.
   */
  create(message: NewMessage, outboxDueMs?: number): Promise<boolean> {
    return wrote(this.store.create(messageItem(message, outboxDueMs)));
  }

  /**
   * An account's messages, newest first, inside an id range and optionally of one channel or
   * status. The index narrows by id, channel and created_at; each page's messages are then read
   * from the table, where the status lives (status changes never rewrite the index), and the
   * status filter applies to them.
   */
  list(accountId: string, filters: MessageListFilters, page: PageRequest): Promise<Page<MessageItem>> {
    const index = table.indexes.byMessage;
    const conditions: string[] = [];
    const names: Record<string, string> = { '#pk': index.partitionKey, '#sk': index.sortKey };
    const values: Record<string, unknown> = { ':pk': keys.messageListPartition(accountId), ':low': filters.ids.low, ':high': filters.ids.high };
    if (filters.channel) {
      conditions.push('channel = :channel');
      values[':channel'] = filters.channel;
    }
    if (filters.createdAt?.from !== undefined) {
      conditions.push('created_at >= :from');
      values[':from'] = filters.createdAt.from;
    }
    if (filters.createdAt?.to !== undefined) {
      conditions.push('created_at <= :to');
      values[':to'] = filters.createdAt.to;
    }
    const hydrate = async (entries: MessageListEntry[]): Promise<MessageItem[]> => {
      const found = await this.getMany(entries.map((e) => keys.messageIdOfListEntry(e.gsi3sk)));
      return entries.flatMap((e) => {
        const message = found.get(keys.messageIdOfListEntry(e.gsi3sk));
        return message && (filters.status === undefined || message.status === filters.status) ? [message] : [];
      });
    };
    return queryPage<MessageListEntry, MessageItem>(
      this.store,
      { index: index.name, keyCondition: '#pk = :pk AND #sk BETWEEN :low AND :high', names, values, filter: conditions.join(' AND ') || undefined },
      page,
      hydrate,
    );
  }

  /**
   * Takes a queued or scheduled message for the provider: the dispatch lease. `seen` is the
   * dispatched_at this attempt read (undefined when none): the write holds only if nobody took
   * the message since, so two attempts never both hold it. False when another attempt took it
   * meanwhile, or it was canceled, sent or decided.
   */
  markDispatched(messageId: string, now: string, seen: string | undefined): Promise<boolean> {
    const taken = seen === undefined ? 'attribute_not_exists(dispatched_at)' : 'dispatched_at = :seen';
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: 'SET dispatched_at = :now',
        condition: `#status IN (:queued, :scheduled) AND attribute_not_exists(provider_message_id) AND ${taken}`,
        names: { '#status': 'status' },
        values: { ':now': now, ':queued': 'queued', ':scheduled': 'scheduled', ...(seen === undefined ? {} : { ':seen': seen }) },
      }),
    );
  }

  /**
   * Takes for sending a message no attempt has taken: this account's, waiting (queued or
   * scheduled), never dispatched and with no provider id. One conditional write that answers the
   * message as it is now, so no read comes before it; undefined when any of that does not hold or
   * the message is not stored (the caller then reads it and decides).
   */
  async takeFresh(messageId: string, accountId: string, now: string): Promise<MessageItem | undefined> {
    let taken: MessageItem | undefined;
    const ok = await wrote(
      this.store
        .update<MessageItem>(keys.message(messageId), {
          expression: 'SET dispatched_at = :now',
          condition: 'account_id = :account AND #status IN (:queued, :scheduled) AND attribute_not_exists(provider_message_id) AND attribute_not_exists(dispatched_at)',
          names: { '#status': 'status' },
          values: { ':now': now, ':account': accountId, ':queued': 'queued', ':scheduled': 'scheduled' },
        })
        .then((item) => (taken = item)),
    );
    return ok ? taken : undefined;
  }

  /** Gives the dispatch lease back after a failure worth retrying, so the retry need not wait for it to lapse. */
  releaseDispatch(messageId: string, taken: string): Promise<boolean> {
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: 'REMOVE dispatched_at',
        condition: 'dispatched_at = :taken AND attribute_not_exists(provider_message_id)',
        values: { ':taken': taken },
      }),
    );
  }

  /** Takes a message out of the outbox whatever its entry: what it waited for is done. */
  async leaveOutbox(messageId: string): Promise<void> {
    await this.store.update(keys.message(messageId), { expression: 'REMOVE #gpk, #gsk', condition: 'attribute_exists(#pk)', names: { '#pk': table.partitionKey, ...OUTBOX_ATTRIBUTES } });
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
   * Moves the status to `status` as of `at`, unless an event newer than `at` already set it, the
   * status is not one of `onlyFrom` (when given), or the message is gone: false then. A status in
   * `alwaysFrom` is left whatever its time (a handoff gives way to any report on it).
   */
  moveStatus(messageId: string, change: StatusChange): Promise<boolean> {
    const move = statusMove(change);
    return wrote(
      this.store.update(keys.message(messageId), {
        expression: `SET ${move.set.join(', ')}`,
        condition: `attribute_exists(#pk) AND ${move.condition}`,
        names: { '#pk': table.partitionKey, ...move.names },
        values: move.values,
      }),
    );
  }

  /**
   * Keeps a `sent` or `delivered` event on its message item (model.ts FoldedEvent), and with
   * `change` moves the status in the same write: both or neither. False when the message is gone,
   * already holds an event of this type, or `change` may not move its status.
   */
  foldEvent(event: TimelineEvent & { type: FoldedType }, change?: StatusChange): Promise<boolean> {
    const move = change && statusMove(change);
    return wrote(
      this.store.update(keys.message(event.message_id), {
        expression: `SET ${['#evt = :evt', ...(move?.set ?? [])].join(', ')}`,
        condition: `attribute_exists(#pk) AND attribute_not_exists(#evt)${move ? ` AND ${move.condition}` : ''}`,
        names: { '#pk': table.partitionKey, '#evt': FOLDED_TYPES[event.type], ...move?.names },
        values: { ':evt': toFolded(event, change?.providerMessageId), ...move?.values },
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
}

/**
 * The outbox: suppressed sends whose timeline event may not be written yet (keys.messageOutboxEntry),
 * and, from before messages were their own idempotency records, pending claims (./legacy-claims.ts).
 */
export class OutboxRepository {
  constructor(private readonly store: Store) {}

  /**
   * The outbox's items whose entry is due at or before `dueBy` (epoch ms), a page at a time. Walks
   * each shard once with a cursor, so entries that no longer match their item (a global index lags
   * its table) are passed over, never read again.
   */
  async *due(dueBy: number, pageSize = 200): AsyncGenerator<Array<MessageItem | LegacyClaim>> {
    for (let shard = 0; shard < OUTBOX_SHARDS; shard++) {
      for await (const entries of eachPage<ItemKey>(this.store, { ...keyQueries.outboxDue(shard, dueBy), ascending: true, limit: pageSize })) {
        if (entries.length === 0) continue;
        const items = await this.store.batchGet<MessageItem | LegacyClaim>(entries.map((i) => ({ pk: i.pk, sk: i.sk })));
        const upTo = keys.messageOutboxEntry('~', dueBy).gsi1sk;
        const due = items.filter((i) => i.gsi1sk !== undefined && i.gsi1sk <= upTo);
        if (due.length > 0) yield due;
      }
    }
  }

  /** Takes a message out of the outbox (it has moved on): false when its entry changed first. */
  remove(message: Pick<MessageItem, 'id' | 'gsi1sk'>): Promise<boolean> {
    return wrote(
      this.store.update(keys.message(message.id), {
        expression: 'REMOVE #gpk, #gsk',
        condition: '#gsk = :seen',
        names: OUTBOX_ATTRIBUTES,
        values: { ':seen': message.gsi1sk },
      }),
    );
  }
}
