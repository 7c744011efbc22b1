// Issue 31 item 2 on a fresh `npm start`: a 10,000-recipient broadcast, a 10,000-row contact
// import and a burst of 1,000 inbound mails over SMTP, started together; meanwhile lone
// authenticated reads, one in flight each (GET /v1/keys of an idle account every 125 ms, GET
// /v1/broadcasts/{id} of the broadcasting one every 250 ms), until all three are done. The
// runtime's peak RSS through it, and when each finished.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { keys } from '../../../shared/db/keys';
import { LOCAL_TABLE } from '../../../local/runtime';
import { sleep } from '../../lib/measure';
import { admitted, call, loneReads, startRuntime, upload, type Answer, type Runtime } from './client';

export const COMBINED = { recipients: 10_000, importRows: 10_000, inboundMails: 1_000, smtpConnections: 4, keysEveryMs: 125, broadcastEveryMs: 250, quietReads: 40, maxMs: 480_000 } as const;
const DOMAIN = 'inbound.load.test';

interface Boot {
  staff_token: string;
  admin_key: string;
  test_admin_key: string;
}

export interface CombinedRun {
  quiet: number[];
  keys: Answer[];
  broadcast: Answer[];
  /** Seconds from the start of the three to each one's end (NaN: not within COMBINED.maxMs). */
  importS: number;
  broadcastS: number;
  /** The last 250 of the burst, and every mail of it listed by GET /v1/inbound. */
  inboundAcceptedS: number;
  inboundStoredS: number;
  inboundAccepted: number;
  /** Peak RSS of the runtime process through the three, and before them (started, idle), MiB. */
  peakMiB: number;
  idlePeakMiB: number;
}

/** An inbound-enabled domain of an account of its own: made through the API, enabled in the store (as the inbound benchmark does). */
async function inboundDomain(rt: Runtime, boot: Boot): Promise<{ key: string }> {
  const inbox = JSON.parse((await admitted(rt.url, 'POST', '/v1/admin/accounts', boot.staff_token, { name: 'inbox', email: 'inbox@example.com' })).body) as { admin_key: string; account_id: string };
  const made = await admitted(rt.url, 'POST', '/v1/domains', inbox.admin_key, { domain: DOMAIN });
  if (made.status !== 201) throw new Error(`POST /v1/domains answered ${made.status} ${made.body.slice(0, 200)}`);
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint: rt.dynamodb, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
  try {
    await db.send(new UpdateCommand({ TableName: LOCAL_TABLE, Key: keys.domain(inbox.account_id, DOMAIN), UpdateExpression: 'SET inbound_enabled = :on', ExpressionAttributeValues: { ':on': true } }));
  } finally {
    db.destroy();
  }
  return { key: inbox.admin_key };
}

/** The burst: every mail over a pool of SMTP connections; resolves with how many heard 250. */
async function inboundBurst(port: number): Promise<number> {
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: COMBINED.smtpConnections, maxMessages: Infinity });
  try {
    const sent = await Promise.allSettled(
      Array.from({ length: COMBINED.inboundMails }, (_, i) =>
        transport.sendMail({
          envelope: { from: 'a@sender.test', to: [`in@${DOMAIN}`] },
          raw: `From: a@sender.test\r\nTo: in@${DOMAIN}\r\nSubject: Burst ${i}\r\nMessage-ID: <burst-${i}@sender.test>\r\n\r\n${'An ordinary line of an inbound message. '.repeat(40)}\r\n`,
        }),
      ),
    );
    return sent.filter((s) => s.status === 'fulfilled').length;
  } finally {
    transport.close();
  }
}

