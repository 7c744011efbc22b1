// The soft cap's alert: the first reservation that finds the period's spend at or past a soft cap
// marks the cap (one conditional write per cap and period) and hands this job to the send queue;
// the send worker, which already mails and publishes webhook events, mails the account's address
// and publishes `usage.soft_cap_reached`. The API functions need no mail permission for it.
import { sendAccountAlert, type AlertDeps } from '../alerts/account-alert';
import type { Store } from '../../db/store';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import * as z from 'zod';
import { SpendCapRepository, type SpendCapItem } from './repository';

export const SOFT_CAP_EVENT = 'usage.soft_cap_reached';

export const softCapAlertJob = z.object({
  kind: z.literal('soft_cap_alert'),
  account_id: z.string().min(1),
  spend_cap_id: z.string().min(1),
  key_id: z.string().nullable(),
  period: z.string(),
  soft_limit_micros: z.number().int(),
  spent_micros: z.number().int(),
  /** The send whose reservation reached the cap. */
  message_id: z.string().min(1),
  occurred_at: z.string(),
});
export type SoftCapAlertJob = z.infer<typeof softCapAlertJob>;

/** Marks and hands on the alert unless this cap's alert of the period went already. */
export async function alertIfReached(
  deps: { store: Store; queue: Queue; logger: Logger },
  cap: SpendCapItem | undefined,
  spent: number,
  at: { period: string; messageId: string; now: string },
): Promise<void> {
  if (!cap || cap.soft_limit_micros === null || cap.soft_limit_micros === undefined || spent < cap.soft_limit_micros) return;
  if (cap.soft_alert_period === at.period) return;
  const caps = new SpendCapRepository(deps.store);
  if (!(await caps.markSoftAlert(cap.account_id, cap.key_id, at.period))) return;
  const job: SoftCapAlertJob = {
    kind: 'soft_cap_alert',
    account_id: cap.account_id,
    spend_cap_id: cap.id,
    key_id: cap.key_id,
    period: at.period,
    soft_limit_micros: cap.soft_limit_micros,
    spent_micros: spent,
    message_id: at.messageId,
    occurred_at: at.now,
  };
  try {
    await deps.queue.send('send', job);
  } catch (error) {
    // The send stands; the mark goes, so the next reservation past the cap tries again.
    deps.logger.warn('soft cap alert not handed on; the next send past the cap retries it', { accountId: cap.account_id, capId: cap.id, error });
    await caps.unmarkSoftAlert(cap.account_id, cap.key_id, at.period).catch(() => undefined);
  }
}

/** Whole cents as cents ($12.50), anything finer to the micro-dollar ($0.000200). */
const dollars = (micros: number): string => `$${(micros / 1e6).toFixed(micros % 10_000 === 0 ? 2 : 6)}`;

function alertMail(job: SoftCapAlertJob, accountName: string): { subject: string; text: string } {
  const what = job.key_id === null ? 'your account' : `API key ${job.key_id}`;
  const text = [
    `The estimated spend of ${what} on ${accountName} reached its soft cap for ${job.period}:`,
    `${dollars(job.spent_micros)} spent against a soft cap of ${dollars(job.soft_limit_micros)}.`,
    '',
    'Sending goes on. A hard cap (PUT /v1/spend-caps with hard_limit_micros) stops sends at the amount you choose;',
    'GET /v1/usage shows the period so far. This is the only soft-cap alert of this cap for the period.',
    '',
  ].join('\n');
  return { subject: `Soft spend cap reached for ${job.period}`, text };
}

/**
 * The send worker's part: the mail to the account's address (from the shared sender; the service's
 * own mail, so no message and no usage) and the webhook event. The event's id is the cap's and
 * period's, so a redelivered job delivers it once.
 */
export async function sendSoftCapAlert(deps: AlertDeps, job: SoftCapAlertJob): Promise<void> {
  const alertId = `${job.spend_cap_id}_${job.period}`;
  await sendAccountAlert(deps, {
    accountId: job.account_id,
    messageId: job.message_id,
    occurredAt: job.occurred_at,
    mailId: `alert_${alertId}`,
    eventId: `evt_softcap_${alertId}`,
    eventType: SOFT_CAP_EVENT,
    payload: { spend_cap_id: job.spend_cap_id, key_id: job.key_id, period: job.period, soft_limit_micros: job.soft_limit_micros, spent_micros: job.spent_micros },
    mail: (accountName) => alertMail(job, accountName),
    unmailed: { note: 'soft cap reached; the account has no address to mail', fields: { capId: job.spend_cap_id } },
  });
}
