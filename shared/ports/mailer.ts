export interface OutboundEmail {
  /** RFC 5322 mailbox, e.g. `Acme <hello@acme.test>`. */
  from: string;
  to: string;
  subject: string;
  html?: string;
  text?: string;
  /** Our message id travels as a message tag so provider events find their way back. */
  messageId: string;
  accountId: string;
  /** Headers besides the provider's own, e.g. List-Unsubscribe on marketing mail, In-Reply-To on a reply. */
  headers?: readonly MailHeader[];
  /** Files attached to the mail (the provider encodes them), e.g. a forwarded original as message/rfc822. */
  attachments?: readonly OutboundAttachment[];
  /**
   * What the provider tracks (SES: the configuration set of that choice rewrites links and adds
   * the pixel); absent, nothing. The local runtime tracks itself and leaves it unset.
   */
  tracking?: 'opens' | 'clicks' | 'both';
}

export interface OutboundAttachment {
  filename: string;
  /** MIME type, e.g. `application/pdf`, `message/rfc822`. */
  contentType: string;
  content: Buffer;
}

export interface MailHeader {
  name: string;
  value: string;
}

export interface Mailer {
  /**
   * Hands the message to the provider; resolves with the provider's message id, and with
   * `acceptedAt` when the provider already held this message from an earlier attempt (the local
   * runtime's emulator after a crash): when it took it, which is when the message was sent.
   */
  send(email: OutboundEmail): Promise<SendReceipt>;
}

export interface SendReceipt {
  providerMessageId: string;
  /** ISO 8601; only for a message an earlier attempt handed over. */
  acceptedAt?: string;
}

/** The provider refused this message for good: retrying cannot help. */
export class PermanentSendError extends Error {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, options);
    this.name = 'PermanentSendError';
  }
}

/** Names of the SES message tags we set; the events ingest reads them back. */
export const MESSAGE_TAG = 'postbox_message_id';
export const ACCOUNT_TAG = 'postbox_account_id';

/**
 * A header every mail carries with our message id (as Postmark's X-PM-Message-Id does): it ties a
 * mail to its message when nothing else does, e.g. the local runtime finding mail the SES emulator
 * accepted before a crash (docs/api-decisions.md).
 */
export const MESSAGE_ID_HEADER = 'X-Postbox-Message-Id';
