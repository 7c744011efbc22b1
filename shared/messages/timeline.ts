// The append-only timeline. Each signal is stored once, keyed by its provider_event_id, and the
// message status follows the newest event by occurred_at whatever order events arrive in.
import { sha256Hex } from '../crypto';
import type { Store } from '../db/store';
import type { Ids } from '../ids';
import type { Clock } from '../ports/clock';
import type { Queue } from '../ports/queue';
import { publishEvent } from '../webhooks/deliver';
import type { EventSource, EventType, MessageItem, TimelineEvent, TimelineEventItem } from './model';
import { MessageRepository } from './repository';

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
  event: TimelineEvent;
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
  const messages = new MessageRepository(deps.store);
  const now = deps.clock.now().toISOString();
  const event: TimelineEvent = {
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
  if (!(await messages.addEvent(event))) {
    const existing = (await messages.getEvent(message.id, input.providerEventId)) ?? event;
    await publish(deps, existing);
    return { event: existing, created: false };
  }
  // `sent` is the handoff: it moves a message that is still waiting, never one the provider has
  // already reported on (a send retried after a crash records its handoff after the delivery).
  const onlyFrom = input.type === 'sent' ? (['queued', 'scheduled'] as const) : undefined;
  const moved = await messages.moveStatus(message.id, { status: input.type, at: input.occurredAt, now, providerMessageId: extra.providerMessageId, onlyFrom });
  // An older event arriving late joins the timeline without moving the status; the provider
  // message id it carries is still worth keeping.
  if (!moved && extra.providerMessageId) await messages.setProviderMessageId(message.id, extra.providerMessageId);
  await publish(deps, event);
  return { event, created: true };
}

const publish = (deps: { store: Store; queue: Queue }, e: TimelineEvent): Promise<void> =>
  publishEvent(deps, {
    event_id: e.id,
    event_type: e.type,
    message_id: e.message_id,
    account_id: e.account_id,
    payload: e.payload,
    occurred_at: e.occurred_at,
    created_at: e.created_at,
  });

/** A message (if stored) and its timeline events. */
export function readTimeline(store: Store, messageId: string): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
  return new MessageRepository(store).getWithTimeline(messageId);
}
