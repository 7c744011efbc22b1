// Forwarding a received message through the account's inbound routes. The inbound worker calls
// forwardInbound after storing a message; it needs only the small shape below. A webhook route
// gets the email.received envelope (message_id "") as a delivery of its own on the webhooks
// queue; an email route sends a new outbound message through the send pipeline, so suppressions,
// spend caps and usage apply as to any send: a short text quoting the original, X-Forwarded-For/-To
// headers, and the original attached as message/rfc822 when it fits SES's limit once encoded.
import { getAccount, type AccountItem } from '../../accounts/service';
import { accountHold, type Hold } from '../../sending/messages/account-hold';
import { isHeaderValue, MAX_SENT_MESSAGE_BYTES, sentMessageBytes, type MessageExtras } from '../../sending/messages/extras';
import { receivedEnvelope, type ReceivedEmail } from '../receipt/received-event';
import type { AttachmentRef } from '../../sending/messages/model';
import { acceptSends, type SendDeps, type SendOutcome } from '../../sending/messages/send';
import type { ObjectStore } from '../../ports/object-store';
import type { Random } from '../../ports/random';
import type { Scheduler } from '../../ports/scheduler';
import type { Secrets } from '../../ports/secrets';
import { deliveryIdFor, LOG_RETENTION_S } from '../../webhooks/deliver';
import type { WebhookJob } from '../../webhooks/messages';
import { DeliveryRepository } from '../../webhooks/repository';
import { matchRoute } from './match';
import { RouteRepository, type RouteItem } from './repository';

/** What forwarding needs of a stored inbound email: the email.received fields, its text, where its raw message is. */
export interface ForwardableEmail extends ReceivedEmail {
  text: string | null;
  /** Where the raw message is kept in the object store, when it was. */
  raw_key?: string;
  /** The raw message's size in bytes (the email's size_bytes), when the caller has it; else asked of the object store. */
  raw_size?: number;
}

export type ForwardDeps = SendDeps & { secrets: Pick<Secrets, 'get'>; scheduler: Scheduler; random: Random };

export type ForwardOutcome =
  | { kind: 'unrouted' }
  /** `queued` false: an earlier call made this delivery and its first attempt already. */
  | { kind: 'webhook'; route_id: string; delivery_id: string; queued: boolean }
  | { kind: 'email'; route_id: string; outcome: SendOutcome }
  /** A webhook forward of an account that may not send: logged `exhausted` with the reason, never attempted. */
  | { kind: 'held'; route_id: string; reason: Hold['reason'] };

/** The forwarded text is cut here: the send pipeline's content limits are the message's, not the original's. */
export const MAX_FORWARDED_TEXT = 200_000;

/** The name the original message is attached under. */
export const FORWARDED_FILENAME = 'forwarded-message.eml';

/** What became of the original message in a forward: attached, too large for SES once encoded, or not kept. */
export type ForwardedOriginal = { kind: 'attached' } | { kind: 'too_large'; size: number } | { kind: 'unavailable' };

function originalLine(email: ForwardableEmail, original: ForwardedOriginal): string {
  if (original.kind === 'attached') return `Original message: attached as ${FORWARDED_FILENAME}\n`;
  if (original.kind === 'too_large') return `Original message: ${original.size} bytes, too large to attach; GET /v1/inbound/${email.id}/raw serves it\n`;
  return '';
}

/**
 * The forwarded message's text: the original's headers as a mail client quotes them, where the
 * original went (and with it its attachments), then its text.
 */
export function forwardedText(email: ForwardableEmail, original: ForwardedOriginal = { kind: 'unavailable' }): string {
  const whole = email.text ?? '';
  const text = whole.length > MAX_FORWARDED_TEXT ? `${whole.slice(0, MAX_FORWARDED_TEXT)}\n[… cut at ${MAX_FORWARDED_TEXT} characters]` : whole;
  const where = original.kind === 'attached' ? 'in the attached original' : 'not forwarded';
  const attachments = email.attachments.length ? `Attachments (${where}): ${email.attachments.map((a) => a.filename || '(unnamed)').join(', ')}\n` : '';
  return [
    '---------- Forwarded message ---------',
    `From: ${email.from ?? ''}`,
    `Date: ${email.received_at}`,
    `Subject: ${email.subject ?? ''}`,
    `To: ${email.to.join(', ')}`,
    `Delivered-To: ${email.recipient}`,
    `${attachments}${originalLine(email, original)}Inbound-Id: ${email.id}`,
    '',
    text,
  ].join('\n');
}

/**
 * A webhook forward: its delivery in the route's log, then its first attempt on the webhooks
 * queue. For an account that may not send (`hold`), the delivery is logged `exhausted` with the
 * reason and never attempted.
 */
