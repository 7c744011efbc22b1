// Sending from the Mail app: compose (a new thread), reply and forward (in the thread), each one
// message through the send pipeline (acceptSends: suppressions, spend caps, usage, idempotency and
// the sender rules apply as to any send), then filed in its thread with recordMailMessage at
// acceptance, so the `sent` view and the thread detail show it at once (its status follows).
// Compose sends only from a verified domain of the account outside the sandbox.
import { getAccount } from '../../accounts/service';
import { isFullyVerified } from '../../domains/model';
import { domainOf, normalizeAddress, parseMailbox } from '../../formats/address';
import { ApiError, NotFoundError } from '../../errors';
import { forwardedText, originalAttachment } from '../routes/forward';
import { readInbound } from '../receipt/read';
import { threadIdOf } from '../receipt/thread';
import { InboundRepository, type InboundEmailItem } from '../receipt/repository';
import type { InboundEmailView } from '../receipt/schemas';
import { MAX_SENT_MESSAGE_BYTES, sentMessageBytes, type MessageExtras } from '../../sending/messages/extras';
import type { SendResponse } from '../../sending/messages/schemas';
import { acceptSends, suppressedError, type SendDeps, type Sender } from '../../sending/messages/send';
import { loadSenderContext, type SenderContext } from '../../sending/messages/sender';
import { forwardSubject, replyHeaders, replySubject } from './compose-headers';
import { MAIL_KEY_PREFIX, type ComposeBody, type ForwardBody, type ReplyBody } from './compose-schemas';
import { recordMailMessage } from './record';
import { MailSettingsRepository } from './settings-repository';
import { MailThreadRepository, type MailThreadEntryItem } from './threads-repository';

export type MailSendDeps = SendDeps;

/** One message to send from the Mail app and file in a thread. */
interface Outgoing {
  /** The thread it joins; for compose, made from the new message's id. */
  thread: string | ((messageId: string) => string);
  to: string;
  /** `address` or `Name <address>`, as metadata.from_email takes it. */
  from: string;
  subject: string;
  html?: string;
  text?: string;
  idempotencyKey?: string;
  extras?: MessageExtras;
}

const blankToUndefined = (v: string | undefined): string | undefined => (v !== undefined && v.trim() !== '' ? v : undefined);

/** `mail_<the client's key>`, or `mail_<ulid>` when it gave none. */
const mailKey = (deps: MailSendDeps, given: string | undefined): string => `${MAIL_KEY_PREFIX}${given ?? deps.ids.next('msg').slice('msg_'.length)}`;

async function senderContext(deps: MailSendDeps, sender: Sender): Promise<SenderContext> {
  const account = sender.account ?? (await getAccount(deps.store, sender.accountId));
  if (!account) throw new ApiError('unauthorized', 'unknown account');
  return loadSenderContext(deps.store, account, deps.config.sharedEmailSender);
}

/**
 * The Mail app never sends from the sandbox's shared sender: in sandbox mode the answer is what
 * the send rules say of a from on an unverified domain (domain_not_verified for a domain of the
 * account whose DNS is unfinished, no_verified_domain otherwise). Outside it, acceptSends checks
 * the from itself (from_not_verified, domain_not_verified).
 */
function requireOwnDomain(ctx: SenderContext, from: string | undefined): void {
  if (!ctx.sandboxMode) return;
  const address = from === undefined ? undefined : parseMailbox(from)?.address;
  if (address && ctx.domains.has(domainOf(address))) {
    throw new ApiError('domain_not_verified', `${domainOf(address)} is registered but its DNS records are not verified yet; the Mail app sends only from a verified domain`);
  }
  throw new ApiError('no_verified_domain', 'the Mail app sends only from a verified domain of your own outside the sandbox; the account has none yet');
}

/** Compose without `from`: the oldest inbox on a verified domain, else mail@ the oldest verified domain. */
async function defaultFrom(deps: MailSendDeps, ctx: SenderContext): Promise<string> {
  const verified = [...ctx.domains.values()].filter(isFullyVerified).sort((a, b) => (a.created_at === b.created_at ? a.domain.localeCompare(b.domain) : a.created_at < b.created_at ? -1 : 1));
  const names = new Set(verified.map((d) => d.domain));
  const inboxes = (await new MailSettingsRepository(deps.store).inboxes(ctx.account.id)).sort((a, b) => (a.id < b.id ? -1 : 1));
  const inbox = inboxes.find((i) => names.has(domainOf(i.address)));
  if (inbox) return inbox.address;
  const domain = verified[0];
  if (!domain) throw new ApiError('no_verified_domain', 'the Mail app sends only from a verified domain of your own; the account has none');
  return `mail@${domain.domain}`;
}

/** Sends one message and files it in its thread; the send pipeline's refusals are thrown as they are. */
async function sendInThread(deps: MailSendDeps, sender: Sender, out: Outgoing): Promise<SendResponse> {
  const request = {
    channel: 'email',
    idempotency_key: mailKey(deps, out.idempotencyKey),
    destination: { email: out.to },
    payload: { subject: out.subject, ...(out.html !== undefined ? { body_html: out.html } : {}), ...(out.text !== undefined ? { body_text: out.text } : {}) },
    metadata: { from_email: out.from },
  };
  const [outcome] = await acceptSends(deps, sender, [request], { batch: false, ...(out.extras ? { extras: out.extras } : {}) });
  if (!outcome) throw new Error('send produced no outcome');
  if (outcome.kind === 'rejected') throw outcome.error;
  if (outcome.kind === 'suppressed') throw suppressedError(outcome.message);
  const message = outcome.message;
  const fromAddress = parseMailbox(out.from)?.address ?? normalizeAddress(out.from);
  // A retry with the same key replays the acceptance and files it again: recordMailMessage counts it once.
  await recordMailMessage(deps, {
    account_id: sender.accountId,
    source: 'outbound',
    id: message.id,
    thread_id: typeof out.thread === 'string' ? out.thread : out.thread(message.id),
    occurred_at: message.created_at,
    from: fromAddress,
    to: [normalizeAddress(out.to)],
    cc: [],
    subject: out.subject,
    text: out.text ?? null,
    address: fromAddress,
  });
  return message;
}

