// Reading messages: the filtered list, one message with its timeline, and cancelling a scheduled one.
import * as z from 'zod';
import { channels } from '../accounts/service';
import { keys, table } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError, NotFoundError } from '../errors';
import { idBounds } from '../ids';
import { queryPage, type Page } from '../pagination';
import type { Scheduler } from '../ports/scheduler';
import { findByKey } from './idempotency';
import { toMessageView, toSummary, type MessageItem, type MessageSummary, type MessageView } from './model';
import { readTimeline } from './timeline';

export const listQuery = z.object({
  channel: z.enum(channels).optional(),
  status: z.string().min(1).max(40).optional(),
  from: z.iso.datetime({ offset: true }).optional(),
  to: z.iso.datetime({ offset: true }).optional(),
  idempotency_key: z.string().min(1).max(256).optional(),
  limit: z.string().optional(),
  cursor: z.string().optional(),
});

export type ListQuery = z.infer<typeof listQuery>;

export async function getMessage(store: Store, accountId: string, messageId: string): Promise<MessageView> {
  const { message, events } = await readTimeline(store, messageId);
  // Another account's message is reported exactly like a missing one.
  if (!message || message.account_id !== accountId) throw new NotFoundError('message');
  return toMessageView(message, events);
}

export async function getMessageByIdempotencyKey(store: Store, accountId: string, key: string): Promise<MessageView> {
  const claim = await findByKey(store, accountId, key);
  if (!claim) throw new NotFoundError('message');
  return getMessage(store, accountId, claim.message_id);
}

export async function listMessages(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  query: Omit<ListQuery, 'idempotency_key' | 'limit' | 'cursor'>,
  page: { limit: number; cursor?: string },
): Promise<Page<MessageSummary>> {
  const index = table.indexes.byFilter;
  const low = query.from ? idBounds('msg', Date.parse(query.from)).lowest : 'msg_';
  const high = query.to ? idBounds('msg', Date.parse(query.to)).highest : 'msg_~';
  // An empty range (from after to) is an empty list, not a store error.
  if (low > high) return { items: [], nextCursor: null };
  const filters: string[] = [];
  const values: Record<string, unknown> = { ':pk': keys.messageListPartition(accountId), ':low': low, ':high': high };
  const names: Record<string, string> = { '#pk': index.partitionKey, '#sk': index.sortKey };
  if (query.channel) {
    filters.push('channel = :channel');
    values[':channel'] = query.channel;
  }
  if (query.status) {
    filters.push('#status = :status');
    names['#status'] = 'status';
    values[':status'] = query.status;
  }
  const out = await queryPage(
    deps.store,
    { index: index.name, keyCondition: '#pk = :pk AND #sk BETWEEN :low AND :high', names, values, filter: filters.join(' AND ') || undefined },
    {
      secret: deps.cursorSecret,
      scope: { accountId, collection: 'messages', filters: { channel: query.channel, status: query.status, from: query.from, to: query.to } },
      limit: page.limit,
      cursor: page.cursor,
    },
  );
  return { items: out.items.map((i) => toSummary(i as unknown as MessageItem)), nextCursor: out.nextCursor };
}

/** Cancels a scheduled message that has not been dispatched; 404 for anything else. */
export async function cancelScheduled(deps: { store: Store; scheduler: Scheduler; clock: { now(): Date } }, accountId: string, messageId: string): Promise<{ id: string; status: 'canceled' }> {
  try {
    await deps.store.update(keys.message(messageId), {
      expression: 'SET #status = :canceled, updated_at = :now',
      condition: 'account_id = :account AND #status = :scheduled AND attribute_not_exists(dispatched_at)',
      names: { '#status': 'status' },
      values: { ':canceled': 'canceled', ':scheduled': 'scheduled', ':account': accountId, ':now': deps.clock.now().toISOString() },
    });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new NotFoundError('pending scheduled message');
    throw error;
  }
  // The status change is what stops the send; removing the schedule only saves a wasted wake-up.
  await deps.scheduler.cancel(messageId);
  return { id: messageId, status: 'canceled' };
}
