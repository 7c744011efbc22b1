// Receiving mail through the local runtime as a sender's MTA would: real SMTP to the listener, real
// SPF/DKIM/DMARC against a DNS server on loopback, the inbound worker, the read routes, and
// email.received delivered to a real local receiver and checked by its signature.
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import iconv from 'iconv-lite';
import { dkimSign } from 'mailauth';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import type { InboundEmailItem } from '../../shared/inbound-mail/receipt/repository';
import { readLocalSettings } from '../../shared/runtime/config';
import { startLocalRuntime, type LocalRuntime } from '../../local/runtime';
import { createLogger } from '../../shared/adapters/logger';
import { signatureOf } from '../../shared/webhooks/deliver';
import { startDnsServer, type RunningDns } from '../support/dns-server';
import { admitted, api } from '../support/local-process';
import { receiptJob } from '../support/receipt';
import { waitFor } from '../support/wait';

const DOMAIN = 'inbound.test';
const SENDER = 'sender.test';
const MAX_BYTES = 200_000;

let dataDir: string;
let dns: RunningDns;
let runtime: LocalRuntime;
let key: string;
let smtpPort: number;
let privateKey: string;
let receiver: Server;
const hooks: Array<{ headers: Record<string, string | string[] | undefined>; body: string }> = [];
let hookSecret: string;

/** One SMTP conversation; resolves with the server's answer, rejects with its error (responseCode). */
async function deliver(raw: Buffer | string, to: string[] = [`hello@${DOMAIN}`], from = `alice@${SENDER}`): Promise<string> {
  const transport = createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true, name: `mx.${SENDER}` });
  try {
    const info = await transport.sendMail({ envelope: { from, to }, raw });
    return info.response;
  } finally {
    transport.close();
  }
}

function message(headers: Record<string, string>, body: string): string {
  return `${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n${body}`;
}

/** A GET whose answer is read as bytes (raw, attachments), once the rate limiter admits it. */
const fetchAs = (path: string, as = key): Promise<Response> => admitted(() => fetch(`${runtime.url}${path}`, { headers: { authorization: `Bearer ${as}` } }), `GET ${path}`);

let seq = 0;
const uniqueId = (): string => `<m${++seq}.${Date.now()}@${SENDER}>`;

async function emailWithSubject(subject: string): Promise<any> {
  return waitFor(
    async () => {
      const res = await api(runtime.url, 'GET', '/v1/inbound?limit=100', key);
      return (res.body.emails as any[]).find((e) => e.subject === subject);
    },
    { what: `an inbound email with subject ${subject}`, timeoutMs: 20_000, intervalMs: 100 },
  );
}

