// Webhook queue consumer: fan-out jobs (an event to its subscriptions) and attempt jobs (one signed
// POST). A failed attempt is not a failed record: its retry is scheduled as a new job, so SQS only
// redelivers records whose processing itself broke.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { getContainer } from '../../shared/runtime/container';
import { describeError } from '../../shared/runtime/logger';
import { attempt, fanOut, type WebhookJob } from '../../shared/webhooks/deliver';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const c = await getContainer();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  await Promise.all(
    event.Records.map(async (record) => {
      let job: WebhookJob;
      try {
        job = JSON.parse(record.body) as WebhookJob;
        if (job?.kind !== 'event' && job?.kind !== 'attempt') throw new Error('not a webhook job');
      } catch (error) {
        c.logger.error('malformed webhook job; dropped', { messageId: record.messageId, error: describeError(error) });
        return;
      }
      try {
        if (job.kind === 'event') await fanOut(c, job.envelope);
        else await attempt(c, job);
      } catch (error) {
        c.logger.warn('webhook job failed; will retry', { kind: job.kind, error: describeError(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }),
  );
  return { batchItemFailures: failures };
};
