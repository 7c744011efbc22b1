// Send queue consumer: each record is one message for the provider. A failure worth retrying is
// reported for that record alone; on its last receive the message is recorded `failed` instead.
// The queue also carries a spend cap's soft alert (shared/billing/spend-caps/alert.ts) and a reputation
// alert (shared/billing/reputation/alert.ts), mailed from here.
import * as z from 'zod';
import { getAccount } from '../../shared/accounts/service';
import { dispatch } from '../../shared/sending/messages/dispatch';
import { sendJob } from '../../shared/sending/messages/messages';
import { consume } from '../../shared/runtime/consume';
import { reputationAlertJob } from '../../shared/billing/reputation/alert-job';
import { sendReputationAlert } from '../../shared/billing/reputation/alert';
import { sendSoftCapAlert, softCapAlertJob } from '../../shared/billing/spend-caps/alert';

export const handler = consume('send', z.union([softCapAlertJob, reputationAlertJob, sendJob]), async (job, { container: c, finalAttempt, perBatch }) => {
  if ('kind' in job) return job.kind === 'reputation_alert' ? sendReputationAlert(c, job) : sendSoftCapAlert(c, job);
  // Whether the account may still send is read once per account and batch, not per message.
  const account = (accountId: string) => perBatch(`account:${accountId}`, () => getAccount(c.store, accountId));
  const result = await dispatch(c, job, { finalAttempt, account });
  c.logger.debug('send job handled', { messageId: job.message_id, result });
});
