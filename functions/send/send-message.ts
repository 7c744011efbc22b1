// Send queue consumer: each record is one message for the provider. A failure worth retrying is
// reported for that record alone; on its last receive the message is recorded `failed` instead.
// The queue also carries a spend cap's soft alert (shared/billing/spend-caps/alert.ts) and a reputation
// alert (shared/billing/reputation/alert.ts), mailed from here.
//
// A batch's messages share what they can: the account read, the suppressions and webhook
// subscriptions looked up, and the reputation's send counts, summed per item and written once when
// every record is handled (shared/db/tally.ts). Each count is added only for an event stored for
// the first time, so a redelivered batch adds nothing. Usage (billed) and a broadcast's `sent`
// (shown) are written with each send, so a kill -9 mid-batch loses at most the counts of the sends
// being recorded at that instant, as before; it would lose a whole batch's reputation sends, a
// statistic's denominator (docs/api-decisions.md).
import * as z from 'zod';
import { getAccount } from '../../shared/accounts/service';
import { dispatch } from '../../shared/sending/messages/dispatch';
import { sendJob, type SendJob } from '../../shared/sending/messages/messages';
import type { MessageItem } from '../../shared/sending/messages/model';
import { findSuppression, readSuppressionsOf } from '../../shared/sending/suppressions/service';
import { consume, type Delivery } from '../../shared/runtime/consume';
import type { Container } from '../../shared/runtime/container';
import { BatchTally } from '../../shared/db/tally';
import { describeError } from '../../shared/adapters/logger';
import { reputationAlertJob } from '../../shared/billing/reputation/alert-job';
import { sendReputationAlert } from '../../shared/billing/reputation/alert';
import { sendSoftCapAlert, softCapAlertJob } from '../../shared/billing/spend-caps/alert';

/** The batch's counters, written once its records are handled; a failed write is logged with what it lost. */
function batchTally(c: Container, { perBatch, afterBatch }: Pick<Delivery, 'perBatch' | 'afterBatch'>): Promise<BatchTally> {
  return perBatch('tally', async () => {
    const tally = new BatchTally();
    afterBatch('tally', async () => {
      for (const { counter, error } of await tally.flush(c.store)) {
        c.logger.error('a send batch could not write a counter; its adds are lost', { key: counter.key, add: counter.add, error: describeError(error) });
      }
    });
    return tally;
  });
}

/**
 * Whether a message's recipient is suppressed: the batch's recipients, named by their jobs, are
 * read at once on the first ask; one its job did not name (an older job) is read on its own.
 */
function suppressedIn(c: Container, { perBatch, jobs }: Pick<Delivery<unknown>, 'perBatch' | 'jobs'>): (message: MessageItem) => Promise<boolean> {
  const named = jobs.flatMap((j) => {
    const job = j as Partial<SendJob>;
    return job.account_id && job.channel && job.recipient ? [{ account_id: job.account_id, channel: job.channel, recipient: job.recipient }] : [];
  });
  return async (message) => {
    const known = (await perBatch('suppressions', () => readSuppressionsOf(c.store, named)))(message.account_id, message.channel, message.recipient);
    return known ?? Boolean(await findSuppression(c.store, message.account_id, message.channel, message.recipient));
  };
}

export const handler = consume('send', z.union([softCapAlertJob, reputationAlertJob, sendJob]), async (job, delivery) => {
  const { container: c, finalAttempt, perBatch } = delivery;
  if ('kind' in job) return job.kind === 'reputation_alert' ? sendReputationAlert(c, job) : sendSoftCapAlert(c, job);
  // Whether the account may still send is read once per account and batch, not per message.
  const account = (accountId: string) => perBatch(`account:${accountId}`, () => getAccount(c.store, accountId));
  const tally = await batchTally(c, delivery);
  const suppressed = suppressedIn(c, delivery);
  const result = await dispatch({ ...c, tally, perBatch }, job, { finalAttempt, account, suppressed });
  c.logger.debug('send job handled', { messageId: job.message_id, result });
});
