// A received message, from SES's receipt notification to stored inbound emails (one per recipient
// on an inbound-enabled domain) and their email.received events. Safe to run again for the same
// notification: attachments and content are rewritten under the same keys, the receipt gives a
// redelivered message the id it was first stored under, and the event's id is fixed by it (the
// webhook fan-out makes one delivery per subscription and event).
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { Store } from '../db/store';
import type { Ids } from '../ids';
import type { Clock } from '../ports/clock';
import type { ObjectStore } from '../ports/object-store';
import type { Queue } from '../ports/queue';
import type { Logger } from '../runtime/logger';
import { forwardInbound, type ForwardDeps } from '../inbound-routes/forward';
import { recordInboundMail } from '../mail/record';
import { publishEvent } from '../webhooks/deliver';
import { domainOfAddress, inboundDomainOf } from './domains';
import type { ReceiptNotification } from './messages';
import { attachmentKey, contentKey } from './object-keys';
import { parseMessage, type ParsedMessage } from './parse';
import { InboundRepository, type InboundContent, type InboundEmailItem } from './repository';
import { threadIdOf } from './thread';

/** What storing a message needs, and what forwarding it through the account's routes needs (shared/inbound-routes/forward.ts). */
export type InboundDeps = ForwardDeps & {
  store: Store;
  objects: ObjectStore;
  queue: Queue;
  ids: Ids;
  clock: Clock;
  logger: Logger;
};

/** Content larger than this (as JSON) goes to the object store; the table keeps items small. */
const INLINE_CONTENT_BYTES = 64 * 1024;
/** The webhook payload's text is cut here: a queue message (and SQS's 256 KB) carries the envelope. */
export const PAYLOAD_TEXT_CHARS = 32 * 1024;


async function collect(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

export type ReceiveOutcome = { recipient: string; outcome: 'stored'; id: string } | { recipient: string; outcome: 'not_inbound' };

export async function receiveInbound(deps: InboundDeps, notification: ReceiptNotification): Promise<ReceiveOutcome[]> {
  const rawKey = notification.receipt.action.objectKey;
  const raw = await deps.objects.get(rawKey);
  // SES stored it before notifying: a missing object is a fault to retry (and then look at in the DLQ).
  if (!raw) throw new Error(`the raw message ${rawKey} is not in the object store`);

  // Each attachment is stored as the parser reaches it, one at a time.
  const parsed = await parseMessage(Readable.from([raw.body]), async (index, attachment) => {
    const bytes = await collect(attachment.content);
    await deps.objects.put(attachmentKey(rawKey, index), bytes, attachment.contentType);
    return bytes.length;
  });
  if (parsed.malformed) deps.logger.warn('inbound message could not be fully parsed; kept raw with what was read', { objectKey: rawKey });

  const content: InboundContent = { text: parsed.text, html: parsed.html, headers: parsed.headers, rfc_message_id: parsed.rfcMessageId };
  const contentJson = JSON.stringify(content);
  const inlineContent = Buffer.byteLength(contentJson) <= INLINE_CONTENT_BYTES;
  if (!inlineContent) await deps.objects.put(contentKey(rawKey), Buffer.from(contentJson), 'application/json');

  const outcomes: ReceiveOutcome[] = [];
  const repo = new InboundRepository(deps.store);
  for (const recipient of notification.receipt.recipients) {
    const domainName = domainOfAddress(recipient);
    const target = domainName ? await inboundDomainOf(deps.store, domainName) : undefined;
    if (!target) {
      // SES's rule matched a domain this deployment no longer receives for: nothing to store it under.
      deps.logger.warn('inbound recipient on a domain without inbound; not stored', { recipient, objectKey: rawKey });
      outcomes.push({ recipient, outcome: 'not_inbound' });
      continue;
    }
    const dedupOn = parsed.rfcMessageId ?? `ses:${notification.mail.messageId}`;
    const digest = createHash('sha256').update(`${dedupOn}\n${recipient.toLowerCase()}`).digest('hex');
    const id = await repo.claimReceipt(digest, target.accountId, deps.ids.next('inb'));
    const email = await repo.put(
      toItem(parsed, { id, accountId: target.accountId, domain: target.domain, recipient, rawKey, size: raw.body.length, notification }),
      inlineContent ? { content } : { content_key: contentKey(rawKey) },
    );
    await publishEvent(deps, receivedEvent(email, parsed.text));
    await afterReceived(deps, email, parsed.text);
    outcomes.push({ recipient, outcome: 'stored', id });
  }
  return outcomes;
}

function toItem(
  parsed: ParsedMessage,
  at: { id: string; accountId: string; domain: string; recipient: string; rawKey: string; size: number; notification: ReceiptNotification },
): Omit<InboundEmailItem, 'pk' | 'sk' | 'entity'> {
  const { receipt } = at.notification;
  return {
    id: at.id,
    account_id: at.accountId,
    domain: at.domain,
    recipient: at.recipient,
    inbox_id: null,
    from: parsed.from,
    to: parsed.to,
    cc: parsed.cc,
    subject: parsed.subject,
    spf_verdict: receipt.spfVerdict.status,
    dkim_verdict: receipt.dkimVerdict.status,
    dmarc_verdict: receipt.dmarcVerdict.status,
    spam_verdict: receipt.spamVerdict.status,
    virus_verdict: receipt.virusVerdict.status,
    attachments: parsed.attachments.map((a) => ({ filename: a.filename, content_type: a.content_type, size: a.size })),
    size_bytes: at.size,
    received_at: new Date(receipt.timestamp).toISOString(),
    thread_id: threadIdOf({
      accountId: at.accountId,
      rfcMessageId: parsed.rfcMessageId,
      inReplyTo: parsed.inReplyTo,
      references: parsed.references,
      subject: parsed.subject,
      participants: [...(parsed.from ? [parsed.from] : []), ...parsed.to, ...parsed.cc],
    }),
    raw_key: at.rawKey,
    ...(parsed.malformed ? { malformed: true } : {}),
  };
}

/** The email.received envelope: its ids are the inbound email's, so every redelivery sends the same event. */
function receivedEvent(email: InboundEmailItem, text: string | null) {
  return {
    event_id: `evt_${email.id}`,
    event_type: 'email.received',
    message_id: email.id,
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

/**
 * Runs after each stored inbound email, on every delivery of its notification, so it is idempotent
 * per email id: the account's matching inbound route forwards it (a webhook delivery keyed by the
 * email and route, or a send with the idempotency key `inbound-forward:<inb id>:<route id>`).
 */
export async function afterReceived(deps: InboundDeps, email: InboundEmailItem, text: string | null): Promise<void> {
  await recordInboundMail(deps, email, text);
  const outcome = await forwardInbound(deps, {
    id: email.id,
    account_id: email.account_id,
    domain: email.domain,
    recipient: email.recipient,
    from: email.from ?? '',
    to: email.to,
    subject: email.subject ?? '',
    text: text ?? '',
    spam_verdict: email.spam_verdict,
    virus_verdict: email.virus_verdict,
    attachments: email.attachments,
    received_at: email.received_at,
    raw_key: email.raw_key,
  });
  if (outcome.kind !== 'unrouted') deps.logger.info('inbound email forwarded by a route', { inboundId: email.id, outcome: outcome.kind });
}
