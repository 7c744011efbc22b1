// Reading messages: the filtered list, one message with its timeline, and cancelling a scheduled one.
import * as z from 'zod';
import { channels } from '../accounts/service';
import type { Store } from '../db/store';
import { NotFoundError } from '../errors';
import { idBounds } from '../ids';
import type { Page, PageInput } from '../pagination';
import type { Scheduler } from '../ports/scheduler';
import { toMessageView, toSummary, type MessageSummary, type MessageView } from './model';
import { IdempotencyRepository, MessageRepository } from './repository';

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
  const { message, events } = await new MessageRepository(store).getWithTimeline(messageId);
  // Another account's message is reported exactly like a missing one.
  if (!message || message.account_id !== accountId) throw new NotFoundError('message');
  return toMessageView(message, events);
}

export async function getMessageByIdempotencyKey(store: Store, accountId: string, key: string): Promise<MessageView> {
  const claim = await new IdempotencyRepository(store).get(accountId, key);
  if (!claim) throw new NotFoundError('message');
  return getMessage(store, accountId, claim.message_id);
}

export async function listMessages(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  query: Omit<ListQuery, 'idempotency_key' | 'limit' | 'cursor'>,
  page: PageInput,
): Promise<Page<MessageSummary>> {
  // Message ids sort by creation time, so the time range is a range of ids.
  const low = query.from ? idBounds('msg', Date.parse(query.from)).lowest : 'msg_';
  const high = query.to ? idBounds('msg', Date.parse(query.to)).highest : 'msg_~';
  // An empty range (from after to) is an empty list, not a store error.
  if (low > high) return { items: [], nextCursor: null };
  const out = await new MessageRepository(deps.store).list(
    accountId,
    { channel: query.channel, status: query.status, ids: { low, high } },
    {
      secret: deps.cursorSecret,
      scope: { accountId, collection: 'messages', filters: { channel: query.channel, status: query.status, from: query.from, to: query.to } },
      limit: page.limit,
      cursor: page.cursor,
    },
  );
  return { items: out.items.map(toSummary), nextCursor: out.nextCursor };
}

/** Cancels a scheduled message that has not been dispatched; 404 for anything else. */
export async function cancelScheduled(
  deps: { store: Store; scheduler: Scheduler; clock: { now(): Date } },
  caller: { accountId: string; testMode: boolean },
  messageId: string,
): Promise<{ id: string; status: 'canceled' }> {
  const canceled = await new MessageRepository(deps.store).cancelScheduled(caller.accountId, messageId, deps.clock.now().toISOString(), caller.testMode);
  if (!canceled) throw new NotFoundError('pending scheduled message');
  // The status change is what stops the send; removing the schedule only saves a wasted wake-up.
  await deps.scheduler.cancel(messageId);
  return { id: messageId, status: 'canceled' };
}
