// SES notifications from the ses-events queue onto message timelines, one record at a time so two
// events of one message stay in order. A notification with nothing to attach to (an untracked
// type, an unknown message, another account's tag) is logged and done: retrying cannot help.
// A batch's records share their accounts' webhook subscription lookups (one per account and batch,
// as in the send worker). Its counters are not summed per batch: a delivery moves none, and a hard
// bounce or complaint is counted where its reputation window is judged, which must see the count.
import { sesEventMessage, type SesEventMessage } from '../../shared/sending/ses-events/messages';
import { ingestSesEvent, type SesEventResult } from '../../shared/sending/ses-events/service';
import { consume } from '../../shared/runtime/consume';
import type { Logger } from '../../shared/ports/logger';

export const handler = consume('ses-events', sesEventMessage, async (notification, { container: c, recordId, perBatch }) => {
  const result = await ingestSesEvent({ ...c, perBatch }, notification);
  logOutcome(c.logger, { sqsMessageId: recordId, ...about(notification) }, result);
});

const about = (n: SesEventMessage): Record<string, unknown> =>
  n.kind === 'event'
    ? { sesType: n.event.sesType, providerEventId: n.event.providerEventId, providerMessageId: n.event.providerMessageId }
    : { sesType: n.sesType, reason: n.reason };

function logOutcome(logger: Logger, fields: Record<string, unknown>, result: SesEventResult): void {
  switch (result.outcome) {
    case 'ignored':
      logger.debug('ses event ignored', fields);
      return;
    case 'unknown_message':
      logger.warn('ses event dropped: no such message', { ...fields, messageId: result.messageId });
      return;
    case 'account_mismatch':
      logger.warn('ses event dropped: account tag does not match the message', {
        ...fields,
        messageId: result.messageId,
        accountId: result.accountId,
        taggedAccountId: result.taggedAccountId,
      });
      return;
    case 'recorded':
    case 'duplicate':
      logger.info(result.outcome === 'recorded' ? 'ses event recorded' : 'ses event already on the timeline', {
        ...fields,
        messageId: result.messageId,
        eventId: result.eventId,
        type: result.type,
        suppressed: result.suppressed,
      });
  }
}
