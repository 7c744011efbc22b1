// The send worker's use case: one queued message to the provider (or, in test mode, through the
// simulated outcomes), with worker-shaped events on its timeline.
import { getAccount, type AccountItem } from '../../accounts/service';
import type { Store } from '../../db/store';
import { formatMailbox, parseMailbox } from '../../formats/address';
import { RetryableError } from '../../errors';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { ObjectStore } from '../../ports/object-store';
import type { Metrics } from '../../ports/metrics';
import type { Queue } from '../../ports/queue';
import { PermanentSendError, type Mailer, type OutboundEmail } from '../../ports/mailer';
import type { Logger } from '../../ports/logger';
import type { Tally } from '../../db/tally';
import type { PerBatch } from '../../concurrency';
import { findSuppression } from '../suppressions/service';
import { countSentEmail } from '../../billing/reputation/service';
import { giveBackOnce, releaseSpend } from '../../billing/spend-caps/reserve';
import { sendHold } from './account-hold';
import { ContentMissingError, loadAttachments, loadContent } from './content';
import { asMailed } from '../templates/text';
import { HANDOFF_WINDOW_MS, handoffDelaySeconds, type SendJob } from './messages';
import { SCHEDULE_HOLDS, timelineOf, type MessageItem, type TimelineEventItem } from './model';
import { MessageRepository } from './repository';
import { recordEvent, routerEventId, workerEventId, type EventMessage, type NewEvent, type TimelineListeners } from './timeline';
import type { HttpClient } from '../../ports/http-client';
import type { Secrets } from '../../ports/secrets';
import { UNSUBSCRIBE_SECRET, unsubscribeHeaders, unsubscribeUrl } from '../unsubscribe/links';
import { trackHtml } from '../tracking/rewrite';
import { fillUnsubscribeUrl } from '../unsubscribe/variable';

export interface DispatchDeps {
  /** The timeline's listeners (shared/runtime/listeners.ts), passed on to recordEvent. */
  timeline: TimelineListeners;
  store: Store;
  clock: Clock;
  ids: Ids;
  mailer: Mailer;
  queue: Queue;
  http: HttpClient;
  /** Where content too large for the message item is kept (shared/sending/messages/content.ts). */
  objects: ObjectStore;
  logger: Logger;
  metrics: Metrics;
  /** Keys the unsubscribe links of marketing mail (shared/sending/unsubscribe/links.ts). */
  secrets: Pick<Secrets, 'get'>;
  config: { emailCostMicros?: number; dispatchLeaseMs?: number; publicBaseUrl?: string; sharedEmailSender?: string; runtime?: 'aws' | 'local' };
  /** A send worker batch's counters (the reputation's sends), written at its end; at once without it. */
  tally?: Tally;
  /** A send worker batch's memo for reads its messages share (the account's webhook subscriptions). */
  perBatch?: PerBatch;
}

export interface Attempt {
  finalAttempt: boolean;
  /** Reads the account (the send worker reads it once per batch); getAccount by default. */
  account?: (accountId: string) => Promise<AccountItem | undefined>;
  /** Whether the message's recipient is suppressed (the send worker reads its batch's at once); findSuppression by default. */
  suppressed?: (message: MessageItem) => Promise<boolean>;
}

/**
 * How long an attempt holds a message it took for sending before another may take it over: the
 * send worker's timeout in AWS (no attempt outlives it; the queue offers a message again only
 * after its 180 s visibility timeout), the retry delay locally.
 */
export const DISPATCH_LEASE_MS = 30_000;

/** `deferred`: the job came before its message and was put back on the queue for a later look. */
export type DispatchResult = 'sent' | 'simulated' | 'failed' | 'suppressed' | 'skipped' | 'deferred';

const DISPATCHABLE = new Set(['queued', 'scheduled']);

/** What the timeline needs of a message. */
const refOf = (message: MessageItem): EventMessage => ({ id: message.id, account_id: message.account_id, broadcast_id: message.broadcast_id, test_mode: message.test_mode });

const later = (iso: string, ms: number): string => new Date(new Date(iso).getTime() + ms).toISOString();

/** Test mode: nothing leaves; the recipient's local part picks the outcome. */
/**
 * A test-mode send's outcome, from its recipient's local part. A simulated bounce or complaint is
 * recorded and fires its webhooks but suppresses nothing: the suppression list is what live mail
 * reads, and a test key changes nothing live mail reads (docs/threat-model.md), even for a real
 * mailbox named bounced@ or complained@.
 */
