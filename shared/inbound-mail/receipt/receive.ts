// A received message, from SES's receipt notification to stored inbound emails (one per recipient
// on an inbound-enabled domain) and their email.received events. What was received stays as
// received: a message is known by the SHA-256 of its raw bytes (with the account and recipient), so
// only the same bytes again (an SNS or SQS redelivery of the same object) find the email stored
// before, and anything else, even with the same Message-ID, is an email of its own. Safe to run
// again for the same notification: attachments and content are rewritten under the same keys, the
// receipt gives a redelivered message the id it was first stored under, a stored email is never
// written again, and the event's id is fixed by it (the webhook fan-out makes one delivery per
// subscription and event).
import { createHash } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Transform, type Readable } from 'node:stream';
import { finished } from 'node:stream/promises';
import type { Store } from '../../db/store';
import type { Ids } from '../../ports/ids';
import type { Clock } from '../../ports/clock';
import type { ObjectStore } from '../../ports/object-store';
import type { Queue } from '../../ports/queue';
import type { Logger } from '../../ports/logger';
import { batchMemo, type PerBatch } from '../../concurrency';
import { normalizeAddress } from '../../formats/address';
import { holdStream, putHeld, releaseHeld } from '../../formats/held-stream';
import { publishEvent, subscriptionsOf } from '../../webhooks/deliver';
import { receivedEnvelope } from './received-event';
import { domainHolderOf, domainOfAddress, inboundIsOn } from './domains';
import type { ReceiptNotification } from './messages';
import { attachmentKey, contentKey } from './object-keys';
import { parseMessage, type ParsedMessage } from './parse';
import { InboundRepository, type InboundContent, type InboundEmailItem } from './repository';
import { threadIdOf } from './thread';

/** What storing a message needs. */
export interface InboundDeps {
  store: Store;
  objects: ObjectStore;
  queue: Queue;
  ids: Ids;
  clock: Clock;
  logger: Logger;
  /** The consumer batch's memo, when there is one (an account's webhook subscriptions read once per batch). */
  perBatch?: PerBatch;
}

/**
 * What the areas above the receipt do with it, passed in by the composition root
 * (shared/runtime/receipt-listeners.ts), so the receipt knows neither the Mail app nor the routes.
 */
export interface ReceiptListeners {
  /** What they read of the account for mail to `address`, read beside the receipt's own reads of the account. */
  prepare(accountId: string, address: string): Promise<PreparedListeners>;
}

export interface PreparedListeners {
  /** The Mail app inbox that holds the address now, if any (kept on the email, never changed later). */
  inboxId: string | null;
  /**
   * Run in order after each stored inbound email, on every delivery of its notification, so each
   * is idempotent per email id: the Mail app files it, the account's matching route forwards it.
   */
  received: ReadonlyArray<(email: InboundEmailItem, text: string | null) => Promise<void>>;
}

/** Content larger than this (as JSON) goes to the object store; the table keeps items small. */
const INLINE_CONTENT_BYTES = 64 * 1024;


export type ReceiveOutcome = { recipient: string; outcome: 'stored'; id: string } | { recipient: string; outcome: 'not_inbound' };

/** An attachment up to this size is put from memory; a larger one goes through a file as it is read. */
export const IN_MEMORY_ATTACHMENT_BYTES = 1024 * 1024;

export async function receiveInbound(deps: InboundDeps, listeners: ReceiptListeners, notification: ReceiptNotification): Promise<ReceiveOutcome[]> {
  const rawKey = notification.receipt.action.objectKey;
  // A memo for the message (the batch's when there is one): the webhook subscriptions read beside the account's other reads are the ones publishEvent uses.
  const memoDeps = { ...deps, perBatch: deps.perBatch ?? batchMemo() };
  // Who each recipient is depends on the notification alone: those reads go on while the message is
  // read. A failure surfaces where its recipient is stored; none is left unhandled if the read fails first.
  const accounts = notification.receipt.recipients.map((recipient) => {
    const read = recipientAccount(memoDeps, listeners, recipient);
    read.catch(() => undefined);
    return read;
  });
  const raw = await deps.objects.getStream(rawKey);
  // SES stored it before notifying: a missing object is a fault to retry (and then look at in the DLQ).
  if (!raw) throw new Error(`the raw message ${rawKey} is not in the object store`);

  // The message is read as a stream and its attachments go to the object store one at a time:
  // memory holds the bodies' text and at most one small attachment, never the message or a large
  // file (a message may be 40 MB; a Lambda's /tmp holds it, its memory need not). The spool
  // directory is made with the first large attachment: most messages have none.
  let spool: Promise<string> | undefined;
  const bytes = digesting(raw.body);
  let parsed: ParsedMessage;
  let rawDigest: string;
  try {
    parsed = await parseMessage(bytes.stream, async (index, attachment) => {
      const fileFor = async () => join(await (spool ??= mkdtemp(join(tmpdir(), 'postbox-inbound-'))), String(index));
      const held = await holdStream(attachment.content, { inMemoryBytes: IN_MEMORY_ATTACHMENT_BYTES, fileFor });
      try {
        await putHeld(deps.objects, attachmentKey(rawKey, index), held, attachment.contentType);
      } finally {
        await releaseHeld(held);
      }
      return held.size;
    });
    rawDigest = await bytes.digest();
  } finally {
    bytes.stream.destroy();
    raw.body.destroy();
    if (spool) await rm(await spool, { recursive: true, force: true });
  }
  if (parsed.malformed) deps.logger.warn('inbound message could not be fully parsed; kept raw with what was read', { objectKey: rawKey });

  const content: InboundContent = { text: parsed.text, html: parsed.html, headers: parsed.headers, rfc_message_id: parsed.rfcMessageId };
  const contentJson = JSON.stringify(content);
  const inlineContent = Buffer.byteLength(contentJson) <= INLINE_CONTENT_BYTES;
  if (!inlineContent) await deps.objects.put(contentKey(rawKey), Buffer.from(contentJson), 'application/json');

  const outcomes: ReceiveOutcome[] = [];
  const message: Received = { parsed, content, rawKey, rawDigest, size: raw.size, notification, stored: inlineContent ? 'inline' : 'object' };
  for (const [i, recipient] of notification.receipt.recipients.entries()) outcomes.push(await receiveFor(memoDeps, message, recipient, await accounts[i]!));
  return outcomes;
}

