// Send queue consumer: each record is one message for the provider. A failure worth retrying is
// reported for that record alone; on its last receive the message is recorded `failed` instead.
import { dispatch } from '../../shared/messages/dispatch';
import { sendJob } from '../../shared/messages/messages';
import { consume } from '../../shared/runtime/consume';

export const handler = consume('send', sendJob, async (job, { container: c, finalAttempt }) => {
  const result = await dispatch(c, job, { finalAttempt });
  c.logger.debug('send job handled', { messageId: job.message_id, result });
});
