import { SendEmailCommand, type Attachment, type SESv2Client } from '@aws-sdk/client-sesv2';
import { RetryableError } from '../../errors';
import { ACCOUNT_TAG, MESSAGE_ID_HEADER, MESSAGE_TAG, PermanentSendError, type Mailer, type OutboundAttachment, type OutboundEmail } from '../../ports/mailer';

// SES answers these for this message or this sender; sending the same message again cannot help.
const PERMANENT = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'BadRequestException',
  'NotFoundException',
  'AccountSuspendedException',
  'SendingPausedException',
]);

/**
 * An attachment as SES v2 takes it: the SDK base64s the bytes into the request, and SES writes them
 * base64 into the mail, so any bytes (8-bit, long lines, a bare LF) arrive exactly as they were,
 * a message/rfc822 original included (docs/api-decisions.md, inbound routes).
 */
const toSesAttachment = (a: OutboundAttachment): Attachment => ({
  FileName: a.filename,
  ContentType: a.contentType,
  ContentDisposition: 'ATTACHMENT',
  ContentTransferEncoding: 'BASE64',
  RawContent: a.content,
});

/** SES v2 SendEmail in AWS, and the embedded SES emulator locally: one client, another endpoint. */
export class SesMailer implements Mailer {
  constructor(
    private readonly client: SESv2Client,
    private readonly configurationSet?: string,
    /**
     * Where tracked mail goes, by its choice: SES adds the pixel in the opens set, rewrites the links
     * in the clicks set, both in the both set (lib/constructs/mail-events.ts). A stack from before the
     * per-choice sets names only `both`.
     */
    private readonly trackedConfigurationSets: { opens?: string; clicks?: string; both?: string } = {},
  ) {}

  async send(email: OutboundEmail): Promise<{ providerMessageId: string }> {
    const body: { Html?: { Data: string; Charset: string }; Text?: { Data: string; Charset: string } } = {};
    if (email.html) body.Html = { Data: email.html, Charset: 'UTF-8' };
    if (email.text) body.Text = { Data: email.text, Charset: 'UTF-8' };
    try {
      const out = await this.client.send(
        new SendEmailCommand({
          FromEmailAddress: email.from,
          Destination: { ToAddresses: [email.to] },
          Content: {
            Simple: {
              Subject: { Data: email.subject, Charset: 'UTF-8' },
              Body: body,
              Headers: [{ Name: MESSAGE_ID_HEADER, Value: email.messageId }, ...(email.headers ?? []).map((h) => ({ Name: h.name, Value: h.value }))],
              ...(email.attachments?.length ? { Attachments: email.attachments.map(toSesAttachment) } : {}),
            },
          },
          ConfigurationSetName: email.tracking ? (this.trackedConfigurationSets[email.tracking] ?? this.trackedConfigurationSets.both ?? this.configurationSet) : this.configurationSet,
          EmailTags: [
            { Name: MESSAGE_TAG, Value: email.messageId },
            { Name: ACCOUNT_TAG, Value: email.accountId },
          ],
        }),
      );
      if (!out.MessageId) throw new RetryableError('SES accepted the message without a message id');
      return { providerMessageId: out.MessageId };
    } catch (error) {
      const name = (error as { name?: string }).name ?? '';
      if (PERMANENT.has(name)) throw new PermanentSendError(`SES refused the message: ${name}: ${(error as Error).message}`, { cause: error });
      throw error;
    }
  }
}