async function simulate(deps: DispatchDeps, message: MessageItem, now: string, timeline: readonly TimelineEventItem[]): Promise<void> {
  const ref = refOf(message);
  const providerMessageId = `test_${message.id}`;
  await recordEvent(deps, ref, { type: 'sent', source: 'worker', providerEventId: workerEventId(message.id, 'sent'), payload: { provider_message_id: providerMessageId }, occurredAt: now }, { providerMessageId, timeline });
  const local = message.recipient.slice(0, message.recipient.lastIndexOf('@'));
  const at = later(now, 1);
  if (local === 'bounced') {
    await recordEvent(deps, ref, { type: 'bounced', source: 'worker', providerEventId: workerEventId(message.id, 'bounced'), payload: { detail: 'simulated hard bounce (test mode)', bounce_type: 'Permanent' }, occurredAt: at });
  } else if (local === 'complained') {
    await recordEvent(deps, ref, { type: 'complained', source: 'worker', providerEventId: workerEventId(message.id, 'complained'), payload: { detail: 'simulated complaint (test mode)' }, occurredAt: at });
  } else {
    await recordEvent(deps, ref, { type: 'delivered', source: 'worker', providerEventId: workerEventId(message.id, 'delivered'), payload: { detail: 'simulated delivery (test mode)' }, occurredAt: at }, { timeline });
  }
}

/**
 * The webhook channel is synchronous: the POST's answer is the outcome, written at send time as a
 * worker `delivered` event with a detail, or `failed`. Not retried: the caller's idempotency key
 * and the timeline say what happened.
 */
async function postWebhookMessage(deps: DispatchDeps, message: MessageItem, now: string, attempt: { finalAttempt: boolean }, timeline: readonly TimelineEventItem[]): Promise<DispatchResult> {
  const ref = refOf(message);
  const event = (type: 'delivered' | 'failed', payload: Record<string, unknown>) =>
    recordEvent(deps, ref, { type, source: 'worker', providerEventId: workerEventId(message.id, type), payload, occurredAt: now }, { timeline });
  if (message.test_mode) {
    await event('delivered', { detail: 'simulated delivery (test mode): nothing was posted' });
    return 'simulated';
  }
  // Counted when it was accepted (shared/billing/spend-caps/reserve.ts): a failure gives its count back, once.
  const failed = async (payload: Record<string, unknown>): Promise<DispatchResult> => {
    if ((await event('failed', payload)).created) await releaseSpend(deps, message);
    return 'failed';
  };
  let data: unknown;
  try {
    ({ data } = await loadContent({ objects: deps.objects, messages: new MessageRepository(deps.store) }, message));
  } catch (error) {
    if (!(error instanceof ContentMissingError) && !attempt.finalAttempt) throw error;
    return failed({ error: error instanceof Error ? error.message : String(error) });
  }
  const result = await deps.http.post(message.recipient, {
    body: JSON.stringify(data ?? null),
    headers: { 'content-type': 'application/json', 'service-message-id': message.id, 'user-agent': 'Postbox-Webhooks/1.0' },
  });
  if (!result.ok) return failed({ error: result.error ?? `HTTP ${result.status} from ${new URL(message.recipient).host}` });
  await event('delivered', { detail: `HTTP ${result.status} from ${new URL(message.recipient).host} in ${result.durationMs} ms` });
  return 'sent';
}

/**
 * Marketing mail carries its one-click unsubscribe (RFC 8058 headers) and, where a template used
 * `{{ unsubscribe_url }}`, the same link in place of the placeholder it rendered at acceptance.
 * Transactional mail gets neither.
 */
function withUnsubscribe(deps: DispatchDeps, message: MessageItem, email: OutboundEmail): OutboundEmail {
  const url = unsubscribeUrl(deps, message);
  const fill = (part: string | undefined) => (part === undefined ? undefined : fillUnsubscribeUrl(part, url));
  return {
    ...email,
    subject: fillUnsubscribeUrl(email.subject, url),
    html: fill(email.html),
    text: fill(email.text),
    headers: [...(email.headers ?? []), ...unsubscribeHeaders(deps, message, email.from)],
  };
}

/**
 * A tracked message: in AWS, SES tracks it through the configuration set of its choice (the mailer
 * picks it); locally the runtime rewrites the HTML part's links and adds the pixel itself, and
 * serves them (shared/sending/tracking/). Mail without an HTML part has nothing to track.
 */
