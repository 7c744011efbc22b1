// The SES v2 adapters against a mocked client (SES has no local stand-in for identities, and
// error paths are what matter): what we send, and how SES's answers are translated.
import {
  AlreadyExistsException,
  BadRequestException,
  CreateEmailIdentityCommand,
  DeleteEmailIdentityCommand,
  GetEmailIdentityCommand,
  LimitExceededException,
  MessageRejected,
  NotFoundException,
  PutEmailIdentityMailFromAttributesCommand,
  SendEmailCommand,
  SESv2Client,
  TooManyRequestsException,
} from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { SesIdentities } from '../../shared/adapters/aws/ses-identities';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { ApiError, RetryableError } from '../../shared/errors';
import { PermanentSendError } from '../../shared/ports/mailer';

const ses = mockClient(SESv2Client);
afterEach(() => ses.reset());
const client = () => new SESv2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });
const meta = { $metadata: {} };

describe('SesIdentities', () => {
  it('creates an Easy DKIM identity with a custom MAIL FROM domain and returns its tokens', async () => {
    ses.on(CreateEmailIdentityCommand).resolves({ DkimAttributes: { Tokens: ['a1', 'b2', 'c3'] } });
    ses.on(PutEmailIdentityMailFromAttributesCommand).resolves({});

    const out = await new SesIdentities(client()).create('acme.test', 'send.acme.test');

    expect(out).toEqual({ dkimTokens: ['a1', 'b2', 'c3'] });
    expect(ses.commandCalls(CreateEmailIdentityCommand)[0]?.args[0].input).toEqual({ EmailIdentity: 'acme.test' });
    expect(ses.commandCalls(PutEmailIdentityMailFromAttributesCommand)[0]?.args[0].input).toEqual({
      EmailIdentity: 'acme.test',
      MailFromDomain: 'send.acme.test',
      BehaviorOnMxFailure: 'USE_DEFAULT_VALUE',
    });
  });

  it('reuses an identity an earlier attempt left behind', async () => {
    ses.on(CreateEmailIdentityCommand).rejects(new AlreadyExistsException({ message: 'exists', ...meta }));
    ses.on(GetEmailIdentityCommand).resolves({ DkimAttributes: { Tokens: ['x', 'y', 'z'] } });
    ses.on(PutEmailIdentityMailFromAttributesCommand).resolves({});

    expect(await new SesIdentities(client()).create('acme.test', 'send.acme.test')).toEqual({ dkimTokens: ['x', 'y', 'z'] });
  });

  it.each([
    ['a refused domain', new BadRequestException({ message: 'Invalid domain name acme', ...meta }), 'invalid_request'],
    ['the account’s identity limit', new LimitExceededException({ message: 'Maximum identities', ...meta }), 'domain_limit_reached'],
  ])('translates %s into our envelope without SES’s words', async (_label, error, code) => {
    ses.on(CreateEmailIdentityCommand).rejects(error);

    const failure = await new SesIdentities(client()).create('acme.test', 'send.acme.test').catch((e: unknown) => e);

    expect(failure).toBeInstanceOf(ApiError);
    expect((failure as ApiError).code).toBe(code);
    expect((failure as ApiError).message).not.toContain(error.message);
    expect((failure as ApiError).cause).toBe(error);
  });

  it('treats other SES failures as retryable', async () => {
    ses.on(CreateEmailIdentityCommand).rejects(new TooManyRequestsException({ message: 'slow down', ...meta }));

    await expect(new SesIdentities(client()).create('acme.test', 'send.acme.test')).rejects.toBeInstanceOf(RetryableError);
  });

  it('removes identities, an absent one included', async () => {
    ses.on(DeleteEmailIdentityCommand).rejectsOnce(new NotFoundException({ message: 'gone', ...meta })).resolves({});

    await expect(new SesIdentities(client()).remove('gone.test')).resolves.toBeUndefined();
    await expect(new SesIdentities(client()).remove('acme.test')).resolves.toBeUndefined();
    expect(ses.commandCalls(DeleteEmailIdentityCommand).map((c) => c.args[0].input.EmailIdentity)).toEqual(['gone.test', 'acme.test']);
  });
});

