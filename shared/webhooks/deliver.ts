// Webhook delivery: every subscribable timeline event fans out to one delivery per matching active
// subscription, and each delivery is attempted, signed, through the HttpClient port (whose guard
// refuses non-public addresses), with retries at 30 s doubling (±25 %) until 2xx, 12 attempts or
// 24 hours. Short delays ride the queue's own delay; longer ones go through the scheduler, never a
// sleeping function.
import { hmacSha256 } from '../crypto/crypto';
import { wrote, type Store } from '../db/store';
import type { Clock } from '../ports/clock';
import type { HttpClient } from '../ports/http-client';
import type { Metrics } from '../ports/metrics';
import type { Queue } from '../ports/queue';
import type { Random } from '../ports/random';
import type { Scheduler } from '../ports/scheduler';
import type { Secrets } from '../ports/secrets';
import type { Logger } from '../ports/logger';
import type { AttemptJob, WebhookEnvelope, WebhookJob } from './messages';
import { isSubscribable, matches } from './model';
import { DeliveryRepository, SubscriptionRepository, type AttemptRecord, type DeliveryItem, type SubscriptionItem } from './repository';
import { allSubscriptions, listMatchingSubscriptions, signingSecretOf } from './subscriptions';
import type { PerBatch } from '../concurrency';

export const MAX_ATTEMPTS = 12;
export const RETRY_WINDOW_MS = 24 * 3600_000;
export const BASE_DELAY_MS = 30_000;
const MAX_QUEUE_DELAY_S = 900; // SQS's own limit
const PAUSED_RECHECK_MS = 15 * 60_000;
/** How long the delivery log keeps a delivery (its items' TTL). */
export const LOG_RETENTION_S = 30 * 24 * 3600;
const DEFAULT_TIMEOUT_MS = 30_000;

export interface WebhookDeps {
  store: Store;
  clock: Clock;
  queue: Queue;
  scheduler: Scheduler;
  secrets: Pick<Secrets, 'get'>;
  http: HttpClient;
  random: Random;
  logger: Logger;
  metrics: Metrics;
  config: { webhookTimeoutMs?: number };
}

/**
 * Hands a recorded event to the webhook queue when some active subscription wants it. Asking
 * first costs one small Query and spares accounts without webhooks a queue message and a
 * function run per event. An eventually consistent one (half the read units): a subscription made
 * within the moment before the event may miss it (docs/api-decisions.md). The job names the
 * subscriptions that took the event, so the fan-out reads them no second time. A consumer's batch
 * asks once per account for all its records (a subscription made while the batch runs, a few
 * seconds at most, may miss them likewise).
 */
export async function publishEvent(deps: { store: Store; queue: Queue; perBatch?: PerBatch }, envelope: Omit<WebhookEnvelope, 'event_type'> & { event_type: string }): Promise<void> {
  const { event_type: type } = envelope;
  if (!isSubscribable(type)) return;
  const subscriptions = await subscriptionsOf(deps, envelope.account_id);
  const taking = subscriptions.filter((s) => matches(s, type)).map((s) => s.id);
  if (taking.length === 0) return;
  await deps.queue.send('webhooks', { kind: 'event', envelope: { ...envelope, event_type: type }, subscription_ids: taking } satisfies WebhookJob);
}

/**
 * The account's subscriptions as publishEvent reads them (eventually consistent). In a consumer's
 * batch (the send worker's, the ses-events and inbound consumers') they are looked up once for all
 * its records, and a caller may start the look-up beside its own reads before it publishes.
 */
export function subscriptionsOf(deps: { store: Store; perBatch?: PerBatch }, accountId: string): Promise<SubscriptionItem[]> {
  const lookUp = () => allSubscriptions(deps.store, accountId, { consistent: false });
  return deps.perBatch ? deps.perBatch(`webhook-subscriptions#${accountId}`, lookUp) : lookUp();
}