function withTracking(deps: DispatchDeps, message: MessageItem, email: OutboundEmail): OutboundEmail {
  if (!message.tracking) return email;
  if (deps.config.runtime !== 'local') return { ...email, tracking: message.tracking };
  if (!email.html) return email;
  // A plain error (retried, then failed): a send worker that tracks without an origin is misconfigured.
  if (!deps.config.publicBaseUrl) throw new Error('PUBLIC_BASE_URL is not configured for the send worker; tracked links cannot be built');
  const links = { secret: deps.secrets.get(UNSUBSCRIBE_SECRET), baseUrl: deps.config.publicBaseUrl };
  return { ...email, html: trackHtml(links, message, message.tracking, email.html) };
}

/**
 * A job for a message an earlier attempt took and decided: that attempt may have died part-way
 * through its events (a `kill -9` of the local runtime, a Lambda timeout), after one was stored and
 * before its status move or its webhook, or, in test mode, between the simulated `sent` and its
 * outcome. Its job came back because it never finished, so its events are recorded again: each is
 * a duplicate that re-applies its status move and hands its webhook on again (delivery collapses
 * repeats by event id), and a simulated send fills in the outcome it never recorded. It works from
 * the timeline read with the message.
 */
async function finishEarlierAttempt(deps: DispatchDeps, message: MessageItem, timeline: readonly TimelineEventItem[]): Promise<void> {
  const ref = refOf(message);
  const mine = timeline.filter((e) => e.source === 'worker' || e.source === 'router');
  if (message.test_mode && message.channel === 'email' && mine.some((e) => e.type === 'sent')) {
    await simulate(deps, message, mine.find((e) => e.type === 'sent')!.occurred_at, timeline);
    return;
  }
  for (const e of mine) {
    await recordEvent(deps, ref, { id: e.id, type: e.type, source: e.source, providerEventId: e.provider_event_id, payload: e.payload, occurredAt: e.occurred_at }, { timeline });
  }
}

/**
 * The shared sender carries only the deployment's own name. Acceptance refuses any other
 * (shared/sending/messages/sender.ts); a message accepted before that rule, e.g. scheduled weeks ahead,
 * goes out under the configured shared sender all the same.
 */
function sharedSenderAsConfigured(deps: DispatchDeps, from: string): string {
  const shared = deps.config.sharedEmailSender;
  const configured = shared === undefined ? undefined : parseMailbox(shared);
  if (!configured) return from;
  const mailbox = parseMailbox(from);
  return mailbox && mailbox.address === configured.address ? formatMailbox(configured) : from;
}

/**
 * A job whose message is not stored (or not this account's). The accepting request hands a job on
 * before it stores the message: it may still be storing it, so within the window the job is put
 * back with a short delay, not failed to the queue's visibility timeout (a second job for the
 * message is harmless: the dispatch guard sends once). Past the window, or on the last attempt,
 * the request died or failed before the message was stored, and nothing was accepted.
 */
async function unknownMessage(deps: DispatchDeps, job: SendJob, attempt: Attempt, stored: boolean): Promise<DispatchResult> {
  const storing = !stored && job.handed_at !== undefined && deps.clock.now().getTime() - job.handed_at < HANDOFF_WINDOW_MS;
  if (storing && !attempt.finalAttempt) {
    const tries = (job.handoff_tries ?? 0) + 1;
    await deps.queue.send('send', { ...job, handoff_tries: tries }, { delaySeconds: handoffDelaySeconds(tries) });
    return 'deferred';
  }
  // Past the window no attempt of this job's will store it: what that attempt reserved goes back, once.
  if (job.reservation && !storing) await giveBackOnce(deps, job.account_id, job.message_id, job.reservation);
  deps.logger.warn('send job for an unknown message; dropped', { job });
  return 'skipped';
}

/**
 * A job carrying its attempt's reservation (SendJob.reservation) that finds its message stored by
 * another attempt: the message holds that attempt's reservation, so this one is given back, once
 * however often the job comes (giveBackOnce). Nothing when this attempt stored it (or it holds the
 * schedule's, which a job carrying a reservation is), nor for a job without one.
 */
async function settleReservation(deps: DispatchDeps, job: SendJob, message: MessageItem): Promise<void> {
  const held = job.reservation;
  if (!held || message.reserved_by === held.attempt || message.reserved_by === SCHEDULE_HOLDS) return;
  await giveBackOnce(deps, job.account_id, job.message_id, held);
}

/**
 * The `sent` event, counted once in the reputation's sends: a redelivered job finds it already there.
 * Usage counted the send when it was accepted.
 */