describe('SesMailer', () => {
  const email = { from: 'Acme <hi@acme.test>', to: 'ada@example.com', subject: 'Hi', html: '<b>hi</b>', text: 'hi', messageId: 'msg_1', accountId: 'acct_1' };

  it('sends through the configuration set with our ids as message tags and our message id as a header', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-123' });

    const out = await new SesMailer(client(), 'postbox-events').send(email);

    expect(out).toEqual({ providerMessageId: 'ses-123' });
    expect(ses.commandCalls(SendEmailCommand)[0]?.args[0].input).toMatchObject({
      FromEmailAddress: 'Acme <hi@acme.test>',
      Destination: { ToAddresses: ['ada@example.com'] },
      ConfigurationSetName: 'postbox-events',
      EmailTags: [
        { Name: 'postbox_message_id', Value: 'msg_1' },
        { Name: 'postbox_account_id', Value: 'acct_1' },
      ],
      Content: {
        Simple: {
          Subject: { Data: 'Hi', Charset: 'UTF-8' },
          Body: { Html: { Data: '<b>hi</b>', Charset: 'UTF-8' }, Text: { Data: 'hi', Charset: 'UTF-8' } },
          Headers: [{ Name: 'X-Postbox-Message-Id', Value: 'msg_1' }],
        },
      },
    });
  });

  // The mock, not the SES emulator: aws-ses-v2-local parses ConfigurationSetName and keeps nothing of it.
  it('names the configuration set of the mail\'s tracking choice, and the default one for untracked mail', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-123' });
    const mailer = new SesMailer(client(), 'postbox-events', { opens: 'postbox-opens', clicks: 'postbox-clicks', both: 'postbox-tracked' });

    for (const tracking of ['opens', 'clicks', 'both'] as const) await mailer.send({ ...email, tracking });
    await mailer.send(email);
    await new SesMailer(client(), 'postbox-events', { both: 'postbox-tracked' }).send({ ...email, tracking: 'opens' });
    await new SesMailer(client(), 'postbox-events').send({ ...email, tracking: 'both' });

    expect(ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input.ConfigurationSetName)).toEqual([
      'postbox-opens',
      'postbox-clicks',
      'postbox-tracked',
      'postbox-events',
      // A stack from before the per-choice sets names only the both set.
      'postbox-tracked',
      // A deployment without a tracked set (an older stack) sends through its one set.
      'postbox-events',
    ]);
  });

  it('maps caller-set headers after our own and attachments to Simple.Attachments, base64 and as attachments; none when there are none', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'ses-124' });
    const eml = Buffer.from('From: a@example.org\r\n\r\n\u00e9\n', 'utf8');

    await new SesMailer(client()).send({
      ...email,
      headers: [
        { name: 'X-Forwarded-For', value: 'ada@example.org' },
        { name: 'In-Reply-To', value: '<a@example.org>' },
      ],
      attachments: [{ filename: 'forwarded-message.eml', contentType: 'message/rfc822', content: eml }],
    });
    await new SesMailer(client()).send({ ...email, attachments: [] });

    const [withExtras, without] = ses.commandCalls(SendEmailCommand).map((call) => call.args[0].input.Content?.Simple);
    expect(withExtras?.Headers).toEqual([
      { Name: 'X-Postbox-Message-Id', Value: 'msg_1' },
      { Name: 'X-Forwarded-For', Value: 'ada@example.org' },
      { Name: 'In-Reply-To', Value: '<a@example.org>' },
    ]);
    expect(withExtras?.Attachments).toEqual([{ FileName: 'forwarded-message.eml', ContentType: 'message/rfc822', ContentDisposition: 'ATTACHMENT', ContentTransferEncoding: 'BASE64', RawContent: eml }]);
    expect(without).not.toHaveProperty('Attachments');
  });

  it('calls a rejection permanent and throttling retryable', async () => {
    ses.on(SendEmailCommand).rejectsOnce(new MessageRejected({ message: 'Email address is not verified.', ...meta })).rejectsOnce(new TooManyRequestsException({ message: 'Maximum sending rate exceeded.', ...meta }));
    const mailer = new SesMailer(client());

    await expect(mailer.send(email)).rejects.toBeInstanceOf(PermanentSendError);
    await expect(mailer.send(email)).rejects.toBeInstanceOf(TooManyRequestsException);
  });
});
