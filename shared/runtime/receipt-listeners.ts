// The receipt's listeners, wired here at the composition root so the receipt does not import the
// areas that act on a received email (docs/architecture.md, "Events and their listeners"): the Mail
// app files it and the account's routes forward it. Only the inbound consumer imports this file.
import { forwardInbound, routesOf, type ForwardDeps } from '../inbound-mail/routes/forward';
import type { ReceiptListeners } from '../inbound-mail/receipt/receive';
import { recordInboundMail } from '../inbound-mail/mailbox/record';
import { MailSettingsRepository } from '../inbound-mail/mailbox/settings-repository';
import type { Logger } from '../ports/logger';

export function receiptListeners(c: ForwardDeps & { logger: Logger }): ReceiptListeners {
  return {
    // The inbox that holds the address and the account's routes, read side by side (and beside the receipt's own reads).
    prepare: async (accountId, address) => {
      const [inbox, routes] = await Promise.all([new MailSettingsRepository(c.store).inboxAt(accountId, address), routesOf(c, accountId)]);
      return {
        inboxId: inbox?.id ?? null,
        received: [
          (email, text) => recordInboundMail(c, email, text),
          async (email, text) => {
            // The stored email as it is, its text, and the raw message's size (so a forward never reads the raw to learn it).
            const outcome = await forwardInbound(c, { ...email, text, raw_size: email.size_bytes }, routes);
            if (outcome.kind !== 'unrouted') c.logger.info('inbound email forwarded by a route', { inboundId: email.id, outcome: outcome.kind });
          },
        ],
      };
    },
  };
}
