// Fanout queue consumer: each record is one recipient chunk of a broadcast. A failed chunk is
// reported alone so SQS retries only it; a re-run sends and counts nothing twice. After the last
// receive the job rests in the queue's DLQ, from where it can be redriven.
import type { SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { fanOutChunk } from '../../shared/broadcasts/fan-out';
import { fanOutJob, type FanOutJob } from '../../shared/broadcasts/messages';
import { getContainer } from '../../shared/runtime/container';
import { describeError } from '../../shared/runtime/logger';

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const c = await getContainer();
  const failures: SQSBatchResponse['batchItemFailures'] = [];
  for (const record of event.Records) {
    let job: FanOutJob;
    try {
      job = fanOutJob.parse(JSON.parse(record.body));
    } catch (error) {
      c.logger.error('malformed fanout job; dropped', { messageId: record.messageId, error: describeError(error) });
      continue;
    }
    try {
      const result = await fanOutChunk(c, job);
      if (result.kind === 'missing') c.logger.error('fanout job names no stored broadcast or chunk; dropped', { job });
      else if (result.kind === 'counted') c.logger.info('broadcast chunk sent', { job, ...result.tally, failures: result.failures });
    } catch (error) {
      c.logger.warn('fanout chunk failed; will retry', { job, error: describeError(error) });
      failures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures: failures };
};
