// Webhook delivery: every subscribable timeline event fans out to one delivery per matching active
// subscription, and each delivery is attempted, signed, through the SSRF guard, with retries at
// 30 s doubling (±25 %) until 2xx, 12 attempts or 24 hours. Short delays ride the queue's own
// delay; longer ones go through the scheduler, never a sleeping function.
import { hmacSha256 } from '../crypto';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ConditionFailedError } from '../errors';
import type { Ids } from '../ids';
import type { Clock } from '../ports/clock';
import type { Queue } from '../ports/queue';
import type { Scheduler } from '../ports/scheduler';
import type { Secrets } from '../ports/secrets';
import type { Logger } from '../runtime/logger';
import { isSubscribable, type DeliveryItem, type SubscribableType } from './model';
import { postSigned } from './outbound';
import { getSubscription, listMatchingSubscriptions, signingSecretOf } from './subscriptions';

export const MAX_ATTEMPTS = 12;
export const RETRY_WINDOW_MS = 24 * 3600_000;
export const BASE_DELAY_MS = 30_000;
const MAX_QUEUE_DELAY_S = 900; // SQS's own limit
const PAUSED_RECHECK_MS = 15 * 60_000;
const LOG_RETENTION_S = 30 * 24 * 3600;

/** The webhook request body, exactly as the spec's envelope. */
export interface WebhookEnvelope {
  event_id: string;
  event_type: SubscribableType;
  message_id: string;
  account_id: string;
  payload: Record<string, unknown>;
  occurred_at: string;
  created_at: string;
}

export type WebhookJob =
  | { kind: 'event'; envelope: WebhookEnvelope }
  | { kind: 'attempt'; account_id: string; subscription_id: string; delivery_id: string; attempt: number };

export interface WebhookDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  scheduler: Scheduler;
  secrets: Secrets;
  logger: Logger;
  config: { webhookAllowPrivate: boolean; webhookTimeoutMs?: number };
}

/**
 * Hands a recorded event to the webhook queue when some active subscription wants it. Asking
 * first costs one small Query and spares accounts without webhooks a queue message and a
 * function run per event.
 */
export async function publishEvent(deps: { store: Store; queue: Queue }, envelope: Omit<WebhookEnvelope, 'event_type'> & { event_type: string }): Promise<void> {
  const { event_type: type } = envelope;
  if (!isSubscribable(type)) return;
  if ((await listMatchingSubscriptions(deps.store, envelope.account_id, type)).length === 0) return;
  await deps.queue.send('webhooks', { kind: 'event', envelope: { ...envelope, event_type: type } } satisfies WebhookJob);
}

/** The nth retry's delay: 30 s doubling per attempt, ±25 % jitter. */
export function retryDelayMs(attemptsMade: number, random: () => number = Math.random): number {
  const base = BASE_DELAY_MS * 2 ** (attemptsMade - 1);
  return Math.round(base * (0.75 + random() * 0.5));
}

export function signatureOf(secret: string, timestamp: number, body: string): string {
  return hmacSha256(secret, `${timestamp}.${body}`).toString('hex');
}

/**
 * A delivery's id is its event's: one per (subscription, event) by construction, so one
 * conditional write both creates it and collapses a repeated event. Event ids are ULIDs, so the
 * log still sorts newest first.
 */
export const deliveryIdFor = (eventId: string): string => `dlv_${eventId.replace(/^[a-z]+_/, '')}`;

/** One delivery per matching subscription; a repeated event finds its deliveries already there. */
export async function fanOut(deps: WebhookDeps, envelope: WebhookEnvelope): Promise<number> {
  const subscriptions = await listMatchingSubscriptions(deps.store, envelope.account_id, envelope.event_type);
  const now = deps.clock.now().toISOString();
  // The delivery log is kept for 30 days (DynamoDB's TTL removes it; the local store keeps it).
  const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + LOG_RETENTION_S;
  const jobs: WebhookJob[] = [];
  for (const sub of subscriptions) {
    const deliveryId = deliveryIdFor(envelope.event_id);
    const delivery: DeliveryItem = {
      ...keys.webhookDelivery(sub.id, deliveryId),
      entity: 'webhook_delivery',
      id: deliveryId,
      subscription_id: sub.id,
      account_id: sub.account_id,
      event_id: envelope.event_id,
      event_type: envelope.event_type,
      status: 'pending',
      attempt_count: 0,
      response_status: 0,
      body: JSON.stringify(envelope),
      created_at: now,
      updated_at: now,
      expires_at: expiresAt,
    };
    try {
      await deps.store.create(delivery);
    } catch (error) {
      if (!(error instanceof ConditionFailedError)) throw error;
      // Already there: only a delivery that never got its first attempt is started again.
      const existing = await deps.store.get<DeliveryItem>(keys.webhookDelivery(sub.id, deliveryId));
      if (existing && existing.attempt_count > 0) continue;
    }
    jobs.push({ kind: 'attempt', account_id: sub.account_id, subscription_id: sub.id, delivery_id: deliveryId, attempt: 1 });
  }
  await deps.queue.sendBatch('webhooks', jobs);
  return jobs.length;
}