async function toWebhook(deps: ForwardDeps, route: RouteItem, email: ForwardableEmail, hold: Hold | undefined): Promise<ForwardOutcome> {
  const deliveries = new DeliveryRepository(deps.store);
  const now = deps.clock.now();
  const envelope = receivedEnvelope(email, email.text, 'route');
  const eventId = envelope.event_id as string;
  const deliveryId = deliveryIdFor(eventId);
  const created = await deliveries.create({
    id: deliveryId,
    subscription_id: route.id,
    account_id: route.account_id,
    event_id: eventId,
    event_type: 'email.received',
    status: hold ? 'exhausted' : 'pending',
    attempt_count: 0,
    response_status: 0,
    ...(hold ? { last_error: `not forwarded: ${hold.detail}` } : {}),
    body: JSON.stringify(envelope),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: Math.floor(now.getTime() / 1000) + LOG_RETENTION_S,
  });
  if (hold) return { kind: 'held', route_id: route.id, reason: hold.reason };
  if (!created) {
    // The same message handed over again: only a delivery that never got its first attempt starts again.
    const existing = await deliveries.get(route.id, deliveryId);
    if (existing && existing.attempt_count > 0) return { kind: 'webhook', route_id: route.id, delivery_id: deliveryId, queued: false };
  }
  const job: WebhookJob = { kind: 'route_attempt', account_id: route.account_id, route_id: route.id, delivery_id: deliveryId, attempt: 1 };
  await deps.queue.send('webhooks', job);
  return { kind: 'webhook', route_id: route.id, delivery_id: deliveryId, queued: true };
}

/**
 * Who sent the original (X-Forwarded-For) and the address it came to (X-Forwarded-To), each left
 * out when it is not a one-line ASCII value SES takes (the text names both anyway); and
 * Auto-Submitted (RFC 3834), so an auto-responder at the forward address does not answer the
 * route, whose reply would come back in and be forwarded again.
 */
export function forwardHeaders(email: ForwardableEmail): NonNullable<MessageExtras['headers']> {
  const headers = [
    { name: 'X-Forwarded-For', value: email.from ?? '' },
    { name: 'X-Forwarded-To', value: email.recipient },
  ].filter((h) => isHeaderValue(h.name, h.value));
  return [...headers, { name: 'Auto-Submitted', value: 'auto-generated' }];
}

/** The raw message's size, or undefined when it was not kept. */
async function rawSize(objects: Pick<ObjectStore, 'getStream'>, email: Pick<ForwardableEmail, 'raw_key' | 'raw_size'>): Promise<number | undefined> {
  if (email.raw_key === undefined) return undefined;
  if (email.raw_size !== undefined) return email.raw_size;
  const object = await objects.getStream(email.raw_key);
  object?.body.destroy();
  return object?.size;
}

/**
 * The original message as the attachment of a forward (route forwards and the Mail app's), when
 * it was kept and `fits(size)` says the forward stays within SES's limit with it; otherwise why not.
 */
export async function originalAttachment(
  objects: Pick<ObjectStore, 'getStream'>,
  email: Pick<ForwardableEmail, 'raw_key' | 'raw_size'>,
  fits: (size: number) => boolean,
): Promise<{ original: ForwardedOriginal; attachment?: AttachmentRef }> {
  const size = await rawSize(objects, email);
  if (size === undefined) return { original: { kind: 'unavailable' } };
  if (!fits(size)) return { original: { kind: 'too_large', size } };
  return { original: { kind: 'attached' }, attachment: { filename: FORWARDED_FILENAME, content_type: 'message/rfc822', object_key: email.raw_key as string, size } };
}

/**
 * An email forward: a send through acceptSends. For a suspended account it is accepted all the
 * same and the send worker fails it with the reason, so the forward's message says why it never
 * went (docs/api-decisions.md, issue 28).
 */
async function toEmail(deps: ForwardDeps, route: RouteItem, email: ForwardableEmail, account: AccountItem | undefined): Promise<ForwardOutcome> {
  const subject = `Fwd: ${email.subject ?? ''}`.slice(0, 998);
  const headers = forwardHeaders(email);
  const { original, attachment } = await originalAttachment(
    deps.objects,
    email,
    (size) => sentMessageBytes({ subject, text: forwardedText(email, { kind: 'attached' }), headers, attachmentSizes: [size] }) <= MAX_SENT_MESSAGE_BYTES,
  );
  const request = {
    channel: 'email',
    // One forward per message and route, however often the worker hands the message over.
    idempotency_key: `inbound-forward:${email.id}:${route.id}`,
    destination: { email: route.forward_address },
    payload: { subject, body_text: forwardedText(email, original) },
    // From the address the mail came to: its domain is verified (inbound needs it).
    metadata: { from_email: email.recipient },
  };
  const extras: MessageExtras = { headers };
  if (attachment) extras.attachments = [attachment];
  const sender = { accountId: route.account_id, keyId: `route:${route.id}`, testMode: false, ...(account ? { account } : {}) };
  const [outcome] = await acceptSends(deps, sender, [request], { batch: false, extras });
  return { kind: 'email', route_id: route.id, outcome: outcome! };
}

/** The account's routes, for a caller that reads them beside its other reads and hands them to forwardInbound. */
export const routesOf = (deps: Pick<ForwardDeps, 'store'>, accountId: string): Promise<RouteItem[]> => new RouteRepository(deps.store).all(accountId);

/** Finds the route that takes the message and forwards it; unrouted when none matches. `routes`: the account's, when the caller read them. */
export async function forwardInbound(deps: ForwardDeps, email: ForwardableEmail, routes?: readonly RouteItem[]): Promise<ForwardOutcome> {
  const route = matchRoute(routes ?? (await routesOf(deps, email.account_id)), email.recipient);
  if (!route) return { kind: 'unrouted' };
  // Read once: whether the account may still send, and the sender an email forward needs.
  const account = await getAccount(deps.store, route.account_id);
  if (route.destination_type === 'webhook') return toWebhook(deps, route, email, accountHold(account));
  return toEmail(deps, route, email, account);
}
