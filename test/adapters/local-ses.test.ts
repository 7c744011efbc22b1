// The embedded SES emulator as the local runtime runs it: its mail file is written before a
// SendEmail answer leaves, and the mail it holds is found by our message id, so a send retried
// after a crash is not sent twice.
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SesMailer } from '../../shared/adapters/aws/ses-mailer';
import { SimulatedSesFeedback } from '../../shared/adapters/local/ses-feedback';
import { simulatedSnsMessageId } from '../../shared/sending/ses-events/ses-notification';
import { ManualClock } from '../../shared/ports/clock';
import type { OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { createLogger } from '../../shared/adapters/logger';
import { startSes, type RunningSes } from '../../local/emulators';
import { waitFor } from '../support/wait';

const require = createRequire(import.meta.url);
/** The emulator's module-level store: it outlives a server in this process, unlike in a restart. */
const emulatorStore = require('aws-ses-v2-local/dist/store.js') as {
  getStoreReadonly(): { emails: Array<{ messageId: string; headers?: Array<{ name: string; value: string }> }> };
  clearStore(): void;
};

let dir: string;
let mailFile: string;
let ses: RunningSes | undefined;

const client = (endpoint: string) => new SESv2Client({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'x', secretAccessKey: 'y' } });

const email = (messageId: string): OutboundEmail => ({
  from: 'Acme <hello@acme.test>',
  to: 'ada@example.test',
  subject: `About ${messageId}`,
  text: 'Hi Ada',
  messageId,
  accountId: 'acct_01jabcdefghjkmnpqrstvwxyz0',
});

const kept = (): Array<{ messageId: string; headers?: Array<{ name: string; value: string }> }> =>
  existsSync(mailFile)
    ? readFileSync(mailFile, 'utf8')
        .split('\n')
        .filter((line) => line !== '')
        .map((line) => JSON.parse(line))
    : [];

/** A process that dies loses the emulator's memory; the file is all that is left for the next start. */
async function killAndStart(): Promise<RunningSes> {
  await ses?.close();
  emulatorStore.clearStore();
  ses = await startSes({ mailFile });
  return ses;
}

beforeEach(async () => {
  emulatorStore.clearStore();
  dir = mkdtempSync(join(tmpdir(), 'postbox-ses-'));
  mailFile = join(dir, 'ses-mail.jsonl');
  ses = await startSes({ mailFile });
});

afterEach(async () => {
  await ses?.close();
  ses = undefined;
  rmSync(dir, { recursive: true, force: true });
});

