// The event listeners, wired here at the composition root so the areas that raise an event do not
// import the areas that act on it (docs/architecture.md, "Events and their listeners"): a recorded
// timeline event is counted in its broadcast's stats and handed to the webhooks; a received inbound
// email is filed by the Mail app and forwarded by the account's routes.
import { countBroadcastEvent } from '../broadcasts/stats';
import { forwardInbound, type ForwardDeps } from '../inbound-routes/forward';
import type { ReceiptListeners } from '../inbound/receive';
import { recordInboundMail } from '../mail/record';
import { MailSettingsRepository } from '../mail/settings-repository';
import type { TimelineListeners } from '../messages/timeline';
import type { Logger } from '../ports/logger';
import { publishEvent } from '../webhooks/deliver';

export const timelineListeners: TimelineListeners = {
  counted: [(deps, message, event) => countBroadcastEvent(deps, message, event.type)],
  settled: [
    (deps, _message, e) =>
      publishEvent(deps, {
        event_id: e.id,
        event_type: e.type,
        message_id: e.message_id,
        account_id: e.account_id,
        payload: e.payload,
        occurred_at: e.occurred_at,
        created_at: e.created_at,
      }),
  ],
};

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
