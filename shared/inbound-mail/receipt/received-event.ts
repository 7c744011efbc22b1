// The email.received envelope, built in one place for both ways it leaves: the account's webhook
// subscriptions (message_id the inbound id, as the spec says) and an inbound route's forward
// (message_id "", the spec's rule for route forwards, signed with the route's secret). Everything
// else is the same: event_id is `evt_` + the inbound id, so a redelivered message makes the same
// event; occurred_at and created_at are the time it was received, so the body is the same too.
import type { InboundAttachment } from './schemas';

/** The payload's text is cut here: the envelope rides a queue message and a delivery record (GET /v1/inbound/{id} has it whole). */
export const PAYLOAD_TEXT_CHARS = 32 * 1024;

/** What the event says of a stored inbound email (the spec's email.received payload fields). */
export interface ReceivedEmail {
  id: string;
  account_id: string;
  domain: string;
  recipient: string;
  from: string | null;
  to: string[];
  subject: string | null;
  spam_verdict: string;
  virus_verdict: string;
  attachments: InboundAttachment[];
  received_at: string;
}

export type ReceivedVia = 'subscription' | 'route';

export function receivedEnvelope(email: ReceivedEmail, text: string | null, via: ReceivedVia) {
  return {
    event_id: `evt_${email.id}`,
    event_type: 'email.received',
    message_id: via === 'route' ? '' : email.id,
    account_id: email.account_id,
    payload: {
      id: email.id,
      domain: email.domain,
      recipient: email.recipient,
      from: email.from,
      to: email.to,
      subject: email.subject,
      text: text === null ? null : text.slice(0, PAYLOAD_TEXT_CHARS),
      spam_verdict: email.spam_verdict,
      virus_verdict: email.virus_verdict,
      attachments: email.attachments,
      received_at: email.received_at,
    },
    occurred_at: email.received_at,
    created_at: email.received_at,
  };
}
