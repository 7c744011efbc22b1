// An inbound route's webhook forward: a delivery stored under the route (the webhook delivery log's
// item, in the route's own partition) and attempted like a subscription's: signed with the route's
// secret, through the HttpClient port's address guard, retried on the webhook schedule (30 s
// doubling, ±25 %, 12 attempts or 24 hours) on the webhooks queue, or its scheduler past 15 minutes.
import { wrote } from '../db/store';
import { DeliveryRepository, type AttemptRecord } from '../webhooks/repository';
import { MAX_ATTEMPTS, RETRY_WINDOW_MS, retryDelayMs, signatureOf, type AttemptOutcome, type WebhookDeps } from '../webhooks/deliver';
import type { WebhookJob } from '../webhooks/messages';
import type { RouteAttemptJob } from './messages';
import { RouteRepository } from './repository';
import { routeSecretOf } from './service';

const MAX_QUEUE_DELAY_S = 900; // SQS's own limit
const PAUSED_RECHECK_MS = 15 * 60_000;
const DEFAULT_TIMEOUT_MS = 30_000;

async function later(deps: WebhookDeps, job: RouteAttemptJob, delayMs: number): Promise<void> {
  const seconds = Math.ceil(delayMs / 1000);
  if (seconds <= MAX_QUEUE_DELAY_S) {
    await deps.queue.send('webhooks', job satisfies WebhookJob, { delaySeconds: seconds });
    return;
  }
  // Not written means an earlier try of this job scheduled it already.
  await wrote(deps.scheduler.schedule({ id: `${job.delivery_id}-${job.attempt}`, at: new Date(deps.clock.now().getTime() + delayMs), queue: 'webhooks', body: job }));
}

/** One attempt of a route's forward; a deleted route stops its retries, a paused one waits. */
export async function attemptRoute(deps: WebhookDeps, job: RouteAttemptJob): Promise<AttemptOutcome> {
  const deliveries = new DeliveryRepository(deps.store);
  const delivery = await deliveries.get(job.route_id, job.delivery_id);
  if (!delivery || delivery.attempt_count !== job.attempt - 1 || delivery.status === 'succeeded' || delivery.status === 'exhausted') return 'skipped';
  const route = await new RouteRepository(deps.store).get(job.account_id, job.route_id);
  if (!route || route.destination_type !== 'webhook' || !route.forward_url) return 'skipped';
  const nowMs = deps.clock.now().getTime();
  const elapsed = nowMs - Date.parse(delivery.created_at);
  const record = (result: Omit<AttemptRecord, 'updated_at'>): Promise<boolean> =>
    deliveries.recordAttempt(delivery, { ...result, updated_at: deps.clock.now().toISOString() });
  if (!route.active) {
    if (elapsed + PAUSED_RECHECK_MS <= RETRY_WINDOW_MS) await later(deps, job, PAUSED_RECHECK_MS);
    else await record({ status: 'exhausted', attempt_count: job.attempt - 1, response_status: delivery.response_status, last_error: 'route paused until the retry window closed' });
    return 'postponed';
  }
  const timestamp = Math.floor(nowMs / 1000);
  const result = await deps.http.post(route.forward_url, {
    headers: {
      'content-type': 'application/json',
      'service-event-id': delivery.event_id,
      'service-event-type': 'email.received',
      'service-timestamp': String(timestamp),
      'service-signature': signatureOf(routeSecretOf(deps, route), timestamp, delivery.body),
      'user-agent': 'Postbox-Webhooks/1.0',
    },
    body: delivery.body,
    timeoutMs: deps.config.webhookTimeoutMs ?? DEFAULT_TIMEOUT_MS,
  });
  if (result.ok) {
    await record({ status: 'succeeded', attempt_count: job.attempt, response_status: result.status });
    return 'succeeded';
  }
  const error = result.error ?? `HTTP ${result.status}`;
  const delay = retryDelayMs(job.attempt, deps.random);
  if (job.attempt >= MAX_ATTEMPTS || elapsed + delay > RETRY_WINDOW_MS) {
    await record({ status: 'exhausted', attempt_count: job.attempt, response_status: result.status, last_error: error });
    return 'exhausted';
  }
  if (await record({ status: 'failed', attempt_count: job.attempt, response_status: result.status, last_error: error, next_retry_at: new Date(nowMs + delay).toISOString() })) {
    await later(deps, { ...job, attempt: job.attempt + 1 }, delay);
  }
  return 'failed';
}
