// The local SMTP listener's limits against a real SMTP conversation over TCP: at most 50
// recipients a message (452 past them, as SES receiving), idle connections closed with 421, and a
// bounded number of connections at once (421 past it).
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createLogger } from '../../shared/adapters/logger';
import { IN_MEMORY_MESSAGE_BYTES, MAX_RECIPIENTS, startSmtpListener, type SmtpListener, type SmtpListenerOptions } from '../../local/smtp-listener';
import { createTestContainer, type TestContainer } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';
import { waitFor } from '../support/wait';

const DOMAIN = 'limits.test';

let c: TestContainer;
let tmpRoot: string;
const listeners: SmtpListener[] = [];
const sockets: Socket[] = [];

async function listen(options: Partial<SmtpListenerOptions> = {}): Promise<SmtpListener> {
  const listener = await startSmtpListener({
    host: '127.0.0.1',
    port: 0,
    maxBytes: 100_000,
    tmpDir: mkdtempSync(join(tmpRoot, 'tmp-')),
    container: c,
    logger: createLogger('silent'),
    ...options,
  });
  listeners.push(listener);
  return listener;
}

/** A raw SMTP client: what the server said, and a wait for its next reply with a code. */
function client(listener: SmtpListener) {
  const socket = connect(listener.port, '127.0.0.1');
  sockets.push(socket);
  let heard = '';
  socket.on('data', (d: Buffer) => (heard += d.toString()));
  socket.on('error', () => undefined); // a server that closes first may reset the socket; the tests read what was heard
  const closed = once(socket, 'close');
  return {
    socket,
    closed,
    heard: () => heard,
    /** Resolves with the reply line once one with this code arrived; the lines before it are dropped. */
    reply: async (code: number): Promise<string> => {
      const line = await waitFor(() => new RegExp(`^${code}[ -].*$`, 'm').exec(heard)?.[0], { what: () => `SMTP ${code}, heard: ${heard}` });
      heard = heard.slice(heard.indexOf(line) + line.length);
      return line;
    },
    say: (line: string) => socket.write(`${line}\r\n`),
  };
}

type Smtp = ReturnType<typeof client>;

/** Past the greeting: EHLO answered. */
async function greeted(smtp: Smtp): Promise<void> {
  await smtp.reply(220);
  smtp.say('EHLO mx.sender.test');
  await smtp.reply(250);
}

/** One message's envelope to `held@` the domain, up to the 354 that asks for its DATA. */
async function toData(smtp: Smtp): Promise<void> {
  smtp.say('MAIL FROM:<alice@sender.test>');
  await smtp.reply(250);
  smtp.say(`RCPT TO:<held@${DOMAIN}>`);
  await smtp.reply(250);
  smtp.say('DATA');
  await smtp.reply(354);
}

/** A message of `size` body bytes in lines of 76 characters. */
const sized = (subject: string, size: number, fill = 'x'): string => `Subject: ${subject}\r\n\r\n${fill.repeat(76).concat('\r\n').repeat(Math.ceil(size / 78)).slice(0, size)}\r\n`;

beforeAll(async () => {
  c = await createTestContainer();
  tmpRoot = mkdtempSync(join(tmpdir(), 'postbox-smtp-limits-'));
  const account = await createAccount(c, { email: 'owner@example.com' });
  await giveVerifiedDomain(c, account.account_id, DOMAIN, { inbound_enabled: true });
});
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(listeners.splice(0).map((l) => l.close()));
});
afterAll(async () => {
  await c.testStore.close();
  rmSync(tmpRoot, { recursive: true, force: true });
});

