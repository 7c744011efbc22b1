// Forwarding a received message through the account's inbound routes. The inbound worker calls
// forwardInbound after storing a message; it needs only the small shape below. A webhook route
// gets the email.received envelope (message_id "") as a delivery of its own on the webhooks
// queue; an email route sends a new outbound message through the send pipeline, so suppressions,
// spend caps and usage apply as to any send.
import { acceptSends, type SendDeps, type SendOutcome } from '../messages/send';
import type { Random } from '../ports/random';
import type { Scheduler } from '../ports/scheduler';
import type { Secrets } from '../ports/secrets';
import { deliveryIdFor, LOG_RETENTION_S } from '../webhooks/deliver';
import type { WebhookJob } from '../webhooks/messages';
import { DeliveryRepository } from '../webhooks/repository';
import { matchRoute } from './match';
import { RouteRepository, type RouteItem } from './repository';

/** What forwarding needs of a stored inbound email (the spec's email.received payload fields and where it came to). */
export interface ForwardableEmail {
  id: string;
  account_id: string;
  domain: string;
  recipient: string;
  from: string;
  to: string[];
  subject: string;
  text: string;
  spam_verdict: string;
  virus_verdict: string;
  attachments: Array<{ filename: string | null; content_type: string; size: number }>;
  received_at: string;
  /** Where the raw message is kept in the object store, when it was. */
  raw_key?: string;
}

export type ForwardDeps = SendDeps & { secrets: Pick<Secrets, 'get'>; scheduler: Scheduler; random: Random };

export type ForwardOutcome =
  | { kind: 'unrouted' }
  /** `queued` false: an earlier call made this delivery and its first attempt already. */
  | { kind: 'webhook'; route_id: string; delivery_id: string; queued: boolean }
  | { kind: 'email'; route_id: string; outcome: SendOutcome };

/** The forwarded text is cut here: the send pipeline's content limits are the message's, not the original's. */
export const MAX_FORWARDED_TEXT = 200_000;

/** The envelope a webhook route receives: email.received, message_id "" (the spec's rule for route forwards). */
export function routeEnvelope(email: ForwardableEmail, createdAt: string): Record<string, unknown> {
  return {
    event_id: `evt_${email.id.replace(/^inb_/, '')}`,
    event_type: 'email.received',
    message_id: '',
    account_id: email.account_id,
    payload: {
      id: email.id,
      domain: email.domain,
      recipient: email.recipient,
      from: email.from,
      to: email.to,
      subject: email.subject,
      text: email.text,
      spam_verdict: email.spam_verdict,
      virus_verdict: email.virus_verdict,
      attachments: email.attachments,
      received_at: email.received_at,
    },
    occurred_at: email.received_at,
    created_at: createdAt,
  };
}

/** The forwarded message's text: the original's headers as a mail client quotes them, then its text. */
export function forwardedText(email: ForwardableEmail): string {
  const text = email.text.length > MAX_FORWARDED_TEXT ? `${email.text.slice(0, MAX_FORWARDED_TEXT)}\n[… cut at ${MAX_FORWARDED_TEXT} characters]` : email.text;
  const attachments = email.attachments.length ? `Attachments (not forwarded): ${email.attachments.map((a) => a.filename || '(unnamed)').join(', ')}\n` : '';
  return [
    '---------- Forwarded message ---------',
    `From: ${email.from}`,
    `Date: ${email.received_at}`,
    `Subject: ${email.subject}`,
    `To: ${email.to.join(', ')}`,
    `Delivered-To: ${email.recipient}`,
    `${attachments}Inbound-Id: ${email.id}`,
    '',
    text,
  ].join('\n');
}

async function toWebhook(deps: ForwardDeps, route: RouteItem, email: ForwardableEmail): Promise<ForwardOutcome> {
  const deliveries = new DeliveryRepository(deps.store);
  const now = deps.clock.now();
  const envelope = routeEnvelope(email, now.toISOString());
  const eventId = envelope.event_id as string;
  const deliveryId = deliveryIdFor(eventId);
  const created = await deliveries.create({
    id: deliveryId,
    subscription_id: route.id,
    account_id: route.account_id,
    event_id: eventId,
    event_type: 'email.received',
    status: 'pending',
    attempt_count: 0,
    response_status: 0,
    body: JSON.stringify(envelope),
    created_at: now.toISOString(),
    updated_at: now.toISOString(),
    expires_at: Math.floor(now.getTime() / 1000) + LOG_RETENTION_S,
  });
  if (!created) {
    // The same message handed over again: only a delivery that never got its first attempt starts again.
    const existing = await deliveries.get(route.id, deliveryId);
    if (existing && existing.attempt_count > 0) return { kind: 'webhook', route_id: route.id, delivery_id: deliveryId, queued: false };
  }
  const job: WebhookJob = { kind: 'route_attempt', account_id: route.account_id, route_id: route.id, delivery_id: deliveryId, attempt: 1 };
  await deps.queue.send('webhooks', job);
  return { kind: 'webhook', route_id: route.id, delivery_id: deliveryId, queued: true };
}

async function toEmail(deps: ForwardDeps, route: RouteItem, email: ForwardableEmail): Promise<ForwardOutcome> {
  const request = {
    channel: 'email',
    // One forward per message and route, however often the worker hands the message over.
    idempotency_key: `inbound-forward:${email.id}:${route.id}`,
    destination: { email: route.forward_address },
    payload: { subject: `Fwd: ${email.subject}`.slice(0, 998), body_text: forwardedText(email) },
    // From the address the mail came to: its domain is verified (inbound needs it).
    metadata: { from_email: email.recipient },
  };
  const [outcome] = await acceptSends(deps, { accountId: route.account_id, keyId: `route:${route.id}`, testMode: false }, [request], { batch: false });
  return { kind: 'email', route_id: route.id, outcome: outcome! };
}

/** Finds the route that takes the message and forwards it; unrouted when none matches. */
export async function forwardInbound(deps: ForwardDeps, email: ForwardableEmail): Promise<ForwardOutcome> {
  const route = matchRoute(await new RouteRepository(deps.store).all(email.account_id), email.recipient);
  if (!route) return { kind: 'unrouted' };
  if (route.destination_type === 'webhook') return toWebhook(deps, route, email);
  return toEmail(deps, route, email);
}
