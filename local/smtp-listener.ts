// The local stand-in for SES receiving: an SMTP server on HOST:INBOUND_SMTP_PORT. It takes a
// recipient only on a domain whose inbound is enabled (550 at RCPT otherwise) and a message up to
// the size limit (552 past it, counted as it arrives; one over 1 MiB streams to a temp file, never whole in memory), at
// most 50 recipients a message (452 past them, as SES), 64 connections at once and a minute of
// silence per connection (421 past either), then
// does what SES's receipt rule does: SPF, DKIM and DMARC verdicts (mailauth against DNS_SERVERS;
// spam and virus GRAY, there is no scanner), the raw message into the object store, and an SES
// `Received` notification in its SNS envelope onto the inbound queue, where the same worker as in
// AWS takes it. The client hears 250 only once the object is stored and the notification is in the
// queue's journal, so a kill -9 at any moment loses no message that was accepted. Under `npm start`
// it runs on the functions thread (functions-worker.ts), its work off the API's event loop.
import { randomHex } from '../shared/crypto/crypto';
import { mkdir, rm } from 'node:fs/promises';
import { Resolver } from 'node:dns/promises';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { authenticate } from 'mailauth';
import { SMTPServer, type SMTPServerDataStream, type SMTPServerSession } from 'smtp-server';
import { domainOfAddress, inboundDomainOf } from '../shared/inbound-mail/receipt/domains';
import { asSnsEnvelope, type ReceiptNotification, type SesVerdict } from '../shared/inbound-mail/receipt/messages';
import type { Container } from '../shared/runtime/container';
import { describeError, type Logger } from '../shared/adapters/logger';
import { heldReadable, holdStream, putHeld, releaseHeld, type Held } from '../shared/formats/held-stream';

export interface SmtpListenerOptions {
  host: string;
  port: number;
  maxBytes: number;
  /** Where a message waits while it arrives (DATA_DIR/inbound-tmp). */
  tmpDir: string;
  container: Pick<Container, 'store' | 'objects' | 'queue' | 'clock' | 'config'>;
  logger: Logger;
  /** A connection that says nothing for this long hears 421 and is closed (default 60 s; tests set less). */
  idleTimeoutMs?: number;
  /** Connections at once; one more hears 421 and is closed (default 64). */
  maxClients?: number;
}

/** SES receiving takes at most 50 recipients per message; the 51st RCPT hears 452 (RFC 5321 4.5.3.1.8). */
export const MAX_RECIPIENTS = 50;
export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_CLIENTS = 64;
/** How long close() lets connections in the middle of something finish before it ends them. */
const CLOSE_TIMEOUT_MS = 10_000;

export interface SmtpListener {
  /** smtp://host:port */
  url: string;
  port: number;
  close(): Promise<void>;
}

const LOCAL_BUCKET = 'local-inbound';

/** An SMTP reply with its code, as smtp-server expects it. */
function smtpError(code: number, message: string): Error {
  const error = new Error(message) as Error & { responseCode: number };
  error.responseCode = code;
  return error;
}

export interface Verdicts {
  spf: SesVerdict;
  dkim: SesVerdict;
  dmarc: SesVerdict;
}

const mapResult = (result: string | undefined): SesVerdict => {
  switch (result) {
    case 'pass':
      return 'PASS';
    case 'fail':
    case 'softfail':
      return 'FAIL';
    case 'temperror':
    case 'permerror':
      return 'PROCESSING_FAILED';
    default:
      return 'GRAY';
  }
};

/** SES's verdicts, computed for real: SPF of the envelope sender, every DKIM signature, DMARC. */
async function verdictsOf(message: Held, session: SMTPServerSession, dnsServers: readonly string[], logger: Logger): Promise<Verdicts> {
  const resolver = new Resolver({ timeout: 3000, tries: 2 });
  if (dnsServers.length > 0) resolver.setServers([...dnsServers]);
  try {
    const result = await authenticate(message.bytes ?? heldReadable(message), {
      ip: (session.remoteAddress ?? '127.0.0.1').replace(/^::ffff:/, ''),
      helo: session.hostNameAppearsAs,
      sender: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
      mta: 'inbound.postbox.local',
      resolver: ((name: string, rrtype: string) => resolver.resolve(name, rrtype)) as never,
    });
    const dkimResults = (result.dkim?.results ?? []).map((r) => r.status?.result);
    const dkim: SesVerdict = dkimResults.includes('pass') ? 'PASS' : dkimResults.includes('fail') ? 'FAIL' : dkimResults.some((r) => r === 'temperror' || r === 'permerror') ? 'PROCESSING_FAILED' : 'GRAY';
    const spf = result.spf && typeof result.spf === 'object' ? mapResult(result.spf.status?.result) : 'GRAY';
    const dmarc = result.dmarc && typeof result.dmarc === 'object' ? mapResult(result.dmarc.status?.result) : 'GRAY';
    return { spf, dkim, dmarc };
  } catch (error) {
    logger.warn('inbound authentication failed; verdicts PROCESSING_FAILED', { error: describeError(error) });
    return { spf: 'PROCESSING_FAILED', dkim: 'PROCESSING_FAILED', dmarc: 'PROCESSING_FAILED' };
  }
}

