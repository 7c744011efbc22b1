// Webhook queue consumer: fan-out jobs (an event to its subscriptions) and attempt jobs (one signed
// POST). A failed attempt is not a failed record: its retry is scheduled as a new job, so SQS only
// redelivers records whose processing itself broke. Jobs are independent, so a batch runs at once.
import { attemptRoute } from '../../shared/inbound-mail/routes/deliver';
import { consume } from '../../shared/runtime/consume';
import { attempt, fanOut } from '../../shared/webhooks/deliver';
import { webhookJob } from '../../shared/webhooks/messages';

export const handler = consume(
  'webhooks',
  webhookJob,
  async (job, { container }) => {
    if (job.kind === 'event') {
      await fanOut(container, job.envelope, job.subscription_ids);
      return;
    }
    if (job.kind === 'route_attempt') {
      const outcome = await attemptRoute(container, job);
      if (outcome === 'skipped') container.logger.debug('inbound route attempt skipped', { delivery_id: job.delivery_id, attempt: job.attempt });
      return;
    }
    const outcome = await attempt(container, job);
    // A stale or repeated job, or a deleted subscription: nothing to do, and nothing to retry.
    if (outcome === 'skipped') container.logger.debug('webhook attempt skipped', { delivery_id: job.delivery_id, attempt: job.attempt });
  },
  { order: 'parallel' },
);
