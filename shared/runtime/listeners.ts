// The event listeners, wired here at the composition root so the areas that raise an event do not
// import the areas that act on it (docs/architecture.md, "Events and their listeners"): a received
// inbound email is filed by the Mail app and forwarded by the account's routes.
import { forwardInbound } from '../inbound-routes/forward';
import type { ReceiptListeners } from '../inbound/receive';
import { recordInboundMail } from '../mail/record';
import { MailSettingsRepository } from '../mail/settings-repository';
import type { Container } from './container';

export function receiptListeners(c: Container): ReceiptListeners {
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