beforeAll(async () => {
  const keyPair = generateKeyPairSync('rsa', { modulusLength: 2048 });
  privateKey = keyPair.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  const p = keyPair.publicKey.export({ type: 'spki', format: 'der' }).toString('base64');
  dns = await startDnsServer({
    [SENDER]: { txt: ['v=spf1 ip4:127.0.0.1 -all'], mx: [{ exchange: `mx.${SENDER}`, priority: 10 }] },
    [`sel._domainkey.${SENDER}`]: { txt: [[`v=DKIM1; k=rsa; p=${p.slice(0, 200)}`, p.slice(200)]] },
    [`_dmarc.${SENDER}`]: { txt: ['v=DMARC1; p=reject'] },
  });
  receiver = createServer((req, res) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString()));
    req.on('end', () => {
      hooks.push({ headers: req.headers, body });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((ok) => receiver.listen(0, '127.0.0.1', () => ok()));

  dataDir = mkdtempSync(join(tmpdir(), 'postbox-inbound-'));
  const settings = readLocalSettings({
    HOST: '127.0.0.1',
    PORT: '0',
    SES_PORT: '0',
    INBOUND_SMTP_PORT: '0',
    INBOUND_MAX_BYTES: String(MAX_BYTES),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'silent',
    DNS_SERVERS: dns.server,
    WEBHOOK_ALLOW_PRIVATE: 'true',
    QUEUE_RETRY_DELAY_SECONDS: '1',
  });
  runtime = await startLocalRuntime(settings, functions, { logger: createLogger('silent') });
  key = runtime.bootstrap.admin_key;
  smtpPort = Number(new URL(runtime.smtpUrl ?? '').port);

  // The domain, with inbound on as POST /v1/domains/{id}/inbound leaves it (another slice's route).
  const created = await api(runtime.url, 'POST', '/v1/domains', key, { domain: DOMAIN });
  expect(created.status).toBe(201);
  await runtime.container.store.update(keys.domain(runtime.bootstrap.account_id, DOMAIN), { expression: 'SET inbound_enabled = :on', values: { ':on': true } });

  const hook = await api(runtime.url, 'POST', '/v1/webhooks', key, { endpoint_url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, event_types: ['email.received'] });
  expect(hook.status).toBe(201);
  hookSecret = hook.body.signing_secret;
}, 60_000);

afterAll(async () => {
  await runtime?.close();
  await dns?.close();
  await new Promise<void>((ok) => (receiver ? receiver.close(() => ok()) : ok()));
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

describe('the local SMTP listener', () => {
  it('takes a plain message and keeps its exact bytes', async () => {
    const raw = message({ From: `Alice <alice@${SENDER}>`, To: `hello@${DOMAIN}`, Cc: `bob@${SENDER}`, Subject: 'Plain hello', 'Message-ID': uniqueId(), Date: new Date().toUTCString() }, 'Hello there.\r\n');
    expect(await deliver(raw)).toMatch(/^250 /);
    const email = await emailWithSubject('Plain hello');
    expect(email).toMatchObject({
      account_id: runtime.bootstrap.account_id,
      domain: DOMAIN,
      recipient: `hello@${DOMAIN}`,
      inbox_id: null,
      from: `alice@${SENDER}`,
      to: [`hello@${DOMAIN}`],
      cc: [`bob@${SENDER}`],
      attachments: [],
      size_bytes: Buffer.byteLength(raw),
    });
    expect(email.id).toMatch(/^inb_/);
    expect(email.thread_id).toMatch(/^thr_/);
    expect(email).not.toHaveProperty('text');
    const full = await api(runtime.url, 'GET', `/v1/inbound/${email.id}`, key);
    expect(full.status).toBe(200);
    expect(full.body).toMatchObject({ text: 'Hello there.\n', html: null });
    expect(full.body.rfc_message_id).toMatch(/^<m\d+\./);
    expect(full.body.headers.subject).toBe('Plain hello');
    // SPF passes for 127.0.0.1 and is aligned with From, so DMARC passes without a signature.
    expect(full.body).toMatchObject({ spf_verdict: 'PASS', dkim_verdict: 'GRAY', dmarc_verdict: 'PASS' });

    const raw2 = await fetchAs(`/v1/inbound/${email.id}/raw`);
    expect(raw2.status).toBe(200);
    expect(raw2.headers.get('content-type')).toBe('message/rfc822');
    expect(Buffer.from(await raw2.arrayBuffer()).toString()).toBe(raw);
  });

  it('verifies a DKIM signature against the DNS server on loopback: SPF, DKIM and DMARC pass', async () => {
    const unsigned = message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Signed', 'Message-ID': uniqueId(), Date: new Date().toUTCString() }, 'Signed body.\r\n');
    // The form the types do not describe (toolchain.md): the top-level one signs nothing.
    const signed = await dkimSign(unsigned, { canonicalization: 'relaxed/relaxed', signatureData: [{ signingDomain: SENDER, selector: 'sel', privateKey }] } as never);
    expect(signed.errors).toEqual([]);
    await deliver(signed.signatures + unsigned);
    const email = await emailWithSubject('Signed');
    expect(email).toMatchObject({ spf_verdict: 'PASS', dkim_verdict: 'PASS', dmarc_verdict: 'PASS' });
  });

  it('fails DMARC for a From the envelope sender cannot speak for', async () => {
    await deliver(message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Spoofed', 'Message-ID': uniqueId() }, 'x\r\n'), [`hello@${DOMAIN}`], 'mallory@elsewhere.test');
    const email = await emailWithSubject('Spoofed');
    expect(email).toMatchObject({ spf_verdict: 'GRAY', dkim_verdict: 'GRAY', dmarc_verdict: 'FAIL' });
  });

  it('stores HTML and text, attachments with their names, and serves each attachment', async () => {
    const pdf = Buffer.from('%PDF-1.4 not really a pdf\n');
    const raw = message(
      { From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'With files', 'Message-ID': uniqueId(), 'MIME-Version': '1.0', 'Content-Type': 'multipart/mixed; boundary="outer"' },
      [
        '--outer',
        'Content-Type: multipart/alternative; boundary="alt"',
        '',
        '--alt',
        'Content-Type: text/plain; charset=utf-8',
        '',
        'Text part',
        '--alt',
        'Content-Type: text/html; charset=utf-8',
        '',
        '<p onclick="x()">HTML <b>part</b></p><script>alert(1)</script>',
        '--alt--',
        '--outer',
        'Content-Type: application/pdf; name="report.pdf"',
        'Content-Disposition: attachment; filename="report.pdf"',
        'Content-Transfer-Encoding: base64',
        '',
        pdf.toString('base64'),
        '--outer',
        'Content-Type: text/plain; charset=utf-8',
        "Content-Disposition: attachment; filename*=UTF-8''r%C3%A9sum%C3%A9%22%3B%20evil.txt",
        '',
        'a note',
        '--outer--',
        '',
      ].join('\r\n'),
    );
    await deliver(raw);
    const email = await emailWithSubject('With files');
    expect(email.attachments).toEqual([
      { filename: 'report.pdf', content_type: 'application/pdf', size: pdf.length },
      { filename: 'résumé"; evil.txt', content_type: 'text/plain', size: 'a note'.length },
    ]);
    const full = await api(runtime.url, 'GET', `/v1/inbound/${email.id}`, key);
    expect(full.body.text).toContain('Text part');
    // Stored exactly as received: sanitizing is for what the service renders, never for what it keeps.
    expect(full.body.html).toContain('<script>alert(1)</script>');

    const first = await fetchAs(`/v1/inbound/${email.id}/attachments/0`);
    expect(first.status).toBe(200);
    expect(first.headers.get('content-type')).toBe('application/pdf');
    expect(first.headers.get('content-disposition')).toBe(`attachment; filename="report.pdf"; filename*=UTF-8''report.pdf`);
    expect(Buffer.from(await first.arrayBuffer())).toEqual(pdf);

    const second = await fetchAs(`/v1/inbound/${email.id}/attachments/1`);
    expect(second.status).toBe(200);
    expect(second.headers.get('content-disposition')).toBe(`attachment; filename="r_sum__; evil.txt"; filename*=UTF-8''r%C3%A9sum%C3%A9%22%3B%20evil.txt`);
    expect(await second.text()).toBe('a note');

    for (const index of ['2', '-1', 'x', '01x', '99999999']) {
      const res = await api(runtime.url, 'GET', `/v1/inbound/${email.id}/attachments/${index}`, key);
      expect(res.status, index).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
  });

  it('decodes non-UTF-8 charsets: a Shift_JIS subject and an ISO-8859-1 body', async () => {
    const subject = '日本語の件名';
    const encoded = `=?Shift_JIS?B?${iconv.encode(subject, 'Shift_JIS').toString('base64')}?=`;
    const head = message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: encoded, 'Message-ID': uniqueId(), 'MIME-Version': '1.0', 'Content-Type': 'text/plain; charset=ISO-8859-1', 'Content-Transfer-Encoding': '8bit' }, '');
    await deliver(Buffer.concat([Buffer.from(head), Buffer.from('Grüße aus Köln\r\n', 'latin1')]));
    const email = await emailWithSubject(subject);
    const full = await api(runtime.url, 'GET', `/v1/inbound/${email.id}`, key);
    expect(full.body.text).toBe('Grüße aus Köln\n');
    expect(full.body.headers.subject).toBe(encoded);
  });

  it('keeps a malformed MIME message with what could be parsed', async () => {
    const raw = [
      `From: alice@${SENDER}`,
      `To: hello@${DOMAIN}`,
      'Subject: Broken',
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="never-closed"',
      'this line is not a header',
      '',
      '--never-closed',
      'Content-Type: text/plain',
      'Content-Transfer-Encoding: base64',
      '',
      '!!!not base64 at all!!!',
      '--never-closed',
      'Content-Type: application/octet-stream; name="half.bin"',
      'Content-Transfer-Encoding: quoted-printable',
      '',
      '=ZZ=4',
      '',
    ].join('\r\n');
    await deliver(raw);
    const email = await emailWithSubject('Broken');
    expect(email.size_bytes).toBe(Buffer.byteLength(raw));
    const stored = await fetchAs(`/v1/inbound/${email.id}/raw`);
    expect(await stored.text()).toBe(raw);
  });

  it('stores a message delivered twice (the same bytes to the same recipient) once', async () => {
    const raw = message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Twice', 'Message-ID': uniqueId() }, 'Once only.\r\n');
    await deliver(raw);
    await deliver(raw);
    // A third, later message: once it is stored, both deliveries before it were handled.
    await deliver(message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'After twice', 'Message-ID': uniqueId() }, 'x\r\n'));
    await emailWithSubject('After twice');
    const all = (await api(runtime.url, 'GET', '/v1/inbound?limit=100', key)).body.emails as any[];
    expect(all.filter((e) => e.subject === 'Twice')).toHaveLength(1);
  });

  it('threads a reply with the message it answers', async () => {
    const rootId = uniqueId();
    await deliver(message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Thread root', 'Message-ID': rootId }, 'root\r\n'));
    await deliver(message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Re: Thread root', 'Message-ID': uniqueId(), 'In-Reply-To': rootId, References: rootId }, 'reply\r\n'));
    await deliver(message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Unrelated' }, 'other\r\n'));
    const root = await emailWithSubject('Thread root');
    const reply = await emailWithSubject('Re: Thread root');
    const other = await emailWithSubject('Unrelated');
    expect(reply.thread_id).toBe(root.thread_id);
    expect(other.thread_id).not.toBe(root.thread_id);
  });

  it('refuses a recipient on a domain without inbound with 550, at RCPT', async () => {
    await expect(deliver(message({ Subject: 'nope' }, 'x\r\n'), [`someone@${SENDER}`])).rejects.toMatchObject({ responseCode: 550 });
    await expect(deliver(message({ Subject: 'nope' }, 'x\r\n'), ['someone@unknown.test'])).rejects.toMatchObject({ responseCode: 550 });
  });

  it('refuses a message over the size limit with 552', async () => {
    const big = message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Too big' }, `${'x'.repeat(998)}\r\n`.repeat(Math.ceil(MAX_BYTES / 1000) + 10));
    await expect(deliver(big)).rejects.toMatchObject({ responseCode: 552 });
  });

  it('refuses with 552 a message whose MAIL FROM declared no size, counting it as it streams', async () => {
    const socket = connect(smtpPort, '127.0.0.1');
    let heard = '';
    socket.on('data', (d: Buffer) => (heard += d.toString()));
    const reply = (code: string): Promise<void> => waitFor(() => new RegExp(`^${code} `, 'm').test(heard) && ((heard = ''), true), { what: () => `SMTP ${code}, heard: ${heard}` }).then(() => undefined);
    try {
      await reply('220');
      socket.write(`EHLO mx.${SENDER}\r\n`);
      await reply('250');
      socket.write(`MAIL FROM:<alice@${SENDER}>\r\n`);
      await reply('250');
      socket.write(`RCPT TO:<hello@${DOMAIN}>\r\n`);
      await reply('250');
      socket.write('DATA\r\n');
      await reply('354');
      socket.write(`Subject: Streamed too big\r\n\r\n`);
      const line = `${'y'.repeat(998)}\r\n`;
      for (let sent = 0; sent < MAX_BYTES * 2; sent += line.length) socket.write(line);
      socket.write('.\r\n');
      await reply('552');
    } finally {
      socket.destroy();
    }
  });

  it('delivers email.received, signed, with the inbound id as message_id and payload.id', async () => {
    const raw = message({ From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Hooked', 'Message-ID': uniqueId() }, 'Webhook me.\r\n');
    await deliver(raw);
    const email = await emailWithSubject('Hooked');
    const hook = await waitFor(() => hooks.find((h) => JSON.parse(h.body).message_id === email.id), { what: 'the email.received webhook', timeoutMs: 20_000 });
    const timestamp = Number(hook.headers['service-timestamp']);
    expect(hook.headers['service-signature']).toBe(signatureOf(hookSecret, timestamp, hook.body));
    expect(hook.headers['service-event-type']).toBe('email.received');
    const envelope = JSON.parse(hook.body);
    expect(envelope).toMatchObject({ event_id: `evt_${email.id}`, event_type: 'email.received', message_id: email.id, account_id: runtime.bootstrap.account_id });
    expect(envelope.payload).toEqual({
      id: email.id,
      domain: DOMAIN,
      recipient: `hello@${DOMAIN}`,
      from: `alice@${SENDER}`,
      to: [`hello@${DOMAIN}`],
      subject: 'Hooked',
      text: 'Webhook me.\n',
      spam_verdict: 'GRAY',
      virus_verdict: 'GRAY',
      attachments: [],
      received_at: email.received_at,
    });
  });
});

describe('an email route', () => {
  it('forwards through the send pipeline to the SES emulator: the original attached byte for byte, with X-Forwarded headers', async () => {
    // Sending from the domain the mail came to needs it verified (the DNS checks are another test's).
    await runtime.container.store.update(keys.domain(runtime.bootstrap.account_id, DOMAIN), {
      expression: 'SET dkim_status = :v, spf_status = :v, dmarc_status = :v',
      values: { ':v': 'verified' },
    });
    const route = await api(runtime.url, 'POST', '/v1/inbound/routes', key, { domain: DOMAIN, match_prefix: 'fwd', destination_type: 'email', forward_address: 'team@example.com' });
    expect(route.status).toBe(201);
    const pdf = Buffer.from('%PDF-1.4 forwarded\n');
    const raw = message(
      { From: `Alice <alice@${SENDER}>`, To: `fwd-sales@${DOMAIN}`, Subject: 'Forward me', 'Message-ID': uniqueId(), 'MIME-Version': '1.0', 'Content-Type': 'multipart/mixed; boundary="b"' },
      ['--b', 'Content-Type: text/plain; charset=utf-8', '', 'Please see the file.', '--b', 'Content-Type: application/pdf; name="q.pdf"', 'Content-Disposition: attachment; filename="q.pdf"', 'Content-Transfer-Encoding: base64', '', pdf.toString('base64'), '--b--', ''].join('\r\n'),
    );

    await deliver(raw, [`fwd-sales@${DOMAIN}`]);

    const email = await emailWithSubject('Forward me');
    type Mail = { subject: string; destination: { to: string[] }; headers?: Array<{ name: string; value: string }>; body: { text?: string }; attachments: Array<{ filename: string; contentType: string; content: string }> };
    const mail = await waitFor(
      async () => ((await (await fetch(`${runtime.sesUrl}/store`)).json()) as { emails: Mail[] }).emails.find((m) => m.subject === 'Fwd: Forward me'),
      { what: 'the forward in the SES emulator', timeoutMs: 20_000, intervalMs: 100 },
    );
    expect(mail.destination.to).toEqual(['team@example.com']);
    expect(mail.headers).toEqual(
      expect.arrayContaining([
        { name: 'X-Forwarded-For', value: `alice@${SENDER}` },
        { name: 'X-Forwarded-To', value: `fwd-sales@${DOMAIN}` },
        { name: 'Auto-Submitted', value: 'auto-generated' },
      ]),
    );
    expect(mail.body.text).toContain('Attachments (in the attached original): q.pdf\nOriginal message: attached as forwarded-message.eml');
    expect(mail.attachments.map((a) => [a.filename, a.contentType])).toEqual([['forwarded-message.eml', 'message/rfc822']]);
    const kept = Buffer.from(await (await fetchAs(`/v1/inbound/${email.id}/raw`)).arrayBuffer());
    const attached = Buffer.from(mail.attachments[0]!.content, 'base64');
    expect(attached.equals(kept)).toBe(true);
    expect(attached.toString()).toBe(raw);
  });
});

describe('the inbound read routes', () => {
  it('lists newest first, a page at a time', async () => {
    const first = await api(runtime.url, 'GET', '/v1/inbound?limit=2', key);
    expect(first.status).toBe(200);
    expect(first.body.emails).toHaveLength(2);
    expect(first.body.emails[0].id > first.body.emails[1].id).toBe(true);
    const next = await api(runtime.url, 'GET', `/v1/inbound?limit=2&cursor=${encodeURIComponent(first.body.next_cursor)}`, key);
    expect(next.body.emails[0].id < first.body.emails[1].id).toBe(true);
    expect((await api(runtime.url, 'GET', '/v1/inbound?cursor=nope', key)).status).toBe(400);
  });

  it('answers 404 for another account, an unknown id, and a raw message that was not kept', async () => {
    const email = await emailWithSubject('Plain hello');
    const other = await createAccount(runtime.container, { name: 'Other', email: 'other@example.com' });
    for (const path of [`/v1/inbound/${email.id}`, `/v1/inbound/${email.id}/raw`, `/v1/inbound/${email.id}/attachments/0`]) {
      const res = await api(runtime.url, 'GET', path, other.admin_key);
      expect(res.status, path).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect((await api(runtime.url, 'GET', '/v1/inbound', other.admin_key)).body.emails).toEqual([]);
    for (const path of ['/v1/inbound/inb_01jzzzzzzzzzzzzzzzzzzzzzzz', '/v1/inbound/inb_01jzzzzzzzzzzzzzzzzzzzzzzz/raw']) {
      expect((await api(runtime.url, 'GET', path, key)).status, path).toBe(404);
    }
    const item = await runtime.container.store.get<InboundEmailItem>(keys.inboundEmail(runtime.bootstrap.account_id, email.id));
    await runtime.container.objects.delete(item?.raw_key ?? '');
    const gone = await api(runtime.url, 'GET', `/v1/inbound/${email.id}/raw`, key);
    expect(gone.status).toBe(404);
    expect(gone.body.error.code).toBe('not_found');
  });

  it('answers a raw message or attachment past 4 MiB with a 302 to a short-lived link that serves its bytes', async () => {
    // Prepare: a 5 MB message, stored and notified as SES receiving does (the listener here takes 200 KB)
    const big = Buffer.alloc(5_000_000);
    for (let i = 0; i < big.length; i++) big[i] = (i * 7) % 256;
    const raw = message(
      { From: `alice@${SENDER}`, To: `hello@${DOMAIN}`, Subject: 'Five megabytes', 'Message-ID': uniqueId(), 'MIME-Version': '1.0', 'Content-Type': 'multipart/mixed; boundary="b"' },
      ['--b', 'Content-Type: text/plain', '', 'see the file', '--b', 'Content-Type: application/zip; name="data.zip"', 'Content-Disposition: attachment; filename="data.zip"', 'Content-Transfer-Encoding: base64', '', big.toString('base64').replace(/.{76}/g, '$&\r\n'), '--b--', ''].join('\r\n'),
    );
    const now = new Date().toISOString();
    await runtime.container.objects.put('inbound/ses-five-mb', Buffer.from(raw), 'message/rfc822');
    await runtime.container.queue.send(
      'inbound',
      receiptJob({ objectKey: 'inbound/ses-five-mb', recipients: [`hello@${DOMAIN}`], sesMessageId: 'ses-five-mb', at: now, source: `alice@${SENDER}`, verdicts: { dkim: 'PASS', dmarc: 'PASS' } }),
    );
    const email = await emailWithSubject('Five megabytes');

    for (const [path, bytes, type, disposition] of [
      [`/v1/inbound/${email.id}/attachments/0`, big, 'application/zip', `attachment; filename="data.zip"; filename*=UTF-8''data.zip`],
      [`/v1/inbound/${email.id}/raw`, Buffer.from(raw), 'message/rfc822', `attachment; filename="${email.id}.eml"; filename*=UTF-8''${email.id}.eml`],
    ] as const) {
      // Act
      const answer = await admitted(() => fetch(`${runtime.url}${path}`, { headers: { authorization: `Bearer ${key}` }, redirect: 'manual' }), `GET ${path}`);
      // Assess: a presigned S3 GET on the bucket's endpoint (s3rver), not cached, that needs no key,
      // lives five minutes and serves the exact bytes with the headers it names
      expect(answer.status, path).toBe(302);
      expect(answer.headers.get('cache-control')).toBe('no-store');
      const location = new URL(answer.headers.get('location') ?? '');
      expect(location.origin).toBe(runtime.s3Endpoint);
      expect(location.pathname.startsWith('/postbox/')).toBe(true);
      expect(location.searchParams.get('X-Amz-Expires')).toBe('300');
      const file = await fetch(location);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe(type);
      expect(file.headers.get('content-disposition')).toBe(disposition);
      expect(Buffer.from(await file.arrayBuffer()).equals(bytes)).toBe(true);
    }

    // A link made to look older than its five minutes is refused. (S3 refuses any altered link, its
    // signature no longer matching; s3rver checks the expiry, not SigV4 signatures.)
    const answer = await admitted(() => fetch(`${runtime.url}/v1/inbound/${email.id}/raw`, { headers: { authorization: `Bearer ${key}` }, redirect: 'manual' }), 'GET raw');
    const altered = new URL(answer.headers.get('location')!);
    altered.searchParams.set('X-Amz-Date', new Date(Date.now() - 3_600_000).toISOString().replace(/[-:]|\.\d{3}/g, ''));
    const refused = await fetch(altered);
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('<Code>AccessDenied</Code>');
  });

  it('answers 401 without a key', async () => {
    expect((await api(runtime.url, 'GET', '/v1/inbound')).status).toBe(401);
  });

  it('answers 404 on every inbound route where inbound is not enabled', async () => {
    runtime.container.config.inboundEnabled = false;
    try {
      for (const path of ['/v1/inbound', '/v1/inbound/inb_x', '/v1/inbound/inb_x/raw', '/v1/inbound/inb_x/attachments/0']) {
        const res = await api(runtime.url, 'GET', path, key);
        expect(res.status, path).toBe(404);
        expect(res.body.error.code).toBe('not_found');
      }
    } finally {
      runtime.container.config.inboundEnabled = true;
    }
  });
});

describe('INBOUND_ENABLED=false', () => {
  it('starts no SMTP listener and answers 404 on the inbound routes', async () => {
    const offDir = mkdtempSync(join(tmpdir(), 'postbox-inbound-off-'));
    const off = await startLocalRuntime(readLocalSettings({ HOST: '127.0.0.1', PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', INBOUND_ENABLED: 'false', DATA_DIR: offDir, LOG_LEVEL: 'silent' }), functions, {
      logger: createLogger('silent'),
    });
    try {
      expect(off.smtpUrl).toBeUndefined();
      const res = await api(off.url, 'GET', '/v1/inbound', off.bootstrap.admin_key);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    } finally {
      await off.close();
      rmSync(offDir, { recursive: true, force: true });
    }
  }, 60_000);
});
