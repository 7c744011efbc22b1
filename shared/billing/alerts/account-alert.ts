// An alert to an account (a soft spend cap reached, a reputation step): a mail to the account's
// address when it has one, and a webhook event to its subscriptions, both keyed by the alert's id
// so a redelivered job sends each once. The send worker runs it (it already mails and publishes).
import { getAccount } from '../../accounts/service';
import type { Store } from '../../db/store';
import type { Mailer } from '../../ports/mailer';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import { publishEvent } from '../../webhooks/deliver';

export type AlertDeps = { store: Store; queue: Queue; mailer: Mailer; logger: Logger; config: { sharedEmailSender: string } };

export interface AccountAlert {
  accountId: string;
  /** The message whose acceptance or outcome raised it (the event's message_id). */
  messageId: string;
  occurredAt: string;
  /** The mail's Message-ID and the event's id, from the same alert id. */
  mailId: string;
  eventId: string;
  eventType: string;
  payload: Record<string, unknown>;
  mail: (accountName: string) => { subject: string; text: string };
  /** Logged, with `fields`, when the account has no address to mail. */
  unmailed: { note: string; fields: Record<string, unknown> };
}

export async function sendAccountAlert(deps: AlertDeps, alert: AccountAlert): Promise<void> {
  const account = await getAccount(deps.store, alert.accountId);
  if (!account) return;
  if (account.email) {
    await deps.mailer.send({ from: deps.config.sharedEmailSender, to: account.email, ...alert.mail(account.name), messageId: alert.mailId, accountId: account.id });
  } else {
    deps.logger.info(alert.unmailed.note, { accountId: account.id, ...alert.unmailed.fields });
  }
  await publishEvent(deps, {
    event_id: alert.eventId,
    event_type: alert.eventType,
    message_id: alert.messageId,
    account_id: alert.accountId,
    payload: alert.payload,
    occurred_at: alert.occurredAt,
    created_at: alert.occurredAt,
  });
}
