// The queue consumers as the tests run them: each under its manifest needs (underNeeds), as call()
// runs the HTTP routes, so a consumer reaching past its grants fails here as it would in AWS.
import { handler as fanOutRaw } from '../../functions/broadcasts/fan-out';
import { handler as ingestSesEventRaw } from '../../functions/events/ingest-ses-event';
import { handler as sendWorkerRaw } from '../../functions/send/send-message';
import { handler as deliverWebhookRaw } from '../../functions/webhooks/deliver-webhook';
import type { TestContainer } from './container';
import { underNeeds } from './grants';
import { sqsEvent, sqsRecord } from './sqs';

export const sendWorker = underNeeds('functions/send/send-message.ts', sendWorkerRaw);
export const fanOut = underNeeds('functions/broadcasts/fan-out.ts', fanOutRaw);
export const ingestSesEvent = underNeeds('functions/events/ingest-ses-event.ts', ingestSesEventRaw);
export const deliverWebhook = underNeeds('functions/webhooks/deliver-webhook.ts', deliverWebhookRaw);

/**
 * Runs the next due webhook attempt: from the webhooks queue (moving the clock by the job's delay)
 * or, for delays too long for the queue, through the scheduler at `nextRetryAt()` (the delivery's
 * next_retry_at). False when nothing is due.
 */
export async function nextWebhookAttempt(c: TestContainer, nextRetryAt: () => Promise<string | null | undefined>): Promise<boolean> {
  const queued = c.sent.findIndex((s) => s.queue === 'webhooks');
  if (queued >= 0) {
    const [job] = c.sent.splice(queued, 1);
    c.clock.advance((job?.delaySeconds ?? 0) * 1000);
    await deliverWebhook(sqsEvent([sqsRecord(job?.body)]));
    return true;
  }
  const next = await nextRetryAt();
  if (!next) return false;
  c.clock.set(new Date(Date.parse(next) + 1000));
  if ((await c.scheduler.fireDue(c.clock.now(), c.queue)) === 0) return false;
  return nextWebhookAttempt(c, nextRetryAt);
}
