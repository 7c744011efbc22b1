// The send worker's part of a reputation alert: a mail to the account's address from the shared
// sender (the service's own mail: no message, no usage) and an `account.reputation_warning`
// webhook event whose id is the account's and step's, so a redelivered job delivers it once.
import { sendAccountAlert, type AlertDeps } from '../alerts/account-alert';
import { REPUTATION_EVENT, type ReputationAlertJob } from './alert-job';
import { policyOf, type ReputationPolicy } from './policy';

const percent = (rate: number): string => `${(rate * 100).toFixed(2)}%`;

function alertMail(job: ReputationAlertJob, accountName: string, p: ReputationPolicy): { subject: string; text: string } {
  const days = p.windowHours / 24;
  const head =
    job.state === 'paused'
      ? `Live sending from ${accountName} is paused: its bounce or complaint rate over the last ${days} days passed the pause level.`
      : `${accountName} is close to having its live sending paused: its bounce or complaint rate over the last ${days} days passed the warning level.`;
  const text = [
    head,
    '',
    `Live email sends: ${job.sends}; hard bounces: ${job.bounces} (${percent(job.bounce_rate)}); complaints: ${job.complaints} (${percent(job.complaint_rate)}).`,
    `Warning at ${percent(p.warnBounceRate)} bounces or ${percent(p.warnComplaintRate)} complaints; pause at ${percent(p.pauseBounceRate)} or ${percent(p.pauseComplaintRate)}.`,
    '',
    job.state === 'paused'
      ? 'New live sends are refused with 403 sending_paused, and live mail already queued or scheduled is not sent (it fails with reason sending_paused), until our staff lift the pause. Reply to this mail or contact support.'
      : 'Clean your lists (remove addresses that bounce, send only to people who asked for mail). GET /v1/usage shows the rates.',
    '',
  ].join('\n');
  return { subject: job.state === 'paused' ? 'Live sending paused: bounce or complaint rate too high' : 'Warning: bounce or complaint rate is high', text };
}

export async function sendReputationAlert(deps: AlertDeps & { config: { reputation?: ReputationPolicy } }, job: ReputationAlertJob): Promise<void> {
  const alertId = `${job.account_id}_${job.state}_${job.occurred_at.replace(/[^0-9]/g, '')}`;
  await sendAccountAlert(deps, {
    accountId: job.account_id,
    messageId: job.message_id,
    occurredAt: job.occurred_at,
    mailId: `alert_rep_${alertId}`,
    eventId: `evt_rep_${alertId}`,
    eventType: REPUTATION_EVENT,
    payload: { state: job.state, sends: job.sends, bounces: job.bounces, complaints: job.complaints, bounce_rate: job.bounce_rate, complaint_rate: job.complaint_rate },
    mail: (accountName) => alertMail(job, accountName, policyOf(deps.config)),
    unmailed: { note: 'reputation alert; the account has no address to mail', fields: { state: job.state } },
  });
}
