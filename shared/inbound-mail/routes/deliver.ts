// An inbound route's webhook forward: a delivery stored under the route (the webhook delivery log's
// item, in the route's own partition) and attempted as a subscription's is (shared/webhooks/deliver.ts
// attemptDelivery): signed with the route's secret, through the HttpClient port's address guard,
// retried on the webhook schedule on the webhooks queue, or its scheduler past 15 minutes.
import { attemptDelivery, isDue, retryLeftOwed, type AttemptOutcome, type WebhookDeps } from '../../webhooks/deliver';
import { DeliveryRepository } from '../../webhooks/repository';
import { getAccount } from '../../accounts/service';
import { accountHold } from '../../sending/messages/account-hold';
import type { RouteAttemptJob } from '../../webhooks/messages';
import { RouteRepository } from './repository';
import { routeSecretOf } from './service';

/**
 * One attempt of a route's forward; a deleted route stops its retries, a paused one waits, and a
 * suspended account's forward already queued ends unsent with the reason (shared/sending/messages/account-hold.ts).
 */
export async function attemptRoute(deps: WebhookDeps, job: RouteAttemptJob): Promise<AttemptOutcome> {
  const delivery = await new DeliveryRepository(deps.store).get(job.route_id, job.delivery_id);
  if (await retryLeftOwed(deps, job, delivery)) return 'failed';
  if (!isDue(delivery, job)) return 'skipped';
  const route = await new RouteRepository(deps.store).get(job.account_id, job.route_id);
  if (!route || route.destination_type !== 'webhook' || !route.forward_url) return 'skipped';
  const hold = accountHold(await getAccount(deps.store, job.account_id));
  return attemptDelivery(deps, job, delivery, {
    ...(hold ? { stoppedError: `not forwarded: ${hold.detail}` } : {}),
    url: route.forward_url,
    active: route.active,
    secret: () => routeSecretOf(deps, route),
    pausedError: 'route paused until the retry window closed',
  });
}