describe('the SES emulator of the local runtime', () => {
  it('has the mail in its file when the SendEmail answer reaches the client', async () => {
    // Prepare
    const body = JSON.stringify({
      FromEmailAddress: 'hello@acme.test',
      Destination: { ToAddresses: ['ada@example.test'] },
      Content: { Simple: { Subject: { Data: 'Persisted first' }, Body: { Text: { Data: 'hi' } } } },
    });
    const url = new URL('/v2/email/outbound-emails', (ses as RunningSes).endpoint);

    // Act: read the file at the first moment the client can know the send succeeded.
    const { status, inFile } = await new Promise<{ status?: number; inFile: string[] }>((resolve, reject) => {
      const req = request(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'AWS4-HMAC-SHA256 Credential=x/20260301/us-east-1/ses/aws4_request' } }, (res) => {
        const inFile = kept().map((m) => m.messageId);
        res.resume();
        resolve({ status: res.statusCode, inFile });
      });
      req.once('error', reject);
      req.end(body);
    });

    // Assess
    expect(status).toBe(200);
    expect(inFile).toEqual(emulatorStore.getStoreReadonly().emails.map((m) => m.messageId));
    expect(inFile).toHaveLength(1);
  });

  it('carries our message id in a header and finds the mail by it, across a restart too', async () => {
    // Prepare
    const mailer = new SesMailer(client((ses as RunningSes).endpoint));

    // Act
    const { providerMessageId } = await mailer.send(email('msg_kept'));
    const found = (ses as RunningSes).sentMail('msg_kept');
    const restarted = await killAndStart();

    // Assess
    expect(found?.providerMessageId).toBe(providerMessageId);
    expect((ses as RunningSes).sentMail('msg_other')).toBeUndefined();
    expect(kept()).toEqual([expect.objectContaining({ messageId: providerMessageId, headers: [{ name: 'X-Postbox-Message-Id', value: 'msg_kept' }] })]);
    expect(restarted.sentMail('msg_kept')).toEqual(found);
  });

  it('takes attachments and caller-set headers: the emulator holds the exact bytes and every header', async () => {
    // Prepare: bytes no text encoding would keep (8-bit, NUL, a bare CR).
    const eml = Buffer.concat([Buffer.from('From: a@example.org\r\nSubject: x\r\n\r\n'), Buffer.from([0xe9, 0x00, 0x0d, 0xff, 0x0a])]);

    // Act
    const { providerMessageId } = await new SesMailer(client((ses as RunningSes).endpoint)).send({
      ...email('msg_attached'),
      headers: [{ name: 'X-Forwarded-To', value: 'support@acme.test' }],
      attachments: [{ filename: 'forwarded-message.eml', contentType: 'message/rfc822', content: eml }],
    });

    // Assess
    const mail = emulatorStore.getStoreReadonly().emails.find((m) => m.messageId === providerMessageId) as unknown as {
      headers: Array<{ name: string; value: string }>;
      attachments: Array<{ filename: string; contentType: string; content: string; size: number }>;
    };
    expect(mail.headers).toEqual([
      { name: 'X-Postbox-Message-Id', value: 'msg_attached' },
      { name: 'X-Forwarded-To', value: 'support@acme.test' },
    ]);
    expect(mail.attachments).toEqual([expect.objectContaining({ filename: 'forwarded-message.eml', contentType: 'message/rfc822', size: eml.length })]);
    expect(Buffer.from(mail.attachments[0]!.content, 'base64').equals(eml)).toBe(true);
  });

  it('keeps only the newest mail in memory, and still finds, lists and restores every mail from its file', async () => {
    // Prepare: an emulator that keeps 5 mails in memory.
    await ses?.close();
    emulatorStore.clearStore();
    ses = await startSes({ mailFile, mailInMemory: 5 });
    const mailer = new SesMailer(client(ses.endpoint));
    const sent: string[] = [];

    // Act
    for (let i = 0; i < 12; i++) sent.push((await mailer.send(email(`msg_many_${i}`))).providerMessageId);

    // Assess: memory holds the newest 5; the file, the lookup, /store and the held mail all 12.
    expect(emulatorStore.getStoreReadonly().emails.map((m) => m.messageId)).toEqual(sent.slice(-5));
    expect(ses.mailCounts()).toEqual({ indexed: 12, inMemory: 5 });
    expect(kept().map((m) => m.messageId)).toEqual(sent);
    expect(ses.sentMail('msg_many_0')?.providerMessageId).toBe(sent[0]);
    const listed = (await (await fetch(`${ses.endpoint}/store`)).json()) as { emails: Array<{ messageId: string }> };
    expect(listed.emails.map((m) => m.messageId)).toEqual(sent);
    const since = (await (await fetch(`${ses.endpoint}/store?since=${Math.floor(Date.now() / 1000) + 60}`)).json()) as { emails: unknown[] };
    expect(since.emails).toEqual([]);
    expect((await fetch(`${ses.endpoint}/store?since=soon`)).status).toBe(400);
    const eml = await fetch(`${ses.endpoint}/get-emlContent?messageId=${sent[0]}`);
    expect(eml.status).toBe(200);
    expect(ses.heldMail().map((m) => m.messageId)).toEqual(sent.map((_, i) => `msg_many_${i}`));

    // And after a restart, only the newest 5 come back into memory; every one is found.
    await ses.close();
    emulatorStore.clearStore();
    ses = await startSes({ mailFile, mailInMemory: 5 });
    expect(ses.mailCounts()).toEqual({ indexed: 12, inMemory: 5 });
    expect(ses.sentMail('msg_many_0')?.providerMessageId).toBe(sent[0]);
    expect(kept()).toHaveLength(12);
  });

  it('forgets the mail the viewer clears', async () => {
    const { endpoint } = ses as RunningSes;
    await new SesMailer(client(endpoint)).send(email('msg_cleared'));
    expect((ses as RunningSes).sentMail('msg_cleared')).toEqual({ providerMessageId: expect.any(String), at: expect.any(String) });

    await fetch(`${endpoint}/clear-store`, { method: 'POST' });

    expect((ses as RunningSes).sentMail('msg_cleared')).toBeUndefined();
    expect(kept()).toEqual([]);
  });

  it('through the feedback simulator, sends a retried message once and answers with the same id and when the emulator took it', async () => {
    // Prepare: the mailer as the local runtime wires it.
    const queued: unknown[] = [];
    const queue: Queue = { send: async (_q, body) => void queued.push(body), sendBatch: async () => undefined };
    const deps = { queue, clock: new ManualClock(), logger: createLogger('silent'), sentMail: (ses as RunningSes).sentMail };
    const mailer = new SimulatedSesFeedback(new SesMailer(client((ses as RunningSes).endpoint)), deps);
    const before = Math.floor(Date.now() / 1000) * 1000;
    const first = await mailer.send(email('msg_retried'));
    const after = Date.now();

    // Act: the worker died after the emulator accepted the mail; the process starts again and the job comes back.
    const restarted = await killAndStart();
    const again = await new SimulatedSesFeedback(new SesMailer(client(restarted.endpoint)), { ...deps, sentMail: restarted.sentMail }).send(email('msg_retried'));

    // Assess
    expect(again).toEqual({ ...first, acceptedAt: expect.any(String) });
    const acceptedAt = Date.parse(again.acceptedAt as string);
    expect(acceptedAt >= before && acceptedAt <= after).toBe(true);
    expect(emulatorStore.getStoreReadonly().emails.map((m) => m.messageId)).toEqual([first.providerMessageId]);
    expect(kept()).toHaveLength(1);
    expect(queued).toHaveLength(2);
    expect((queued[1] as { MessageId: string }).MessageId).toBe((queued[0] as { MessageId: string }).MessageId);
  });

  it('queues at the next start the Delivery owed for a mail the emulator took just before a kill, once, with its SNS MessageId', async () => {
    // Prepare: one mail reported as usual, then one whose report the kill took: the emulator
    // answered, and the process died before the notification reached the queue.
    const ledger = join(dir, 'ses-feedback.jsonl');
    const queued: Array<{ MessageId: string; Message: string }> = [];
    const queue: Queue = { send: async (_q, body) => void queued.push(body as { MessageId: string; Message: string }), sendBatch: async () => undefined };
    const wire = (running: RunningSes, to: Queue) =>
      new SimulatedSesFeedback(new SesMailer(client(running.endpoint)), {
        queue: to,
        clock: new ManualClock(),
        logger: createLogger('silent'),
        sentMail: running.sentMail,
        durable: { heldMail: running.heldMail, ledger },
      });
    await wire(ses as RunningSes, queue).recover(); // the first start: nothing owed
    const reported = await wire(ses as RunningSes, queue).send(email('msg_reported'));
    const dying: Queue = { send: () => new Promise(() => undefined), sendBatch: async () => undefined };
    const lost = wire(ses as RunningSes, dying).send(email('msg_lost')); // never answers: the process is gone
    await waitFor(() => (ses as RunningSes).sentMail('msg_lost') !== undefined, { what: 'the emulator to take the mail' });
    void lost;

    // Act
    const restarted = await killAndStart();
    const owed = await wire(restarted, queue).recover();
    const again = await wire(restarted, queue).recover();

    // Assess: the lost mail's Delivery, once, as the send would have queued it; nothing for the reported one.
    const providerMessageId = restarted.sentMail('msg_lost')?.providerMessageId as string;
    expect([owed, again]).toEqual([1, 0]);
    expect(queued).toHaveLength(2);
    expect(queued[1]?.MessageId).toBe(simulatedSnsMessageId(providerMessageId, 'Delivery'));
    expect(queued[0]?.MessageId).toBe(simulatedSnsMessageId(reported.providerMessageId, 'Delivery'));
    const notification = JSON.parse(queued[1]!.Message);
    expect(notification).toMatchObject({ eventType: 'Delivery', mail: { messageId: providerMessageId, destination: ['ada@example.test'], tags: { postbox_message_id: ['msg_lost'] } } });
  });

  it('starts the ledger of a data directory from before it as every mail reported', async () => {
    await new SesMailer(client((ses as RunningSes).endpoint)).send(email('msg_old'));
    const queued: unknown[] = [];
    const queue: Queue = { send: async (_q, body) => void queued.push(body), sendBatch: async () => undefined };

    const restarted = await killAndStart();
    const feedback = new SimulatedSesFeedback(new SesMailer(client(restarted.endpoint)), {
      queue,
      clock: new ManualClock(),
      logger: createLogger('silent'),
      durable: { heldMail: restarted.heldMail, ledger: join(dir, 'ses-feedback.jsonl') },
    });

    expect(await feedback.recover()).toBe(0);
    expect(queued).toEqual([]);
    expect(readFileSync(join(dir, 'ses-feedback.jsonl'), 'utf8')).toContain(restarted.sentMail('msg_old')?.providerMessageId as string);
  });
});

