// email.received is built once (shared/inbound-mail/receipt/received-event.ts) for both ways it leaves: the
// account's subscriptions and an inbound route's forward differ only in message_id.
import { describe, expect, it } from 'vitest';
import { PAYLOAD_TEXT_CHARS, receivedEnvelope, type ReceivedEmail } from '../../shared/inbound-mail/receipt/received-event';

const email: ReceivedEmail = {
  id: 'inb_01abc',
  account_id: 'acct_1',
  domain: 'acme.test',
  recipient: 'help@acme.test',
  from: null,
  to: ['help@acme.test'],
  subject: null,
  spam_verdict: 'GRAY',
  virus_verdict: 'GRAY',
  attachments: [{ filename: null, content_type: 'image/png', size: 3 }],
  received_at: '2026-11-27T10:00:00.000Z',
};

describe('the email.received envelope', () => {
  it('is the same for a subscription and a route forward but for message_id: the inbound id, or "" for a route', () => {
    const subscription = receivedEnvelope(email, 'hello', 'subscription');
    const route = receivedEnvelope(email, 'hello', 'route');

    expect(subscription).toEqual({
      event_id: 'evt_inb_01abc',
      event_type: 'email.received',
      message_id: 'inb_01abc',
      account_id: 'acct_1',
      payload: { ...email, text: 'hello', account_id: undefined },
      occurred_at: email.received_at,
      created_at: email.received_at,
    });
    expect(subscription.payload).not.toHaveProperty('account_id');
    expect(route).toEqual({ ...subscription, message_id: '' });
  });

  it('keeps a missing From, subject and text as null, and cuts a long text at the payload limit', () => {
    const long = 'x'.repeat(PAYLOAD_TEXT_CHARS + 10);

    expect(receivedEnvelope(email, null, 'route').payload).toMatchObject({ from: null, subject: null, text: null });
    expect(receivedEnvelope(email, long, 'route').payload.text).toHaveLength(PAYLOAD_TEXT_CHARS);
    expect(receivedEnvelope(email, long, 'subscription').payload.text).toBe(receivedEnvelope(email, long, 'route').payload.text);
  });
});