/** How many inbound emails the account lists (every page). */
async function inboundListed(rt: Runtime, key: string): Promise<number> {
  let n = 0;
  let cursor: string | undefined;
  do {
    const res = await admitted(rt.url, 'GET', `/v1/inbound?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, key);
    const page = JSON.parse(res.body || '{}') as { emails?: unknown[]; next_cursor?: string | null };
    n += page.emails?.length ?? 0;
    cursor = page.next_cursor ?? undefined;
  } while (cursor);
  return n;
}

/** Starts the import and the broadcast; resolves with their ids. */
async function startImportAndBroadcast(rt: Runtime, boot: Boot): Promise<{ importId: string; broadcastId: string }> {
  const csv = ['email,first_name', ...Array.from({ length: COMBINED.importRows }, (_, i) => `row${i}@example.com,Row${i}`)].join('\n');
  const up = await upload(rt.url, '/v1/uploads', boot.admin_key, csv, 'text/csv');
  if (up.status !== 201) throw new Error(`upload answered ${up.status} ${up.body.slice(0, 200)}`);
  const imp = await admitted(rt.url, 'POST', '/v1/contacts/import', boot.admin_key, { object_key: (JSON.parse(up.body) as { key: string }).key });
  if (imp.status !== 202) throw new Error(`import answered ${imp.status} ${imp.body.slice(0, 200)}`);
  const recipients = Array.from({ length: COMBINED.recipients }, (_, i) => ({ email: `reader${i}@example.com` }));
  const bulk = await admitted(rt.url, 'POST', '/v1/send/bulk', boot.test_admin_key, { from_email: 'onboarding@sandbox.postbox.dev', subject: 'News', body_text: 'Hello', recipients });
  if (bulk.status !== 202) throw new Error(`bulk answered ${bulk.status} ${bulk.body.slice(0, 200)}`);
  return { importId: (JSON.parse(imp.body) as { id: string }).id, broadcastId: (JSON.parse(bulk.body) as { id: string }).id };
}

/** Progress, read by a client of its own every second (not measured): when the import and the broadcast are done. */
async function watchWork(rt: Runtime, boot: Boot, ids: { importId: string; broadcastId: string }, t0: number, until: () => boolean): Promise<{ importS: number; broadcastS: number }> {
  const out = { importS: Number.NaN, broadcastS: Number.NaN };
  while (!until() && (Number.isNaN(out.importS) || Number.isNaN(out.broadcastS))) {
    await sleep(1000);
    const i = JSON.parse((await call(rt.url, 'GET', `/v1/contacts/imports/${ids.importId}`, boot.admin_key)).body || '{}') as { status?: string };
    if (Number.isNaN(out.importS) && i.status === 'completed') out.importS = (performance.now() - t0) / 1000;
    const b = (JSON.parse((await call(rt.url, 'GET', `/v1/broadcasts/${ids.broadcastId}`, boot.test_admin_key)).body || '{}') as { stats?: { total: number; delivered: number; failed: number } }).stats;
    if (Number.isNaN(out.broadcastS) && b?.total && b.delivered + b.failed >= b.total) out.broadcastS = (performance.now() - t0) / 1000;
  }
  return out;
}

/** The burst, then the account's inbound list read every 2 s until it holds every accepted mail. */
async function watchInbound(rt: Runtime, inboxKey: string, t0: number, until: () => boolean): Promise<{ accepted: number; acceptedS: number; storedS: number }> {
  const accepted = await inboundBurst(rt.smtpPort as number);
  const acceptedS = (performance.now() - t0) / 1000;
  let storedS = Number.NaN;
  while (!until() && Number.isNaN(storedS)) {
    if ((await inboundListed(rt, inboxKey)) >= accepted) storedS = (performance.now() - t0) / 1000;
    else await sleep(2000);
  }
  return { accepted, acceptedS, storedS };
}

export async function combinedRun(projectRoot: string, log: (line: string) => void): Promise<CombinedRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-combined-'));
  let rt: Runtime | undefined;
  try {
    // No resolver answers (a closed loopback port): the inbound verdicts fail at once, offline.
    rt = await startRuntime(projectRoot, dataDir, { DNS_SERVERS: '127.0.0.1:1' });
    if (!rt.smtpPort) throw new Error('the runtime started no SMTP listener');
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as Boot;
    const reader = JSON.parse((await admitted(rt.url, 'POST', '/v1/admin/accounts', boot.staff_token, { name: 'lone reader', email: 'reader@example.com' })).body) as { admin_key: string };
    await admitted(rt.url, 'GET', '/v1/keys', reader.admin_key);
    const inbox = await inboundDomain(rt, boot);
    const quiet: number[] = [];
    for (let i = 0; i < COMBINED.quietReads; i++) {
      quiet.push((await call(rt.url, 'GET', '/v1/keys', reader.admin_key)).ms);
      await sleep(COMBINED.keysEveryMs);
    }
    const idlePeakMiB = rt.peakMiB();
    log(`  combined: a ${COMBINED.recipients}-recipient broadcast, a ${COMBINED.importRows}-row import and ${COMBINED.inboundMails} inbound mails together`);
    rt.mark();
    const t0 = performance.now();
    const ids = await startImportAndBroadcast(rt, boot);
    let finished = false;
    const over = () => finished || performance.now() - t0 > COMBINED.maxMs;
    const work = Promise.all([watchWork(rt, boot, ids, t0, over), watchInbound(rt, inbox.key, t0, over)]).finally(() => (finished = true));
    const [keys, broadcast, [done, inbound]] = await Promise.all([
      loneReads(rt.url, '/v1/keys', reader.admin_key, COMBINED.keysEveryMs, over),
      loneReads(rt.url, `/v1/broadcasts/${ids.broadcastId}`, boot.test_admin_key, COMBINED.broadcastEveryMs, over),
      work,
    ]);
    return { quiet, keys, broadcast, ...done, inboundAccepted: inbound.accepted, inboundAcceptedS: inbound.acceptedS, inboundStoredS: inbound.storedS, peakMiB: rt.windowPeakMiB(), idlePeakMiB };
  } finally {
    await rt?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
