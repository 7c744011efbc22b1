// The append-only timeline. Each signal is stored once, keyed by its provider_event_id, and the
// message status follows the newest event by occurred_at whatever order events arrive in. The
// `sent` and `delivered` events are kept on the message item, each written with its status move.
import type { Store } from '../../db/store';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { Metrics } from '../../ports/metrics';
import type { CountMetric } from '../../platform';
import type { Queue } from '../../ports/queue';
import type { Tally } from '../../db/tally';
import type { PerBatch } from '../../concurrency';
import { isFolded, type EventSource, type EventType, type FoldedType, type MessageItem, type MessageStatus, type TimelineEvent, type TimelineEventItem } from './model';
import { MessageRepository, type StatusChange } from './repository';

export { workerEventId } from './model';

export interface NewEvent {
  type: EventType;
  source: EventSource;
  providerEventId: string;
  payload: Record<string, unknown>;
  occurredAt: string;
  /** Router events reuse the message id; everything else gets a fresh evt_ id. */
  id?: string;
}

export const routerEventId = (messageId: string): string => `supp_${messageId}`;

/** The timeline events the service counts (shared/platform.ts `countMetrics`), live mail only. */
const COUNTED: Partial<Record<EventType, CountMetric>> = {
  sent: 'MessagesSent',
  delivered: 'MessagesDelivered',
  bounced: 'MessagesBounced',
  complained: 'MessagesComplained',
};

export interface Recorded {
  event: TimelineEvent;
  /** False when this signal was already on the timeline (a duplicate callback). */
  created: boolean;
}

/** The message an event is recorded for: its broadcast_id when a broadcast sent it, its test_mode (only live mail's events count in the service's metrics). */
export type EventMessage = Pick<MessageItem, 'id' | 'account_id' | 'broadcast_id' | 'test_mode'>;

export type TimelineDeps = {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  metrics: Metrics;
  /**
   * Where the reputation's send counts go: in a consumer's batch, kept for its end and summed per
   * item (functions/send/send-message.ts); written at once without it. Usage and a broadcast's
   * `sent` are written at once regardless.
   */
  tally?: Tally;
  /** A consumer batch's memo for reads its records share (a webhook subscription lookup); none outside a batch. */
  perBatch?: PerBatch;
};

/** An area above the timeline, told of a recorded event (a duplicate too: it must settle and add nothing). */
export type TimelineListener = (deps: TimelineDeps, message: EventMessage, event: TimelineEvent) => Promise<void>;

/**
 * The listeners the composition root passes in (shared/runtime/listeners.ts), so the timeline
 * imports none of the areas that act on its events: `counted` run before the status move when that
 * is a write of its own (a broadcast's stats), `created` once the status has moved and only for an
 * event stored now, never a duplicate (so a count added there is added once, as usage counts a
 * send: a broadcast's `sent`), `settled` last (the webhooks).
 */
export interface TimelineListeners {
  counted: readonly TimelineListener[];
  created: readonly TimelineListener[];
  settled: readonly TimelineListener[];
}

/**
 * Records one signal on a message's timeline and tells the listeners (the webhook hand-off among
 * them). They are told of a duplicate too: delivery claims collapse it, and a crash between the
 * write and the hand-off cannot lose the webhook.
 */
export async function recordEvent(
  deps: TimelineDeps & { timeline: TimelineListeners },
  message: EventMessage,
  input: NewEvent,
  extra: {
    providerMessageId?: string;
    /**
     * The message's timeline as the caller read it (MessageRepository.getWithTimeline), when it did:
     * a signal already on it is known to be a duplicate without a look of its own.
     */
    timeline?: readonly TimelineEventItem[];
  } = {},
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
  const stored = isFolded(event.type) ? await storeFolded(messages, { ...event, type: event.type }, now, extra) : { ...(await storeOwnItem(messages, event)), moved: false };
  // Once per event, where it is first stored: a duplicate signal or a retried job counts nothing.
  const metric = COUNTED[event.type];
  if (stored.created && metric && !message.test_mode) deps.metrics.count(metric);
  // Counted for a duplicate too (once per message and type, so a repeat settles and adds nothing),
  // and, where the status move is a write of its own, before it: every retry a crash here leads to
  // (a redelivered signal, a send job whose message is still waiting or was decided) comes back
  // through this line.
  for (const listener of deps.timeline.counted) await listener(deps, message, stored.recorded);
  // Applied for a duplicate too: a delivery that died between storing the event and moving the
  // status finishes the move when the signal comes again (the move is conditional, so repeating it
  // changes nothing otherwise).
  if (!stored.moved) await applyStatus(messages, stored.recorded, now, extra.providerMessageId);
  // Once per event, where it is first stored: a crash before these loses their adds (a retry
  // finds the event stored), never counts one twice.
  if (stored.created) for (const listener of deps.timeline.created) await listener(deps, message, stored.recorded);
  for (const listener of deps.timeline.settled) await listener(deps, message, stored.recorded);
  return { event: stored.recorded, created: stored.created };
}