describe('the SMTP listener', () => {
  it(`holds a message of up to ${IN_MEMORY_MESSAGE_BYTES} bytes in memory and streams a larger one through a temp file, storing each whole and leaving no file`, async () => {
    const tmpDir = mkdtempSync(join(tmpRoot, 'held-'));
    const smtp = client(await listen({ maxBytes: 4 * IN_MEMORY_MESSAGE_BYTES, tmpDir }));
    const put = vi.spyOn(c.objects, 'put');
    const putFile = vi.spyOn(c.objects, 'putFile');
    const message = (size: number) => `From: alice@sender.test\r\n${sized('sized', size)}`;
    const [small, large] = [message(10_000), message(2 * IN_MEMORY_MESSAGE_BYTES)];
    try {
      await greeted(smtp);
      for (const data of [small, large]) {
        await toData(smtp);
        smtp.socket.write(`${data}.\r\n`);
        await smtp.reply(250);
      }
      expect(put.mock.calls.map((call) => (call[1] as Buffer).length)).toEqual([Buffer.byteLength(small)]);
      expect(putFile).toHaveBeenCalledTimes(1);
    } finally {
      put.mockRestore();
      putFile.mockRestore();
    }
    const keys = c.sent.filter((m) => m.queue === 'inbound').slice(-2).map((m) => JSON.parse((m.body as { Message: string }).Message).receipt.action.objectKey as string);
    const stored = await Promise.all(keys.map(async (key) => (await c.objects.get(key))?.body.toString()));
    expect(stored).toEqual([small, large]);
    expect(readdirSync(tmpDir)).toEqual([]);
  });

  it('answers 552 to a message past the size limit after it outgrew memory, storing nothing and leaving no file', async () => {
    const tmpDir = mkdtempSync(join(tmpRoot, 'over-'));
    const maxBytes = IN_MEMORY_MESSAGE_BYTES + IN_MEMORY_MESSAGE_BYTES / 2;
    const smtp = client(await listen({ maxBytes, tmpDir }));
    const queued = c.sent.length;
    await greeted(smtp);
    await toData(smtp);
    smtp.socket.write(`${sized('too big', 2 * IN_MEMORY_MESSAGE_BYTES, 'y')}.\r\n`);

    expect(await smtp.reply(552)).toMatch(/exceeds/);
    expect(c.sent.length).toBe(queued);
    expect(readdirSync(tmpDir)).toEqual([]);
  });

  it(`takes ${MAX_RECIPIENTS} recipients a message and answers 452 too many recipients past them`, async () => {
    const smtp = client(await listen());
    await smtp.reply(220);
    smtp.say('EHLO mx.sender.test');
    await smtp.reply(250);
    smtp.say('MAIL FROM:<alice@sender.test>');
    await smtp.reply(250);
    for (let i = 1; i <= MAX_RECIPIENTS; i++) {
      smtp.say(`RCPT TO:<r${i}@${DOMAIN}>`);
      await smtp.reply(250);
    }

    smtp.say(`RCPT TO:<r${MAX_RECIPIENTS + 1}@${DOMAIN}>`);
    const refused = await smtp.reply(452);
    smtp.say(`RCPT TO:<r${MAX_RECIPIENTS + 2}@${DOMAIN}>`);
    const again = await smtp.reply(452);

    expect(MAX_RECIPIENTS).toBe(50);
    expect(refused).toMatch(/too many recipients/i);
    expect(again).toMatch(/too many recipients/i);
    smtp.say('RSET');
    await smtp.reply(250);
  });

  // Its own timeout well under the listener's default minute, so a listener that ignored the option fails here.
  it('closes a connection that stays silent past the idle timeout, with 421', { timeout: 20_000 }, async () => {
    const smtp = client(await listen({ idleTimeoutMs: 300 }));
    await smtp.reply(220);
    smtp.say('EHLO mx.sender.test');
    await smtp.reply(250);

    await smtp.closed; // nothing more is said: the server ends it

    expect(smtp.heard()).toMatch(/^421 .*timeout/im);
  });

  it('answers 421 to a connection past the most it serves at once, and serves the others', async () => {
    const listener = await listen({ maxClients: 2 });
    const first = client(listener);
    const second = client(listener);
    await first.reply(220);
    await second.reply(220);

    const third = client(listener);
    const refused = await third.reply(421);
    await third.closed;

    expect(refused).toMatch(/too many/i);
    first.say('NOOP');
    await first.reply(250);
  });
});
