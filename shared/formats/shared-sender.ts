// The deployment's shared sender (SHARED_EMAIL_SENDER): what sandbox mail and the service's own
// mails (test-recipient links, sign-up verification, sign-in codes, password resets) come from.
import { formatMailbox, parseMailbox } from './address';

/** The shared sender as a mailbox; undefined when the setting is not a usable address. */
export function sharedSenderMailbox(config: { sharedEmailSender: string }): string | undefined {
  const mailbox = parseMailbox(config.sharedEmailSender);
  return mailbox ? formatMailbox(mailbox) : undefined;
}