async function later(deps: WebhookDeps, job: WebhookJob & { kind: 'attempt' }, delayMs: number): Promise<void> {
  const seconds = Math.ceil(delayMs / 1000);
  if (seconds <= MAX_QUEUE_DELAY_S) {
    await deps.queue.send('webhooks', job, { delaySeconds: seconds });
    return;
  }
  try {
    await deps.scheduler.schedule({ id: `${job.delivery_id}-${job.attempt}`, at: new Date(deps.clock.now().getTime() + delayMs), queue: 'webhooks', body: job });
  } catch (error) {
    if (!(error instanceof ConditionFailedError)) throw error; // already scheduled by an earlier try
  }
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'exhausted' | 'postponed' | 'skipped';

export async function attempt(deps: WebhookDeps, job: WebhookJob & { kind: 'attempt' }): Promise<AttemptOutcome> {
  const key = keys.webhookDelivery(job.subscription_id, job.delivery_id);
  const delivery = await deps.store.get<DeliveryItem>(key);
  // A stale or repeated job: the delivery has moved on (or is gone).
  if (!delivery || delivery.attempt_count !== job.attempt - 1 || delivery.status === 'succeeded' || delivery.status === 'exhausted') return 'skipped';
  const subscription = await getSubscription(deps.store, job.account_id, job.subscription_id);
  if (!subscription) return 'skipped'; // deleted: its retries stop
  const nowMs = deps.clock.now().getTime();
  const elapsed = nowMs - Date.parse(delivery.created_at);
  if (!subscription.is_active) {
    // Paused: no attempt is spent; look again later, within the retry window.
    if (elapsed + PAUSED_RECHECK_MS <= RETRY_WINDOW_MS) await later(deps, job, PAUSED_RECHECK_MS);
    else await settle(deps, delivery, job.attempt - 1, { status: 'exhausted', response_status: delivery.response_status, last_error: 'subscription paused until the retry window closed' });
    return 'postponed';
  }

  const timestamp = Math.floor(nowMs / 1000);
  const result = await postSigned(
    subscription.endpoint_url,
    delivery.body,
    {
      'content-type': 'application/json',
      'service-event-id': delivery.event_id,
      'service-event-type': delivery.event_type,
      'service-timestamp': String(timestamp),
      'service-signature': signatureOf(signingSecretOf(deps, subscription), timestamp, delivery.body),
      'user-agent': 'Postbox-Webhooks/1.0',
    },
    { allowPrivate: deps.config.webhookAllowPrivate },
    { timeoutMs: deps.config.webhookTimeoutMs ?? 30_000 },
  );
  if (result.ok) {
    await settle(deps, delivery, job.attempt, { status: 'succeeded', response_status: result.status });
    return 'succeeded';
  }
  const error = result.error ?? `HTTP ${result.status}`;
  const delay = retryDelayMs(job.attempt);
  if (job.attempt >= MAX_ATTEMPTS || elapsed + delay > RETRY_WINDOW_MS) {
    await settle(deps, delivery, job.attempt, { status: 'exhausted', response_status: result.status, last_error: error });
    return 'exhausted';
  }
  const nextAt = new Date(nowMs + delay).toISOString();
  if (await settle(deps, delivery, job.attempt, { status: 'failed', response_status: result.status, last_error: error, next_retry_at: nextAt })) {
    await later(deps, { ...job, attempt: job.attempt + 1 }, delay);
  }
  return 'failed';
}

/** Records an attempt's result unless another worker recorded this attempt first. */
async function settle(
  deps: WebhookDeps,
  delivery: DeliveryItem,
  attemptCount: number,
  result: { status: DeliveryItem['status']; response_status: number; last_error?: string; next_retry_at?: string },
): Promise<boolean> {
  const set = ['#status = :status', 'attempt_count = :count', 'response_status = :code', 'updated_at = :now'];
  const values: Record<string, unknown> = {
    ':status': result.status,
    ':count': attemptCount,
    ':code': result.response_status,
    ':now': deps.clock.now().toISOString(),
    ':expected': delivery.attempt_count,
  };
  if (result.last_error !== undefined) {
    set.push('last_error = :error');
    values[':error'] = result.last_error.slice(0, 500);
  }
  if (result.next_retry_at) {
    set.push('next_retry_at = :next');
    values[':next'] = result.next_retry_at;
  }
  try {
    await deps.store.update(keys.webhookDelivery(delivery.subscription_id, delivery.id), {
      expression: `SET ${set.join(', ')}${result.next_retry_at ? '' : ' REMOVE next_retry_at'}`,
      condition: 'attempt_count = :expected',
      names: { '#status': 'status' },
      values,
    });
    return true;
  } catch (error) {
    if (error instanceof ConditionFailedError) return false;
    throw error;
  }
}