/** A new thread of one outbound message. */
export async function composeMail(deps: MailSendDeps, sender: Sender, body: ComposeBody): Promise<SendResponse> {
  const ctx = await senderContext(deps, sender);
  requireOwnDomain(ctx, body.from);
  const from = body.from ?? (await defaultFrom(deps, ctx));
  return sendInThread(deps, { ...sender, account: ctx.account }, {
    // The thread is named by the message, as a received conversation is by its first Message-ID.
    thread: (messageId) => threadIdOf({ accountId: sender.accountId, rfcMessageId: `<${messageId}@postbox>`, inReplyTo: null, references: [], subject: null, participants: [] }),
    to: body.to,
    from,
    subject: body.subject,
    html: blankToUndefined(body.body_html),
    text: blankToUndefined(body.body_text),
    idempotencyKey: body.idempotency_key,
  });
}

/** The caller's thread and its received messages (oldest first); 404 for an unknown or another account's thread. */
async function receivedOf(deps: MailSendDeps, accountId: string, threadId: string): Promise<MailThreadEntryItem[]> {
  const threads = new MailThreadRepository(deps.store);
  if (!(await threads.get(accountId, threadId))) throw new NotFoundError('thread');
  const received = (await threads.entries(accountId, threadId)).filter((e) => e.source === 'inbound');
  if (received.length === 0) throw new ApiError('conflict', 'the thread holds no received message to answer; compose a new message instead');
  return received;
}

/** The newest received message of the thread, stored item and full form. */
async function newestReceived(deps: MailSendDeps, accountId: string, received: readonly MailThreadEntryItem[]): Promise<{ item: InboundEmailItem; view: InboundEmailView }> {
  const newest = received[received.length - 1] as MailThreadEntryItem;
  const [item, view] = await Promise.all([new InboundRepository(deps.store).get(accountId, newest.id), readInbound(deps, accountId, newest.id)]);
  if (!item) throw new NotFoundError('inbound email');
  return { item, view };
}

/**
 * A reply in the thread to its newest received message: In-Reply-To and References join it there
 * (and in the recipient's client), from the address that message came to, with `Re: ` and its
 * subject. Omitted `to`: the sender of the thread's first received message.
 */
export async function replyToThread(deps: MailSendDeps, sender: Sender, threadId: string, body: ReplyBody): Promise<SendResponse> {
  const received = await receivedOf(deps, sender.accountId, threadId);
  const ctx = await senderContext(deps, sender);
  const { item, view } = await newestReceived(deps, sender.accountId, received);
  requireOwnDomain(ctx, item.recipient);
  const to = body.to ?? received.find((e) => e.from)?.from ?? undefined;
  if (!to) throw new ApiError('invalid_request', 'body.to: the thread’s received mail names no sender to reply to; give to');
  const headers = replyHeaders(view);
  return sendInThread(deps, { ...sender, account: ctx.account }, {
    thread: threadId,
    to,
    from: item.recipient,
    subject: replySubject(view.subject),
    html: blankToUndefined(body.body_html),
    text: blankToUndefined(body.body_text),
    idempotencyKey: body.idempotency_key,
    ...(headers.length > 0 ? { extras: { headers } } : {}),
  });
}

/**
 * The thread's newest received message forwarded to `to`, from the address it came to: the
 * original attached as message/rfc822 when it fits SES's limit, and the text part (when given)
 * followed by the quoted original as route forwards quote it. Filed in the same thread.
 */
export async function forwardThread(deps: MailSendDeps, sender: Sender, threadId: string, body: ForwardBody): Promise<SendResponse> {
  const received = await receivedOf(deps, sender.accountId, threadId);
  const ctx = await senderContext(deps, sender);
  const { item, view } = await newestReceived(deps, sender.accountId, received);
  requireOwnDomain(ctx, item.recipient);
  const email = { ...item, text: view.text, raw_size: item.size_bytes };
  const subject = body.subject ?? forwardSubject(view.subject);
  const html = blankToUndefined(body.body_html);
  const own = blankToUndefined(body.body_text);
  const textWith = (original: Parameters<typeof forwardedText>[1]): string | undefined => (own === undefined ? undefined : `${own}\n\n${forwardedText(email, original)}`);
  const { original, attachment } = await originalAttachment(
    deps.objects,
    email,
    (size) => sentMessageBytes({ subject, html, text: textWith({ kind: 'attached' }), attachmentSizes: [size] }) <= MAX_SENT_MESSAGE_BYTES,
  );
  return sendInThread(deps, { ...sender, account: ctx.account }, {
    thread: threadId,
    to: body.to,
    from: item.recipient,
    subject,
    html,
    text: textWith(original),
    idempotencyKey: body.idempotency_key,
    ...(attachment ? { extras: { attachments: [attachment] } } : {}),
  });
}
