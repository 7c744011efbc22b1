// Provider events onto the message timeline: find our message, record the signal once, and
// suppress the recipient after a hard bounce or a complaint.
import type { Store } from '../../db/store';
import type { PerBatch } from '../../concurrency';
import type { Ids } from '../../ports/ids';
import { isFolded, type EventType, type MessageItem, type TimelineEventItem } from '../messages/model';
import { MessageRepository } from '../messages/repository';
import { recordEvent, type TimelineListeners } from '../messages/timeline';
import type { Clock } from '../../ports/clock';
import type { Metrics } from '../../ports/metrics';
import type { Queue } from '../../ports/queue';
import type { ReputationConfig } from '../../billing/reputation/policy';
import { countReputationSignal } from '../../billing/reputation/service';
import type { Logger } from '../../ports/logger';
import { suppress } from '../suppressions/service';
import type { SesEventMessage } from './messages';
import type { SesNotification } from './ses-notification';
import { tracksClicks, tracksOpens } from '../tracking/choice';

export type IngestResult =
  | {
      outcome: 'recorded' | 'duplicate';
      messageId: string;
      accountId: string;
      eventId: string;
      type: EventType;
      /** Recipients now on the suppression list because of this event. */
      suppressed: string[];
    }
  /** No message of ours has this tag or provider message id: nothing to attach the event to. */
  | { outcome: 'unknown_message'; providerMessageId: string; messageId?: string }
  /** The account tag names another account than the message's: never recorded. */
  | { outcome: 'account_mismatch'; messageId: string; accountId: string; taggedAccountId: string };

/** A notification of a type the timeline does not track (Send, SNS subscription messages…). */
export type SesEventResult = IngestResult | { outcome: 'ignored' };

/** `perBatch`: a consumer batch's memo (the ses-events consumer's), so reads its records share are made once (an account's webhook subscriptions). */
type Deps = { store: Store; clock: Clock; ids: Ids; queue: Queue; logger: Logger; metrics: Metrics; timeline: TimelineListeners; config?: ReputationConfig; perBatch?: PerBatch };

/**
 * The configuration set's event publishing carries the tags the send worker set (our message id
 * and account id), so no lookup from SES's id to ours is kept. A notification without our tag
 * (a classic identity notification, which this stack never subscribes) has nothing to attach to.
 */
async function findMessage(messages: MessageRepository, event: SesNotification): Promise<{ message?: MessageItem; events: TimelineEventItem[] }> {
  const { messageId } = event;
  if (!messageId) return { events: [] };
  // For a signal kept on the message item (a delivery), with its timeline: one query of its
  // partition, which costs what reading the message item alone does while no event has an item of
  // its own, and tells a repeated signal without another read. Other signals (opens, clicks: many
  // per message) read the message item alone.
  // Eventually consistent (half the read units): what is read of the message never changes (its
  // account, test mode, broadcast, tracking) but its provider message id, which, once set, is the
  // id this signal carries anyway; every write the signal makes is conditional on the item as it
  // is; and a timeline read a moment stale only sends a repeated signal the longer way.
  // A message not found is looked for again consistently before the signal is given up.
  const read = (consistent: boolean) =>
    isFolded(event.type) ? messages.getWithTimeline(messageId, consistent) : messages.get(messageId, consistent).then((message) => ({ message, events: [] }));
  const seen = await read(false);
  return seen.message ? seen : read(true);
}

/** Who to suppress and why; empty for every other event and for soft bounces. */
function suppressionsOf(event: SesNotification): Array<{ recipient: string; reason: string }> {
  if (event.bounce?.kind === 'hard') {
    const subType = event.bounce.bounceSubType ?? 'General';
    return event.bounce.recipients.map((r) => ({
      recipient: r.emailAddress,
      reason: `hard bounce: ${subType}${r.diagnosticCode ? ` ${r.diagnosticCode}` : ''}`,
    }));
  }
  if (event.complaint) {
    const reason = `complaint: ${event.complaint.feedbackType ?? 'abuse'}`;
    return event.complaint.recipients.map((recipient) => ({ recipient, reason }));
  }
  return [];
}

/** One notification from the ses-events queue: ignored, or onto its message's timeline. */
export async function ingestSesEvent(deps: Deps, notification: SesEventMessage): Promise<SesEventResult> {
  if (notification.kind === 'ignore') return { outcome: 'ignored' };
  return ingestSesNotification(deps, notification.event);
}

/**
 * SES's tracked configuration set tracks opens and clicks together (lib/constructs/mail-events.ts):
 * for a message that chose one of them, the other's events are not its own choice and are dropped.
 * A message without a choice (none, or accepted before tracking was decided) keeps what SES reports.
 */
function unchosen(message: MessageItem, event: SesNotification): boolean {
  if (!message.tracking) return false;
  if (event.type === 'opened') return !tracksOpens(message.tracking);
  return event.type === 'clicked' && !tracksClicks(message.tracking);
}

async function ingestSesNotification(deps: Deps, event: SesNotification): Promise<SesEventResult> {
  const { message, events: timeline } = await findMessage(new MessageRepository(deps.store), event);
  if (!message) return { outcome: 'unknown_message', providerMessageId: event.providerMessageId, messageId: event.messageId };
  if (unchosen(message, event)) return { outcome: 'ignored' };
  if (event.accountId && event.accountId !== message.account_id) {
    return { outcome: 'account_mismatch', messageId: message.id, accountId: message.account_id, taggedAccountId: event.accountId };
  }

  const recorded = await recordEvent(
    deps,
    message,
    { type: event.type, source: event.source, providerEventId: event.providerEventId, payload: event.payload, occurredAt: event.occurredAt },
    // Only fills a gap (the worker stopped between SES accepting and recording sent); an id the
    // worker stored is never replaced.
    { providerMessageId: message.provider_message_id ? undefined : event.providerMessageId, ...(isFolded(event.type) ? { timeline } : {}) },
  );

  // Once per signal (a duplicate is not counted again): SES's own rates count hard bounces and
  // complaints over sends, and so does the account's reputation (shared/billing/reputation).
  const signal = event.bounce?.kind === 'hard' ? 'bounce' : event.complaint ? 'complaint' : undefined;
  if (recorded.created && signal) await countReputationSignal(deps, { accountId: message.account_id, kind: signal, messageId: message.id });

  // Also on a duplicate: the upsert is idempotent, and a crash between recording and suppressing
  // heals when SQS delivers the notification again.
  const suppressed: string[] = [];
  for (const entry of suppressionsOf(event)) {
    const item = await suppress(deps, message.account_id, { channel: 'email', recipient: entry.recipient, reason: entry.reason });
    suppressed.push(item.recipient);
  }

  return {
    outcome: recorded.created ? 'recorded' : 'duplicate',
    messageId: message.id,
    accountId: message.account_id,
    eventId: recorded.event.id,
    type: event.type,
    suppressed,
  };
}
