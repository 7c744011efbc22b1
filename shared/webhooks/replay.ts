// Webhook self-service (issue 32): replay one delivery or every exhausted one of a subscription,
// and a test event. A replay is a NEW delivery (new dlv_ id, attempt 1, its own retry schedule) of
// the very same envelope bytes: the receiver sees the same Service-Event-Id (its dedupe key), a
// fresh timestamp and a fresh signature (the secret current when it is attempted). The original
// delivery stays in the log as it ended (Svix's "resend" semantics; docs/api-decisions.md).
// Both go through the webhooks queue and the worker like any delivery: signed, guarded, retried.
import type { Store } from '../db/store';
import { NotFoundError } from '../errors';
import type { Ids } from '../ports/ids';
import { isId } from '../ports/ids';
import type { Clock } from '../ports/clock';
import type { Queue } from '../ports/queue';
import { LOG_RETENTION_S } from './deliver';
import type { AttemptJob } from './messages';
import { DeliveryRepository, SubscriptionRepository, toDeliveryView, type DeliveryItem, type NewDelivery, type SubscriptionItem } from './repository';
import type { DeliveryView } from './schemas';
import { changeableSubscription, type SubscriptionCaller } from './subscriptions';

/** At most this many deliveries one replay-failed call queues (the rest: call again). */
export const MAX_REPLAYS = 100;
/** The event type of a test event: never subscribable, so no real event carries it. */
export const TEST_EVENT_TYPE = 'webhook.test';

export interface ReplayDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
}

const deliveryNotFound = (): NotFoundError => new NotFoundError('webhook delivery');

/** A new delivery of `body` to the subscription, ready for its first attempt (the caller queues `job`). */
async function deliverAgain(deps: ReplayDeps, sub: SubscriptionItem, from: Pick<DeliveryItem, 'event_id' | 'event_type' | 'body'>): Promise<{ item: NewDelivery; job: AttemptJob }> {
  const now = deps.clock.now();
  const item: NewDelivery = {
    id: deps.ids.next('dlv'),
    subscription_id: sub.id,
    account_id: sub.account_id,
    event_id: from.event_id,
    event_type: from.event_type,
    status: 'pending',
    attempt_count: 0,
    response_status: 0,
    body: from.body,
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: Math.floor(now.getTime() / 1000) + LOG_RETENTION_S,
  };
  // Ids are fresh ULIDs: a collision is a broken id source, not a user's conflict.
  if (!(await new DeliveryRepository(deps.store).create(item))) throw new Error(`webhook delivery ${item.id} exists already`);
  return { item, job: { kind: 'attempt', account_id: sub.account_id, subscription_id: sub.id, delivery_id: item.id, attempt: 1 } };
}

/** Replays one delivery of the log as a new delivery; answers the new one (status pending). */
export async function replayDelivery(deps: ReplayDeps, accountId: string, subscriptionId: string, deliveryId: string, caller: SubscriptionCaller): Promise<DeliveryView> {
  const sub = await changeableSubscription(new SubscriptionRepository(deps.store), accountId, subscriptionId, caller);
  // A malformed id names nothing and stays out of keys (as every other id does).
  const original = isId(deliveryId, 'dlv') ? await new DeliveryRepository(deps.store).get(sub.id, deliveryId) : undefined;
  if (!original) throw deliveryNotFound();
  const { item, job } = await deliverAgain(deps, sub, original);
  await deps.queue.send('webhooks', job);
  return toDeliveryView(item);
}

/**
 * Replays every exhausted event of the log (a `failed` delivery still has a retry scheduled, so it
 * is left to it), oldest first, at most MAX_REPLAYS a call. A replay's own delivery is pending,
 * then succeeded or exhausted, so calling again replays an event again only once that replay was
 * exhausted too.
 */
export async function replayFailed(deps: ReplayDeps, accountId: string, subscriptionId: string, caller: SubscriptionCaller): Promise<{ replayed: DeliveryView[]; has_more: boolean }> {
  const sub = await changeableSubscription(new SubscriptionRepository(deps.store), accountId, subscriptionId, caller);
  const log = await new DeliveryRepository(deps.store).wholeLog(sub.id);
  // An event with a delivery still under way (pending, or failed with a retry scheduled) is left to
  // it, one delivered since (a replay that succeeded) is done; one exhausted twice is replayed once.
  const underWayOrDone = new Set(log.filter((d) => d.status !== 'exhausted').map((d) => d.event_id));
  const latestPerEvent = new Map<string, DeliveryItem>();
  for (const d of log) if (d.status === 'exhausted' && !underWayOrDone.has(d.event_id)) latestPerEvent.set(d.event_id, d);
  const todo = [...latestPerEvent.values()];
  const replayed: DeliveryView[] = [];
  const jobs: AttemptJob[] = [];
  for (const d of todo.slice(0, MAX_REPLAYS)) {
    const { item, job } = await deliverAgain(deps, sub, d);
    replayed.push(toDeliveryView(item));
    jobs.push(job);
  }
  await deps.queue.sendBatch('webhooks', jobs);
  return { replayed, has_more: todo.length > MAX_REPLAYS };
}

/**
 * A test event: an envelope of type `webhook.test` with a fixed payload, delivered to this
 * subscription only (whatever its event_types; a paused one waits as any delivery does), signed
 * and logged like any other. Answers the delivery (pending); its outcome is in the log.
 */
export async function sendTestEvent(deps: ReplayDeps, accountId: string, subscriptionId: string, caller: SubscriptionCaller): Promise<DeliveryView> {
  const sub = await changeableSubscription(new SubscriptionRepository(deps.store), accountId, subscriptionId, caller);
  const now = deps.clock.now().toISOString();
  const eventId = deps.ids.next('evt');
  const envelope = {
    event_id: eventId,
    event_type: TEST_EVENT_TYPE,
    message_id: '',
    account_id: accountId,
    payload: { test: true, subscription_id: sub.id, note: 'A test event from Postbox: nothing happened to any message' },
    occurred_at: now,
    created_at: now,
  };
  const { item, job } = await deliverAgain(deps, sub, { event_id: eventId, event_type: TEST_EVENT_TYPE, body: JSON.stringify(envelope) });
  await deps.queue.send('webhooks', job);
  return toDeliveryView(item);
}