/** SES's `Received` notification of a message its S3 action stored (spam and virus GRAY: no scanner); the rehearsal's receipt rule builds it too. */
export function receivedNotification(args: { timestamp: string; source: string; sesMessageId: string; recipients: string[]; verdicts: Verdicts; bucketName: string; objectKey: string }): ReceiptNotification {
  const { timestamp, recipients, verdicts } = args;
  return {
    notificationType: 'Received',
    mail: { timestamp, source: args.source, messageId: args.sesMessageId, destination: recipients },
    receipt: {
      timestamp,
      recipients,
      spfVerdict: { status: verdicts.spf },
      dkimVerdict: { status: verdicts.dkim },
      dmarcVerdict: { status: verdicts.dmarc },
      spamVerdict: { status: 'GRAY' },
      virusVerdict: { status: 'GRAY' },
      action: { type: 'S3', bucketName: args.bucketName, objectKey: args.objectKey },
    },
  };
}

type Receive = (stream: SMTPServerDataStream, session: SMTPServerSession) => Promise<void>;

/** A message up to this size waits in memory while it is checked and stored; a larger one in a temp file. */
export const IN_MEMORY_MESSAGE_BYTES = 1024 * 1024;

/**
 * One message's DATA: held in memory or, when large, streamed to a temp file (past the size limit
 * the rest is read and dropped, 552), its verdicts, the message into the object store, the
 * notification onto the inbound queue. Resolves once both are done: only then does the client hear 250.
 */
function receiverOf(options: SmtpListenerOptions): Receive {
  const { container: c, logger, maxBytes } = options;
  return async (stream, session) => {
    const sesMessageId = randomHex(20);
    let held: Held | undefined;
    try {
      held = await holdStream(stream, { inMemoryBytes: IN_MEMORY_MESSAGE_BYTES, maxBytes, fileFor: async () => join(options.tmpDir, `${sesMessageId}.eml`) });
      if (stream.sizeExceeded || held.exceeded) throw smtpError(552, `5.3.4 Message exceeds the ${maxBytes} byte limit`);

      const verdicts = await verdictsOf(held, session, c.config.dnsServers, logger);
      const now = c.clock.now().toISOString();
      const objectKey = `inbound/${sesMessageId}`;
      // A large message is streamed from its file, as SES writes it to S3: never whole in memory.
      await putHeld(c.objects, objectKey, held, 'message/rfc822');
      const recipients = session.envelope.rcptTo.map((r) => r.address);
      const source = session.envelope.mailFrom ? session.envelope.mailFrom.address : '';
      const notification = receivedNotification({ timestamp: now, source, sesMessageId, recipients, verdicts, bucketName: LOCAL_BUCKET, objectKey });
      await c.queue.send('inbound', asSnsEnvelope(notification, randomHex(16)));
    } finally {
      await releaseHeld(held);
    }
  };
}

function serverOf(options: SmtpListenerOptions, receive: Receive): SMTPServer {
  const { container: c, logger } = options;
  return new SMTPServer({
    name: 'inbound.postbox.local',
    banner: 'Postbox inbound (local SES receiving)',
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    size: options.maxBytes,
    // As SES: at most 50 recipients a message; the sender gets 452 for the rest and may send them in another.
    maxRecipients: MAX_RECIPIENTS,
    // A laptop's share: more senders than this at once are told 421 and retry, as at any busy MX.
    maxClients: options.maxClients ?? DEFAULT_MAX_CLIENTS,
    // An idle connection holds a place among maxClients: one that says nothing for a minute is closed
    // (421), so idle sockets cannot keep real senders out for long.
    socketTimeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    closeTimeout: CLOSE_TIMEOUT_MS,
    logger: false,
    onRcptTo(address, _session, callback) {
      const domain = domainOfAddress(address.address);
      (domain ? inboundDomainOf(c.store, domain) : Promise.resolve(undefined)).then(
        (found) => callback(found ? null : smtpError(550, `5.1.1 ${address.address}: inbound mail is not enabled for this domain`)),
        (error: unknown) => {
          logger.error('inbound recipient check failed', { error: describeError(error) });
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
    onData(stream, session, callback) {
      receive(stream, session).then(
        () => callback(null, 'Message accepted'),
        (error: unknown) => {
          if (error instanceof Error && (error as { responseCode?: number }).responseCode) return callback(error);
          logger.error('inbound message could not be stored', { error: describeError(error) });
          callback(smtpError(451, '4.3.0 Temporary failure, try again later'));
        },
      );
    },
  });
}

export async function startSmtpListener(options: SmtpListenerOptions): Promise<SmtpListener> {
  await rm(options.tmpDir, { recursive: true, force: true }); // what a killed process left arriving was never accepted
  await mkdir(options.tmpDir, { recursive: true });
  const server = serverOf(options, receiverOf(options));
  server.on('error', (error) => options.logger.warn('smtp listener error', { error: describeError(error) }));
  await new Promise<void>((ok, fail) => {
    server.server.once('error', fail);
    server.listen(options.port, options.host, () => ok());
  });
  const { port } = server.server.address() as AddressInfo;
  const host = options.host.includes(':') ? `[${options.host}]` : options.host;
  return {
    url: `smtp://${host}:${port}`,
    port,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}
