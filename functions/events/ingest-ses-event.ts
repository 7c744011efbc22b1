// SES notifications from the ses-events queue onto message timelines. Each record stands alone:
// one that throws is reported back so SQS retries it (and, after maxReceiveCount, moves it to the
// DLQ); one that cannot be used (unreadable, untracked type, unknown message) is logged and
// dropped, because retrying it cannot help.
import type { SQSBatchItemFailure, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { ingestSesNotification } from '../../shared/events/service';
import { parseSesNotification } from '../../shared/events/ses-notification';
import { getContainer, type Container } from '../../shared/runtime/container';
import { describeError } from '../../shared/runtime/logger';

async function ingestRecord(c: Container, record: SQSRecord): Promise<void> {
  const sqsMessageId = record.messageId;
  const parsed = parseSesNotification(record.body);
  if (parsed.kind === 'invalid') {
    c.logger.warn('ses event dropped: unreadable', { sqsMessageId, reason: parsed.reason, body: record.body.slice(0, 2000) });
    return;
  }
  if (parsed.kind === 'ignore') {
    c.logger.debug('ses event ignored', { sqsMessageId, reason: parsed.reason, sesType: parsed.sesType });
    return;
  }
  const { event } = parsed;
  const result = await ingestSesNotification(c, event);
  const fields = { sqsMessageId, sesType: event.sesType, providerEventId: event.providerEventId, providerMessageId: event.providerMessageId };
  switch (result.outcome) {
    case 'unknown_message':
      c.logger.warn('ses event dropped: no such message', { ...fields, messageId: result.messageId });
      return;
    case 'account_mismatch':
      c.logger.warn('ses event dropped: account tag does not match the message', {
        ...fields,
        messageId: result.messageId,
        accountId: result.accountId,
        taggedAccountId: result.taggedAccountId,
      });
      return;
    case 'recorded':
    case 'duplicate':
      c.logger.info(result.outcome === 'recorded' ? 'ses event recorded' : 'ses event already on the timeline', {
        ...fields,
        messageId: result.messageId,
        eventId: result.eventId,
        type: result.type,
        suppressed: result.suppressed,
      });
  }
}

export const handler = async (event: SQSEvent): Promise<SQSBatchResponse> => {
  const c = await getContainer();
  const batchItemFailures: SQSBatchItemFailure[] = [];
  // One at a time: a batch is at most ten records, and two events of one message stay in order.
  for (const record of event.Records) {
    try {
      await ingestRecord(c, record);
    } catch (error) {
      c.logger.error('ses event failed; SQS will deliver it again', { sqsMessageId: record.messageId, error: describeError(error) });
      batchItemFailures.push({ itemIdentifier: record.messageId });
    }
  }
  return { batchItemFailures };
};
