// The unsubscribe link of a marketing message. Its token is the only credential: it names one
// message, and the message names the account, channel and recipient the link may change
// (shared/sending/unsubscribe/token.ts). A GET only reads; the POST unsubscribes.
//
// The POST writes three items, in order, each idempotent: the suppression (what stops the mail,
// so it goes first), the account's contact with that address, then the message's `unsubscribed`
// event. The store has no transactions: a request that dies between them has stopped the mail,
// and the link used again (mail clients and our page's button repeat a failed POST) finishes the
// rest; nothing is ever undone. A second POST finds every write done and changes nothing.
import { getAccount } from '../accounts/service';
import { ContactClaimRepository } from '../audiences/contacts/claims-repository';
import { ContactRepository } from '../audiences/contacts/repository';
import type { Store } from '../db/store';
import { ApiError } from '../errors';
import type { Ids } from '../ports/ids';
import type { MessageItem } from '../sending/messages/model';
import { MessageRepository } from '../sending/messages/repository';
import { recordEvent, workerEventId, type TimelineListeners } from '../sending/messages/timeline';
import type { Clock } from '../ports/clock';
import type { Metrics } from '../ports/metrics';
import type { Queue } from '../ports/queue';
import type { Secrets } from '../ports/secrets';
import { findSuppression, suppress } from '../sending/suppressions/service';
import { UNSUBSCRIBE_SECRET } from '../sending/unsubscribe/links';
import type { UnsubscribeVia, UnsubscribeView } from '../sending/unsubscribe/schemas';
import { messageIdOf, tokenMatches } from '../sending/unsubscribe/token';

export interface UnsubscribeDeps {
  /** The timeline's listeners (shared/runtime/listeners.ts), passed on to recordEvent. */
  timeline: TimelineListeners;
  store: Store;
  clock: Clock;
  ids: Ids;
  queue: Queue;
  secrets: Pick<Secrets, 'get'>;
  metrics: Metrics;
}

/** The suppression an unsubscribe leaves (docs/api-decisions.md). */
export const UNSUBSCRIBED_REASON = 'unsubscribed';

/** Statuses any report replaces (shared/sending/messages/timeline.ts applyStatus). */
const WAITING = new Set(['queued', 'scheduled', 'sent']);

const invalidToken = (): ApiError => new ApiError('invalid_token', 'this unsubscribe link is not valid; use the link from the message as it was mailed');

/** The marketing message the token was issued for; 400 invalid_token for anything else. */
async function messageOf(deps: Pick<UnsubscribeDeps, 'store' | 'secrets'>, token: string): Promise<MessageItem> {
  const messageId = messageIdOf(token);
  if (!messageId) throw invalidToken();
  const message = await new MessageRepository(deps.store).get(messageId);
  if (!message || message.message_type !== 'marketing' || !tokenMatches(deps.secrets.get(UNSUBSCRIBE_SECRET), token, message)) throw invalidToken();
  return message;
}

export interface UnsubscribeState extends UnsubscribeView {
  /** The account's name, for the page: the sender the recipient is leaving. */
  sender: string;
}

/** What the link would do, and whether it is done: reads only (mail scanners follow GETs). */
export async function readUnsubscribe(deps: Pick<UnsubscribeDeps, 'store' | 'secrets'>, token: string): Promise<UnsubscribeState> {
  const message = await messageOf(deps, token);
  const [suppression, account] = await Promise.all([findSuppression(deps.store, message.account_id, message.channel, message.recipient), getAccount(deps.store, message.account_id)]);
  return { channel: message.channel, recipient: message.recipient, unsubscribed: suppression?.state === 'unsubscribed', sender: account?.name ?? '' };
}

/**
 * Unsubscribes the recipient of the token's message on its channel: the suppression becomes
 * `unsubscribed` (created if absent, whatever suppressed it before), the account's live contact
 * with that address is marked `unsubscribed: true`, and the message's timeline gets one
 * `unsubscribed` event, which no webhook carries (the spec's subscribable types exclude it).
 */
export async function unsubscribe(deps: UnsubscribeDeps, token: string, via: UnsubscribeVia): Promise<UnsubscribeState> {
  const message = await messageOf(deps, token);
  const { account_id: accountId, channel, recipient } = message;
  const existing = await findSuppression(deps.store, accountId, channel, recipient);
  if (existing?.state !== 'unsubscribed') await suppress(deps, accountId, { channel, recipient, state: 'unsubscribed', reason: UNSUBSCRIBED_REASON });
  if (channel === 'email') await markContact(deps, accountId, recipient);
  // The worker's dedup key for the type: one event per message however often the link is used.
  const providerEventId = workerEventId(message.id, 'unsubscribed');
  const recorded = await new MessageRepository(deps.store).getEvent(message.id, providerEventId);
  // Recorded, and the status has taken it (or a later report): a repeat writes nothing. Otherwise
  // record it, or finish what a request that died after storing the event left (the status move).
  const settled = recorded !== undefined && !WAITING.has(message.status) && (message.status_at ?? '') >= recorded.occurred_at;
  if (!settled) {
    await recordEvent(deps, message, { type: 'unsubscribed', source: 'worker', providerEventId, payload: { via }, occurredAt: deps.clock.now().toISOString() });
  }
  const account = await getAccount(deps.store, accountId);
  return { channel, recipient, unsubscribed: true, sender: account?.name ?? '' };
}

/** The account's live contact with this address, marked unsubscribed; none is fine. */
async function markContact(deps: Pick<UnsubscribeDeps, 'store' | 'clock'>, accountId: string, email: string): Promise<void> {
  const contacts = new ContactRepository(deps.store);
  // A change of the contact between the read and the write (its address, a PATCH) makes the
  // conditional write miss; read it again, a few times at most.
  for (let attempt = 0; attempt < 3; attempt++) {
    const claim = await new ContactClaimRepository(deps.store).emailItem(accountId, email);
    const contact = claim ? await contacts.getContact(accountId, claim.contact_id) : undefined;
    if (!contact || contact.deleted_at !== undefined || contact.email !== email || contact.unsubscribed) return;
    const updated = await contacts.updateContact(accountId, contact.id, email, {
      email,
      first_name: contact.first_name,
      last_name: contact.last_name,
      data: contact.data,
      unsubscribed: true,
      updated_at: deps.clock.now().toISOString(),
    });
    if (updated) return;
  }
  throw new ApiError('conflict', 'the contact with this address kept changing; try the link again');
}