interface Stored {
  recorded: TimelineEvent;
  created: boolean;
  /** The status move was made in the same write as the event. */
  moved: boolean;
}

/** An event on an item of its own, keyed by its provider event id: stored once. */
async function storeOwnItem(messages: MessageRepository, event: TimelineEvent): Promise<Omit<Stored, 'moved'>> {
  const created = await messages.addEvent(event);
  return { created, recorded: created ? event : ((await messages.getEvent(event.message_id, event.provider_event_id)) ?? event) };
}

/**
 * A `sent` or `delivered` event, kept on the message item: as a rule one write stores it and moves
 * the status. First, a signal already on the timeline is a duplicate: on the timeline the caller
 * read, or (when it read none) on an event item written before events were kept on the message.
 * When the write does not hold (the status may not move, or the signal came meanwhile) the event
 * is, in turn: stored on the item without the move (the caller then tries the move as for any
 * other event); a duplicate of the one the item holds; or, when the item holds another signal of
 * its type (or the message is gone), an event item of its own, as any other type's.
 */
async function storeFolded(
  messages: MessageRepository,
  event: TimelineEvent & { type: FoldedType },
  now: string,
  extra: { providerMessageId?: string; timeline?: readonly TimelineEventItem[] },
): Promise<Stored> {
  const seen = (timeline: readonly TimelineEventItem[]) => timeline.find((e) => e.provider_event_id === event.provider_event_id);
  const before = extra.timeline ? seen(extra.timeline) : await messages.getEvent(event.message_id, event.provider_event_id);
  if (before) return { recorded: before, created: false, moved: false };
  if (await messages.foldEvent(event, statusChangeOf(event, now, extra.providerMessageId))) return { recorded: event, created: true, moved: true };
  if (await messages.foldEvent(event)) return { recorded: event, created: true, moved: false };
  const { message, events } = await messages.getWithTimeline(event.message_id);
  const held = message && seen(events);
  if (held) return { recorded: held, created: false, moved: false };
  return { ...(await storeOwnItem(messages, event)), moved: false };
}

/** The statuses an open or a click moves (the spec's state table; waiting ones included, see statusChangeOf). */
const WAITING_OR_DELIVERED: MessageStatus[] = ['queued', 'scheduled', 'sent', 'delivery_delayed', 'delivered', 'opened'];
const ENGAGEMENT_FROM: Partial<Record<EventType, readonly MessageStatus[]>> = {
  opened: WAITING_OR_DELIVERED,
  clicked: [...WAITING_OR_DELIVERED, 'clicked'],
};

/** The status move an event makes, when the message's status and time allow it. */
function statusChangeOf(event: TimelineEvent, now: string, providerMessageId: string | undefined): StatusChange {
  // `sent` is the handoff: it moves a message that is still waiting, never one the provider has
  // already reported on (a send retried after a crash records its handoff after the delivery).
  // Any other signal is a report on the message: it replaces a waiting or handed-off status
  // whatever their times, since a handoff recorded by a redelivered send job carries that attempt's
  // time, which can be after the time the provider gives its report. Reports among themselves
  // follow occurred_at.
  // Opens and clicks follow the spec's table: they move a delivered (or opened) message, never a
  // bounced, complained or failed one, and an open does not take a clicked status back; an open
  // or click reported before its delivery still moves a message waiting for it.
  const engaged = ENGAGEMENT_FROM[event.type];
  const change = { status: event.type, at: event.occurred_at, now, providerMessageId };
  return event.type === 'sent'
    ? { ...change, onlyFrom: ['queued', 'scheduled'] }
    : { ...change, alwaysFrom: ['queued', 'scheduled', 'sent'], ...(engaged ? { onlyFrom: engaged } : {}) };
}

async function applyStatus(messages: MessageRepository, event: TimelineEvent, now: string, providerMessageId: string | undefined): Promise<void> {
  const moved = await messages.moveStatus(event.message_id, statusChangeOf(event, now, providerMessageId));
  // An older event arriving late joins the timeline without moving the status; the provider
  // message id it carries is still worth keeping.
  if (!moved && providerMessageId) await messages.setProviderMessageId(event.message_id, providerMessageId);
}

/** A message (if stored) and its timeline events. */
export function readTimeline(store: Store, messageId: string): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
  return new MessageRepository(store).getWithTimeline(messageId);
}