/** The delay before the retry that follows attempt `attemptsMade`: 30 s doubling, ±25 % jitter. */
export function retryDelayMs(attemptsMade: number, random: Random): number {
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

/**
 * One delivery per matching subscription; a repeated event finds its deliveries already there.
 * Answers how many attempts it queued. `subscriptionIds`: those publishEvent found taking the event
 * (its job names them), so they are not read again; without them they are read here. A
 * subscription deleted or paused since is met by its attempt (skipped, or postponed while paused).
 */
export async function fanOut(deps: WebhookDeps, envelope: WebhookEnvelope, subscriptionIds?: readonly string[]): Promise<number> {
  const deliveries = new DeliveryRepository(deps.store);
  const subscriptions = subscriptionIds
    ? [...new Set(subscriptionIds)].map((id) => ({ id, account_id: envelope.account_id }))
    : await listMatchingSubscriptions(deps.store, envelope.account_id, envelope.event_type);
  const now = deps.clock.now().toISOString();
  // The delivery log is kept for 30 days (DynamoDB's TTL removes it; the local store keeps it).
  const expiresAt = Math.floor(deps.clock.now().getTime() / 1000) + LOG_RETENTION_S;
  const jobs: AttemptJob[] = [];
  for (const sub of subscriptions) {
    const deliveryId = deliveryIdFor(envelope.event_id);
    const created = await deliveries.create({
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
    });
    if (!created) {
      // Already there: only a delivery that never got its first attempt is started again.
      const existing = await deliveries.get(sub.id, deliveryId);
      if (existing && existing.attempt_count > 0) continue;
    }
    jobs.push({ kind: 'attempt', account_id: sub.account_id, subscription_id: sub.id, delivery_id: deliveryId, attempt: 1 });
  }
  await deps.queue.sendBatch('webhooks', jobs);
  return jobs.length;
}

/** A job that attempts one stored delivery: a subscription's (AttemptJob) or an inbound route's. */
type DeliveryJob = WebhookJob & { delivery_id: string; attempt: number };

async function later(deps: WebhookDeps, job: DeliveryJob, delayMs: number): Promise<void> {
  const seconds = Math.ceil(delayMs / 1000);
  if (seconds <= MAX_QUEUE_DELAY_S) {
    await deps.queue.send('webhooks', job, { delaySeconds: seconds });
    return;
  }
  // Not written means an earlier try of this job scheduled it already.
  await wrote(deps.scheduler.schedule({ id: `${job.delivery_id}-${job.attempt}`, at: new Date(deps.clock.now().getTime() + delayMs), queue: 'webhooks', body: job }));
}

export type AttemptOutcome = 'succeeded' | 'failed' | 'exhausted' | 'postponed' | 'skipped';

export async function attempt(deps: WebhookDeps, job: AttemptJob): Promise<AttemptOutcome> {
  const deliveries = new DeliveryRepository(deps.store);
  const delivery = await deliveries.get(job.subscription_id, job.delivery_id);
  if (await retryLeftOwed(deps, job, delivery)) return 'failed';
  if (!isDue(delivery, job)) return 'skipped';
  const subscription = await new SubscriptionRepository(deps.store).get(job.account_id, job.subscription_id);
  if (!subscription) return 'skipped'; // deleted: its retries stop
  return attemptDelivery(deps, job, delivery, {
    url: subscription.endpoint_url,
    active: subscription.is_active,
    secret: () => signingSecretOf(deps, subscription),
    pausedError: 'subscription paused until the retry window closed',
  });
}

/**
 * This job's attempt failed and was recorded, and the attempt died before it queued the retry (a
 * kill between the two writes; the job came back because it was never acknowledged): the retry is
 * queued now, for the time recorded, instead of the delivery stopping there. True when it was. A
 * job that did queue its retry and comes back anyway queues it twice; the two retry jobs then make
 * at most one extra POST (at least once, as the spec promises), since only one records its outcome.
 */
export async function retryLeftOwed(deps: WebhookDeps, job: DeliveryJob, delivery: DeliveryItem | undefined): Promise<boolean> {
  if (!delivery || delivery.status !== 'failed' || delivery.attempt_count !== job.attempt || !delivery.next_retry_at) return false;
  await later(deps, { ...job, attempt: job.attempt + 1 }, Math.max(0, Date.parse(delivery.next_retry_at) - deps.clock.now().getTime()));
  return true;
}

/** The stored delivery a job names is still waiting for exactly this attempt. */
export const isDue = (delivery: DeliveryItem | undefined, job: { attempt: number }): delivery is DeliveryItem =>
  delivery !== undefined && delivery.attempt_count === job.attempt - 1 && delivery.status !== 'succeeded' && delivery.status !== 'exhausted';

/** Where a stored delivery goes: a subscription's endpoint or an inbound route's forward_url. */
export interface DeliveryTarget {
  url: string;
  /** Paused: no attempt is spent; the job looks again later, within the retry window. */
  active: boolean;
  /** Read only when an attempt is made. */
  secret: () => string;
  pausedError: string;
  /** Set when nothing more may leave for the account (suspended): the delivery ends at once with it, unsent. */
  stoppedError?: string;
}

/**
 * One attempt of a stored delivery: POSTed signed to its target through the HttpClient port (its
 * address guard), the outcome recorded, and the next attempt queued on the retry schedule (30 s
 * doubling, ±25 %, MAX_ATTEMPTS or RETRY_WINDOW_MS). Subscriptions and inbound routes share it.
 */
export async function attemptDelivery(deps: WebhookDeps, job: DeliveryJob, delivery: DeliveryItem, target: DeliveryTarget): Promise<AttemptOutcome> {
  const deliveries = new DeliveryRepository(deps.store);
  const nowMs = deps.clock.now().getTime();
  const elapsed = nowMs - Date.parse(delivery.created_at);
  const record = (result: Omit<AttemptRecord, 'updated_at'>): Promise<boolean> =>
    deliveries.recordAttempt(delivery, { ...result, updated_at: deps.clock.now().toISOString() });
  if (target.stoppedError !== undefined) {
    await record({ status: 'exhausted', attempt_count: job.attempt - 1, response_status: delivery.response_status, last_error: target.stoppedError });
    return 'exhausted';
  }
  if (!target.active) {
    if (elapsed + PAUSED_RECHECK_MS <= RETRY_WINDOW_MS) await later(deps, job, PAUSED_RECHECK_MS);
    else await record({ status: 'exhausted', attempt_count: job.attempt - 1, response_status: delivery.response_status, last_error: target.pausedError });
    return 'postponed';
  }

  const result = await deps.http.post(target.url, {
    headers: signedHeaders(delivery, target.secret(), Math.floor(nowMs / 1000)),
    body: delivery.body,
    timeoutMs: deps.config.webhookTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  // Each POST's outcome is counted once, by the job whose write recorded it: a repeated job that
  // posted again but lost the race to record counts nothing.
  if (result.ok) {
    if (await record({ status: 'succeeded', attempt_count: job.attempt, response_status: result.status })) deps.metrics.count('WebhooksDelivered');
    return 'succeeded';
  }
  const error = result.error ?? `HTTP ${result.status}`;
  const delay = retryDelayMs(job.attempt, deps.random);
  if (job.attempt >= MAX_ATTEMPTS || elapsed + delay > RETRY_WINDOW_MS) {
    if (await record({ status: 'exhausted', attempt_count: job.attempt, response_status: result.status, last_error: error })) deps.metrics.count('WebhooksFailed');
    return 'exhausted';
  }
  const nextRetryAt = new Date(nowMs + delay).toISOString();
  if (await record({ status: 'failed', attempt_count: job.attempt, response_status: result.status, last_error: error, next_retry_at: nextRetryAt })) {
    deps.metrics.count('WebhooksFailed');
    await later(deps, { ...job, attempt: job.attempt + 1 }, delay);
  }
  return 'failed';
}

function signedHeaders(delivery: DeliveryItem, secret: string, timestamp: number): Record<string, string> {
  return {
    'content-type': 'application/json',
    'service-event-id': delivery.event_id,
    'service-event-type': delivery.event_type,
    'service-timestamp': String(timestamp),
    'service-signature': signatureOf(secret, timestamp, delivery.body),
    'user-agent': 'Postbox-Webhooks/1.0',
  };
}
