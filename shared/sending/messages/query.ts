// Reading messages: the filtered list, one message with its timeline, and cancelling a scheduled one.
import type { Store } from '../../db/store';
import { NotFoundError } from '../../errors';
import { idBounds } from '../../ports/ids';
import type { Page, PageInput } from '../../pagination';
import type { Scheduler } from '../../ports/scheduler';
import { toMessageView, toSummary, type MessageSummary, type MessageView } from './model';
import { LegacyClaims } from './legacy-claims';
import { messageIdFor } from './message-id';
import { MessageRepository } from './repository';
import type { CanceledView, ListMessagesQuery } from './schemas';
import { releaseSpend } from '../../billing/spend-caps/reserve';
import type { CostConfig } from '../../billing/usage/cost';


export async function getMessage(store: Store, accountId: string, messageId: string): Promise<MessageView> {
  const { message, events } = await new MessageRepository(store).getWithTimeline(messageId);
  // Another account's message is reported exactly like a missing one.
  if (!message || message.account_id !== accountId) throw new NotFoundError('message');
  return toMessageView(message, events);
}

/**
 * The id of the account's message sent with this idempotency key, if one is stored: the id the key
 * gives (./message-id.ts), or for a message accepted before ids followed from keys, the one its
 * idempotency record names.
 */
export async function findByIdempotencyKey(store: Store, accountId: string, key: string): Promise<{ message_id: string } | undefined> {
  const message = await new MessageRepository(store).get(messageIdFor(accountId, key));
  if (message && message.account_id === accountId && message.idempotency_key === key) return { message_id: message.id };
  const claim = await new LegacyClaims(store).get(accountId, key);
  return claim ? { message_id: claim.message_id } : undefined;
}

export async function getMessageByIdempotencyKey(store: Store, accountId: string, key: string): Promise<MessageView> {
  const found = await findByIdempotencyKey(store, accountId, key);
  if (!found) throw new NotFoundError('message');
  return getMessage(store, accountId, found.message_id);
}

/**
 * How much later than created_at a message's id may be stamped: a send request can run no longer
 * than a Lambda may (15 minutes), and clock steps backwards are far smaller.
 */
const ID_TIME_SLACK_MS = 15 * 60_000;

/**
 * A bound as milliseconds and as created_at is written (toISOString, UTC, milliseconds), so that
 * the store compares strings of one shape.
 */
function instant(value: string): { ms: number; iso: string } {
  const ms = Date.parse(value);
  // 9999-12-31T23:59:59Z written with a negative offset is in year 10000, which toISOString writes
  // as "+010000-…": that would sort before every stored date.
  return { ms, iso: new Date(Math.min(ms, LAST_ISO_MS)).toISOString() };
}

const LAST_ISO_MS = Date.parse('9999-12-31T23:59:59.999Z');

export async function listMessages(
  deps: { store: Store; cursorSecret: string },
  accountId: string,
  query: Omit<ListMessagesQuery, 'idempotency_key' | 'limit' | 'cursor'>,
  page: PageInput,
): Promise<Page<MessageSummary>> {
  // Both bounds are inclusive on created_at. An id's time is read a little after created_at (the
  // send path stamps the request once, then mints ids as it claims them), so the id range is
  // widened by the longest a request may run and created_at itself decides at the edges.
  const from = query.from === undefined ? undefined : instant(query.from);
  const to = query.to === undefined ? undefined : instant(query.to);
  // An empty range (from after to) is an empty list, not a store error.
  if (from && to && from.ms > to.ms) return { items: [], nextCursor: null };
  const low = from ? idBounds('msg', from.ms - ID_TIME_SLACK_MS).lowest : 'msg_';
  const high = to ? idBounds('msg', to.ms + ID_TIME_SLACK_MS).highest : 'msg_~';
  const out = await new MessageRepository(deps.store).list(
    accountId,
    { channel: query.channel, status: query.status, ids: { low, high }, createdAt: { from: from?.iso, to: to?.iso } },
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
  deps: { store: Store; scheduler: Scheduler; clock: { now(): Date }; config?: CostConfig },
  caller: { accountId: string; testMode: boolean },
  messageId: string,
): Promise<CanceledView> {
  const messages = new MessageRepository(deps.store);
  const canceled = await messages.cancelScheduled(caller.accountId, messageId, deps.clock.now().toISOString(), caller.testMode);
  if (!canceled) throw new NotFoundError('pending scheduled message');
  // Never sent: its spend reservation goes back (this request's cancel was the one that took).
  const message = await messages.get(messageId);
  if (message) await releaseSpend({ store: deps.store, config: deps.config ?? {} }, message);
  // The status change is what stops the send; removing the schedule only saves a wasted wake-up.
  await deps.scheduler.cancel(messageId);
  return { id: messageId, status: 'canceled' };
}