async function recordSent(deps: DispatchDeps, message: MessageItem, at: string, providerMessageId: string, timeline: readonly TimelineEventItem[]): Promise<void> {
  const recorded = await recordEvent(
    deps,
    refOf(message),
    { type: 'sent', source: 'worker', providerEventId: workerEventId(message.id, 'sent'), payload: { provider_message_id: providerMessageId }, occurredAt: at },
    { providerMessageId, timeline },
  );
  if (recorded.created) await countSentEmail(deps.store, message, at, deps.tally);
}

/** A message that will not go: its event (with the reason), and its spend reservation given back once. */
async function notSent(deps: DispatchDeps, message: MessageItem, event: Omit<NewEvent, 'source'> & { source?: NewEvent['source'] }): Promise<void> {
  const recorded = await recordEvent(deps, refOf(message), { source: 'worker', ...event });
  if (recorded.created) await releaseSpend(deps, message);
}

/** What decides whether a message taken for sending may go. */
interface Lease {
  account: AccountItem | undefined;
  suppressed: boolean;
}

/** Reads the message's account and a suppression of its recipient (a send worker batch's, when it gives them). */
async function mayGo(deps: DispatchDeps, message: MessageItem, attempt: Attempt): Promise<Lease> {
  const readAccount = attempt.account ?? ((id: string) => getAccount(deps.store, id));
  const isSuppressed = attempt.suppressed ?? (async (m: MessageItem) => Boolean(await findSuppression(deps.store, m.account_id, m.channel, m.recipient)));
  const [account, suppressed] = await Promise.all([readAccount(message.account_id), isSuppressed(message)]);
  return { account, suppressed };
}

/**
 * Takes the message for sending (the dispatch lease) and reads, beside it, what decides whether it
 * may go (read for nothing when the lease is not taken, which is rare). Another attempt holding
 * it: retried later, or skipped on the last attempt.
 */
async function takeLease(deps: DispatchDeps, messages: MessageRepository, message: MessageItem, now: string, attempt: Attempt): Promise<Lease | undefined> {
  const leaseMs = deps.config.dispatchLeaseMs ?? DISPATCH_LEASE_MS;
  const held = message.dispatched_at !== undefined && new Date(message.dispatched_at).getTime() > deps.clock.now().getTime() - leaseMs;
  const [taken, lease] = held ? [false] : await Promise.all([messages.markDispatched(message.id, now, message.dispatched_at), mayGo(deps, message, attempt)]);
  if (taken && lease) return lease;
  if (attempt.finalAttempt) return undefined;
  throw new RetryableError(`message ${message.id} is being sent by another attempt; retried later`);
}

/** The email as the provider gets it: content, the shared sender as configured, extras, unsubscribe and tracking. */
async function outboundEmail(deps: DispatchDeps, messages: MessageRepository, message: MessageItem): Promise<OutboundEmail> {
  const content = await loadContent({ objects: deps.objects, messages }, message);
  // A template's HTML is mailed with its CSS inlined and, without a text part, one made from it
  // (shared/sending/templates/text.ts); inline content is sent as given.
  const parts =
    content.template_id !== undefined && content.body_html !== undefined ? asMailed(content.body_html, content.body_text) : { html: content.body_html, text: content.body_text };
  const email: OutboundEmail = { from: sharedSenderAsConfigured(deps, content.from), to: message.recipient, subject: content.subject, html: parts.html, text: parts.text ?? undefined, messageId: message.id, accountId: message.account_id };
  // An internal sender's headers and attachments (shared/sending/messages/extras.ts); the objects are read now, at send time.
  if (content.headers?.length) email.headers = content.headers;
  if (content.attachments?.length) email.attachments = await loadAttachments(deps.objects, content.attachments);
  return withTracking(deps, message, message.message_type === 'marketing' ? withUnsubscribe(deps, message, email) : email);
}

/**
 * Hands the email to the provider: its id and when it took the mail (now, or when an earlier
 * attempt that died handed it over), or `failed` once recorded. A failure worth retrying gives
 * the lease back and throws, unless this is the last attempt.
 */
async function mail(deps: DispatchDeps, messages: MessageRepository, message: MessageItem, now: string, attempt: Attempt): Promise<{ providerMessageId: string; sentAt: string } | 'failed'> {
  try {
    const receipt = await deps.mailer.send(await outboundEmail(deps, messages, message));
    // Never after now, and never before this message was accepted.
    const early = receipt.acceptedAt !== undefined && receipt.acceptedAt < now;
    return { providerMessageId: receipt.providerMessageId, sentAt: early ? (receipt.acceptedAt! > message.created_at ? receipt.acceptedAt! : message.created_at) : now };
  } catch (error) {
    // Missing content (or a missing attachment) is as final as a provider's refusal: retrying cannot bring it back.
    if (!(error instanceof PermanentSendError || error instanceof ContentMissingError) && !attempt.finalAttempt) {
      await messages.releaseDispatch(message.id, now).catch(() => false);
      throw error;
    }
    const reason = error instanceof Error ? error.message : String(error);
    // Never sent, never billed.
    await notSent(deps, message, { type: 'failed', providerEventId: workerEventId(message.id, 'failed'), payload: { error: reason }, occurredAt: now });
    deps.logger.warn('message failed', { messageId: message.id, error: reason });
    return 'failed';
  }
}

