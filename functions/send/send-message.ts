// Send queue consumer: each record is one message; failures are reported per record so SQS
// retries only those, and the last receive records `failed` rather than dropping the message.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { queues } from '../../shared/platform';
import { dispatch } from '../../shared/messages/dispatch';
import type { SendJob } from '../../shared/messages/schemas';
import { getContainer } from '../../shared/runtime/container';
import { describeError } from '../../shared/runtime/logger';

const maxReceives = queues.find((q) => q.name === 'send')?.maxReceiveCount ?? 5;

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const c = await getContainer();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let job: SendJob;
    try {
      job = JSON.parse(record.body) as SendJob;
      if (typeof job?.message_id !== 'string' || typeof job?.account_id !== 'string') throw new Error('not a send job');
    } catch (error) {
      c.logger.error('malformed send job; dropped', { messageId: record.messageId, error: describeError(error) });
      continue;
    }
    try {
      const finalAttempt = Number(record.attributes.ApproximateReceiveCount) >= maxReceives;
      await dispatch(c, job, { finalAttempt });
    } catch (error) {
      c.logger.warn('send attempt failed; will retry', { job, error: describeError(error) });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
