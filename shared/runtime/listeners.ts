// The timeline's listeners, wired here at the composition root so the timeline does not import the
// areas that act on its events (docs/architecture.md, "Events and their listeners"): a recorded
// event is counted in its broadcast's stats (by marker, or where it is first stored for `sent`) and
// handed to the webhooks (a send worker batch looks an account's subscriptions up once). Every
// container carries them, so they stay small; the receipt's are apart (./receipt-listeners.ts), in
// the inbound consumer's bundle only.
import { countBroadcastEvent, countNewBroadcastEvent } from '../audiences/broadcasts/stats';
import type { TimelineListeners } from '../sending/messages/timeline';
import { publishEvent } from '../webhooks/deliver';

export const timelineListeners: TimelineListeners = {
  counted: [(deps, message, event) => countBroadcastEvent(deps, message, event.type)],
  created: [(deps, message, event) => countNewBroadcastEvent(deps, message, event.type)],
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
