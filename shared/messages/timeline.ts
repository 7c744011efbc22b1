// The append-only timeline. Each signal is stored once, keyed by its provider_event_id, and the
// message status follows the newest event by occurred_at whatever order events arrive in.
import { sha256Hex } from '../crypto';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError } from '../errors';
import type { Ids } from '../ids';
import type { Clock } from '../ports/clock';
import type { Queue } from '../ports/queue';
import { publishEvent } from '../webhooks/deliver';
import type { EventSource, EventType, MessageItem, TimelineEventItem } from './model';

export interface NewEvent {
  type: EventType;
  source: EventSource;
  providerEventId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  /** Router events reuse the message id; everything else gets a fresh evt_ id. */
  id?: string;
}

export const workerEventId = (messageId: string, type: EventType): string => `wkr_${sha256Hex(`${messageId}:${type}`)}`;
export const routerEventId = (messageId: string): string => `supp_${messageId}`;

export interface Recorded {
  event: TimelineEventItem;
  /** False when this signal was already on the timeline (a duplicate callback). */
  created: boolean;
}

/**
 * Records one signal on a message's timeline and hands subscribable types to the webhook queue.
 * A duplicate is handed over again too: delivery claims collapse it, and a crash between the
 * write and the hand-off cannot lose the webhook.
 */
export async function recordEvent(
  deps: { store: Store; clock: Clock; ids: Ids; queue: Queue },
  message: Pick<MessageItem, 'id' | 'account_id'>,
  input: NewEvent,
  extra: { providerMessageId?: string } = {},
): Promise<Recorded> {
  const now = deps.clock.now().toISOString();
  const event: TimelineEventItem = {
    ...keys.messageEvent(message.id, input.providerEventId),
    entity: 'message_event',
    id: input.id ?? deps.ids.next('evt'),
    type: input.type,
    message_id: message.id,
    account_id: message.account_id,
    source: input.source,
    provider_event_id: input.providerEventId,
    payload: input.payload,
    occurred_at: input.occurredAt,
    created_at: now,
  };
  try {
    await deps.store.create(event);
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    const existing = (await deps.store.get<TimelineEventItem>(keys.messageEvent(message.id, input.providerEventId))) ?? event;
    await publish(deps, existing);
    return { event: existing, created: false };
  }
  await applyStatus(deps.store, message.id, input.type, input.occurredAt, now, extra.providerMessageId);
  await publish(deps, event);
  return { event, created: true };
}

const publish = (deps: { store: Store; queue: Queue }, e: TimelineEventItem): Promise<void> =>
  publishEvent(deps, {
    event_id: e.id,
    event_type: e.type,
    message_id: e.message_id,
    account_id: e.account_id,
    payload: e.payload,
    occurred_at: e.occurred_at,
    created_at: e.created_at,
  });

/** Moves the status to `type` unless a newer event already set it. */
async function applyStatus(store: Store, messageId: string, type: EventType, occurredAt: string, now: string, providerMessageId?: string): Promise<void> {
  const set = ['#status = :type', 'status_at = :at', 'updated_at = :now'];
  const values: Record<string, unknown> = { ':type': type, ':at': occurredAt, ':now': now };
  if (providerMessageId) {
    set.push('provider_message_id = :pmid');
    values[':pmid'] = providerMessageId;
  }
  try {
    await store.update(keys.message(messageId), {
      expression: `SET ${set.join(', ')}`,
      condition: 'attribute_exists(pk) AND (attribute_not_exists(status_at) OR status_at <= :at)',
      names: { '#status': 'status' },
      values,
    });
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error;
    // An older event arriving late: it joins the timeline but does not move the status. The
    // provider message id is still worth keeping.
    if (providerMessageId) {
      await store.update(keys.message(messageId), {
        expression: 'SET provider_message_id = :pmid',
        condition: 'attribute_exists(pk)',
        values: { ':pmid': providerMessageId },
      });
    }
  }
}

export async function readTimeline(store: Store, messageId: string): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
  const events: TimelineEventItem[] = [];
  let message: MessageItem | undefined;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await store.query({ keyCondition: 'pk = :pk', values: { ':pk': keys.message(messageId).pk }, ascending: true, startKey });
    for (const item of page.items) {
      if (item.entity === 'message') message = item as unknown as MessageItem;
      else if (item.entity === 'message_event') events.push(item as unknown as TimelineEventItem);
    }
    startKey = page.lastKey;
  } while (startKey);
  return { message, events };
}
