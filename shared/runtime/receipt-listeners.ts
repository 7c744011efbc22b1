// The receipt's listeners, wired here at the composition root so the receipt does not import the
// areas that act on a received email (docs/architecture.md, "Events and their listeners"): the Mail
// app files it and the account's routes forward it. Only the inbound consumer imports this file.
import { forwardInbound, type ForwardDeps } from '../inbound-mail/routes/forward';
import type { ReceiptListeners } from '../inbound-mail/receipt/receive';
import { recordInboundMail } from '../inbound-mail/mailbox/record';
import { MailSettingsRepository } from '../inbound-mail/mailbox/settings-repository';
import type { Logger } from '../ports/logger';

export function receiptListeners(c: ForwardDeps & { logger: Logger }): ReceiptListeners {
  return {
    inboxOf: async (accountId, address) => (await new MailSettingsRepository(c.store).inboxAt(accountId, address))?.id ?? null,
    received: [
      (email, text) => recordInboundMail(c, email, text),
      async (email, text) => {
        // The stored email as it is, its text, and the raw message's size (so a forward never reads the raw to learn it).
        const outcome = await forwardInbound(c, { ...email, text, raw_size: email.size_bytes });
        if (outcome.kind !== 'unrouted') c.logger.info('inbound email forwarded by a route', { inboundId: email.id, outcome: outcome.kind });
      },
    ],
  };
}