/**
 * Sends one message. Throws for failures worth retrying (the queue redelivers); on the last
 * attempt (`finalAttempt`) a retryable failure is recorded as `failed` instead of being lost.
 */
export async function dispatch(deps: DispatchDeps, job: SendJob, attempt: Attempt): Promise<DispatchResult> {
  const messages = new MessageRepository(deps.store);
  const now = deps.clock.now().toISOString();
  // Most jobs find their message waiting and never taken: one conditional write takes it and
  // answers it, with no read before. A message no attempt took has no worker event yet, so what
  // its item holds is all the timeline this attempt needs.
  const fresh = await messages.takeFresh(job.message_id, job.account_id, now);
  if (fresh) {
    await settleReservation(deps, job, fresh);
    return sendTaken(deps, messages, { message: fresh, timeline: timelineOf(fresh, []), lease: await mayGo(deps, fresh, attempt) }, now, attempt);
  }
  // Else the message with its timeline: one query of its partition, read as one item would be while
  // the timeline is on the message item (model.ts timelineOf).
  const { message, events: timeline } = await messages.getWithTimeline(job.message_id);
  if (!message || message.account_id !== job.account_id) return unknownMessage(deps, job, attempt, message !== undefined);
  await settleReservation(deps, job, message);
  if (message.dispatched_at && message.provider_message_id && !message.test_mode) {
    // An earlier attempt reached the provider and stopped before recording it; a provider event
    // has since told us the provider's id. Record the handoff (once) instead of losing it.
    await recordSent(deps, message, message.dispatched_at, message.provider_message_id, timeline);
    return 'skipped';
  }
  // Taken for sending unless it was canceled, sent or decided meanwhile, or another attempt holds
  // it: a second job for the same message (a recovered acceptance, a redelivery) waits for that
  // attempt's outcome instead of sending again.
  if (!DISPATCHABLE.has(message.status) || message.provider_message_id) {
    if (message.dispatched_at !== undefined) await finishEarlierAttempt(deps, message, timeline);
    return 'skipped';
  }
  const lease = await takeLease(deps, messages, message, now, attempt);
  if (!lease) return 'skipped';
  return sendTaken(deps, messages, { message, timeline, lease }, now, attempt);
}

/** A message this attempt took for sending: refused (account held, recipient suppressed), or handed on by its channel. */
async function sendTaken(
  deps: DispatchDeps,
  messages: MessageRepository,
  { message, timeline, lease }: { message: MessageItem; timeline: readonly TimelineEventItem[]; lease: Lease },
  now: string,
  attempt: Attempt,
): Promise<DispatchResult> {
  // A suspended account sends nothing more, nor a reputation-paused one live: what it accepted
  // before fails here, with the reason on its timeline, and stays failed when the account is
  // unsuspended or the pause lifted (docs/api-decisions.md).
  const hold = sendHold(lease.account, !message.test_mode);
  if (hold) {
    await notSent(deps, message, { type: 'failed', providerEventId: workerEventId(message.id, 'failed'), payload: { error: `not sent: ${hold.detail}`, reason: hold.reason }, occurredAt: now });
    deps.logger.info('message not sent: the account may not send', { messageId: message.id, reason: hold.reason });
    return 'failed';
  }
  // A scheduled send may meet a suppression added after it was accepted.
  if (lease.suppressed) {
    await notSent(deps, message, { id: message.id, type: 'suppressed', source: 'router', providerEventId: routerEventId(message.id), payload: { reason: 'recipient is on the suppression list' }, occurredAt: now });
    return 'suppressed';
  }
  if (message.channel === 'webhook') return postWebhookMessage(deps, message, now, attempt, timeline);
  if (message.test_mode) {
    await simulate(deps, message, now, timeline);
    return 'simulated';
  }
  const sent = await mail(deps, messages, message, now, attempt);
  if (sent === 'failed') return 'failed';
  await recordSent(deps, message, sent.sentAt, sent.providerMessageId, timeline);
  return 'sent';
}
