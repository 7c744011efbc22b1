// Marketing mail's List-Unsubscribe headers through both mail paths: the SES v2 adapter's
// SendEmail request (against a mocked client), and the embedded SES emulator behind the local
// runtime's feedback simulator, which keeps them in its store.
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { mockClient } from 'aws-sdk-client-mock';
import { createRequire } from 'node:module';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { SimulatedSesFeedback } from '../../shared/adapters/local/ses-feedback';
import { ManualClock } from '../../shared/ports/clock';
import type { OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { createLogger } from '../../shared/adapters/logger';
import { startSes, type RunningSes } from '../../local/emulators';
import { unsubscribeHeaders } from '../../shared/sending/unsubscribe/links';
import { staticSecrets } from '../../shared/adapters/static-secrets';

const require = createRequire(import.meta.url);
const emulatorStore = require('aws-ses-v2-local/dist/store.js') as {
  getStoreReadonly(): { emails: Array<{ messageId: string; headers?: Array<{ name: string; value: string }> }> };
  clearStore(): void;
};

const client = (endpoint?: string) => new SESv2Client({ region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' }, ...(endpoint ? { endpoint } : {}) });
const links = { secrets: staticSecrets({ 'unsubscribe-signing-key': 'k'.repeat(32) }), config: { publicBaseUrl: 'https://mail.postbox.example' } };
const ref = { id: 'msg_01jabcdefghjkmnpqrstvwxyz0', account_id: 'acct_01jabcdefghjkmnpqrstvwxyz0', channel: 'email' as const, recipient: 'ada@example.com' };

const email = (over: Partial<OutboundEmail> = {}): OutboundEmail => ({
  from: 'Acme <news@acme.test>',
  to: 'ada@example.com',
  subject: 'News',
  text: 'News of the month',
  messageId: ref.id,
  accountId: ref.account_id,
  ...over,
});

describe('the SES v2 adapter', () => {
  it('sends the extra headers after our message id header', async () => {
    // Prepare
    const ses = client();
    const mocked = mockClient(ses);
    mocked.on(SendEmailCommand).resolves({ MessageId: 'ses-1' });
    const headers = unsubscribeHeaders(links, ref, 'Acme <news@acme.test>');

    // Act
    await new SesMailer(ses).send(email({ headers }));

    // Assess
    const token = /\/v1\/unsubscribe\/([^>]+)>/.exec(headers[0]!.value)![1];
    expect(mocked.commandCalls(SendEmailCommand)[0]?.args[0].input.Content?.Simple?.Headers).toEqual([
      { Name: 'X-Postbox-Message-Id', Value: ref.id },
      { Name: 'List-Unsubscribe', Value: `<https://mail.postbox.example/v1/unsubscribe/${token}>, <mailto:unsub+${token}@acme.test?subject=unsubscribe>` },
      { Name: 'List-Unsubscribe-Post', Value: 'List-Unsubscribe=One-Click' },
    ]);
  });

  it('sends only our message id header when a message has none (transactional mail)', async () => {
    const ses = client();
    const mocked = mockClient(ses);
    mocked.on(SendEmailCommand).resolves({ MessageId: 'ses-2' });

    await new SesMailer(ses).send(email());

    expect(mocked.commandCalls(SendEmailCommand)[0]?.args[0].input.Content?.Simple?.Headers).toEqual([{ Name: 'X-Postbox-Message-Id', Value: ref.id }]);
  });
});

describe('the local SES emulator behind the feedback simulator', () => {
  let ses: RunningSes;
  beforeEach(async () => {
    emulatorStore.clearStore();
    ses = await startSes();
  });
  afterEach(async () => ses.close());

  it('keeps the headers of the mail it holds, where a test reads them back', async () => {
    // Prepare: the mailer as the local runtime wires it.
    const queue: Queue = { send: async () => undefined, sendBatch: async () => undefined };
    const mailer = new SimulatedSesFeedback(new SesMailer(client(ses.endpoint)), { queue, clock: new ManualClock(), logger: createLogger('silent') });
    const headers = unsubscribeHeaders(links, ref, 'Acme <news@acme.test>');

    // Act
    const { providerMessageId } = await mailer.send(email({ headers }));
    await mailer.send(email({ messageId: 'msg_01jabcdefghjkmnpqrstvwxyz1', subject: 'Receipt' }));

    // Assess
    const [marketing, transactional] = emulatorStore.getStoreReadonly().emails;
    expect(marketing?.messageId).toBe(providerMessageId);
    expect(marketing?.headers).toEqual([
      { name: 'X-Postbox-Message-Id', value: ref.id },
      { name: 'List-Unsubscribe', value: headers[0]!.value },
      { name: 'List-Unsubscribe-Post', value: 'List-Unsubscribe=One-Click' },
    ]);
    expect(transactional?.headers).toEqual([{ name: 'X-Postbox-Message-Id', value: 'msg_01jabcdefghjkmnpqrstvwxyz1' }]);
  });
});