/** What storing a message for a recipient reads of its account: who holds the domain, and what its areas need. */
interface RecipientAccount {
  holder: { accountId: string; domain: string };
  prepared: PreparedListeners;
}

/** The recipient's account, when its domain receives: the domain's holder, then its reads side by side. */
async function recipientAccount(deps: InboundDeps & { perBatch: PerBatch }, listeners: ReceiptListeners, recipient: string): Promise<RecipientAccount | undefined> {
  const domainName = domainOfAddress(recipient);
  const holder = domainName ? await domainHolderOf(deps.store, domainName) : undefined;
  if (!holder) return undefined;
  // The account's reads side by side: whether inbound is on for the domain, what the listeners need, its webhook subscriptions.
  const [inbound, prepared] = await Promise.all([inboundIsOn(deps.store, holder), listeners.prepare(holder.accountId, normalizeAddress(recipient)), subscriptionsOf(deps, holder.accountId)]);
  return inbound ? { holder, prepared } : undefined;
}

/** A read message, as each of its recipients is stored from it. */
interface Received {
  parsed: ParsedMessage;
  content: InboundContent;
  rawKey: string;
  rawDigest: string;
  size: number;
  notification: ReceiptNotification;
  /** Where its content is: inline in the content item, or the JSON in the object store (contentKey). */
  stored: 'inline' | 'object';
}

/** Stores the message for one recipient (claim, email, event, listeners), or says its domain does not receive. */
async function receiveFor(deps: InboundDeps & { perBatch: PerBatch }, m: Received, recipient: string, account: RecipientAccount | undefined): Promise<ReceiveOutcome> {
  if (!account) {
    // SES's rule matched a domain this deployment no longer receives for: nothing to store it under.
    deps.logger.warn('inbound recipient on a domain without inbound; not stored', { recipient, objectKey: m.rawKey });
    return { recipient, outcome: 'not_inbound' };
  }
  const { holder, prepared } = account;
  const repo = new InboundRepository(deps.store);
  // Never the Message-ID: anyone may send another message under a Message-ID they know.
  const digest = receiptDigest(holder.accountId, recipient, m.rawDigest);
  // The first delivery's id and raw object (a second copy of the same bytes under another key
  // names the same message; the first copy's attachments and content are beside it).
  const claimed = await repo.claimReceipt(digest, holder.accountId, { inboundId: deps.ids.next('inb'), rawKey: m.rawKey });
  const { parsed } = m;
  const email = await repo.putOnce(
    toItem(parsed, { id: claimed.inboundId, accountId: holder.accountId, domain: holder.domain, recipient, inboxId: prepared.inboxId, rawKey: claimed.rawKey, size: m.size, notification: m.notification }),
    m.stored === 'inline' ? { content: m.content } : { content_key: contentKey(claimed.rawKey) },
  );
  // The event and the listeners (each idempotent per email id) go side by side; a failure of either retries the job.
  await Promise.all([
    publishEvent(deps, receivedEnvelope(email, parsed.text, 'subscription')),
    (async () => {
      for (const listener of prepared.received) await listener(email, parsed.text);
    })(),
  ]);
  return { recipient, outcome: 'stored', id: email.id };
}

/** What a received message is known by for one recipient: the same only for the same bytes to the same account and address. */
export function receiptDigest(accountId: string, recipient: string, rawSha256: string): string {
  return createHash('sha256').update(`raw-sha256\n${accountId}\n${normalizeAddress(recipient)}\n${rawSha256}`).digest('hex');
}

/**
 * The raw message passed on unchanged, its SHA-256 taken on the way. `digest()` reads what the
 * parser left (it stops early on a malformed message), so the digest always covers every byte,
 * and rejects when the raw object could not be read to its end (the job is retried).
 */
export function digesting(source: Readable): { stream: Transform; digest: () => Promise<string> } {
  const hash = createHash('sha256');
  const stream = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      hash.update(chunk);
      done(null, chunk);
    },
  });
  source.on('error', (error) => stream.destroy(error));
  source.pipe(stream);
  return {
    stream,
    digest: async () => {
      stream.unpipe();
      stream.resume();
      await finished(stream);
      return hash.digest('hex');
    },
  };
}

function toItem(
  parsed: ParsedMessage,
  at: { id: string; accountId: string; domain: string; recipient: string; inboxId: string | null; rawKey: string; size: number; notification: ReceiptNotification },
): Omit<InboundEmailItem, 'pk' | 'sk' | 'entity'> {
  const { receipt } = at.notification;
  return {
    id: at.id,
    account_id: at.accountId,
    domain: at.domain,
    recipient: at.recipient,
    // The Mail app inbox that held the recipient's address when the message arrived (never changed later).
    inbox_id: at.inboxId,
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
