// `kill -9` of the local runtime right after its SMTP listener accepted a burst of messages: after a
// restart every accepted message is stored, once. The listener answers 250 only once the raw
// object is written and the notification is in the queue journal, which the restart replays.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { LOCAL_TABLE } from '../../local/runtime';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';

const MESSAGES = 20;
const DOMAIN = 'crash-inbound.test';

let dataDir: string | undefined;
let runtime: RuntimeProcess | undefined;

afterAll(async () => {
  await runtime?.stop('SIGKILL');
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

it('stores every message the listener accepted before a kill -9, once, after the restart', async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-inbound-crash-'));
  // No resolver answers (a closed loopback port): verdicts are not what this test is about.
  const env = { DATA_DIR: dataDir, QUEUE_RETRY_DELAY_SECONDS: '1', DNS_SERVERS: '127.0.0.1:1' };
  runtime = await startRuntimeProcess(env);
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
  expect((await api(runtime.url, 'POST', '/v1/domains', bootstrap.admin_key, { domain: DOMAIN })).status).toBe(201);
  const endpoint = /store \(DynamoDB endpoint\):\s+(\S+)/.exec(runtime.output())?.[1];
  const db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
  await db.send(new UpdateCommand({ TableName: LOCAL_TABLE, Key: keys.domain(bootstrap.account_id, DOMAIN), UpdateExpression: 'SET inbound_enabled = :on', ExpressionAttributeValues: { ':on': true } }));
  db.destroy();

  const port = Number(new URL(runtime.smtpUrl ?? '').port);
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true, pool: true, maxConnections: 4 });
  const subjects = Array.from({ length: MESSAGES }, (_, i) => `Crash ${i}`);
  await Promise.all(
    subjects.map((subject, i) =>
      transport.sendMail({ envelope: { from: 'a@sender.test', to: [`in@${DOMAIN}`] }, raw: `From: a@sender.test\r\nTo: in@${DOMAIN}\r\nSubject: ${subject}\r\nMessage-ID: <crash-${i}@sender.test>\r\n\r\nbody ${i}\r\n` }),
    ),
  );
  transport.close();
  await runtime.stop('SIGKILL');

  runtime = await startRuntimeProcess(env);
  const stored = await waitFor(
    async () => {
      const res = await api(runtime!.url, 'GET', '/v1/inbound?limit=100', bootstrap.admin_key);
      const emails = res.body.emails as Array<{ subject: string }>;
      return emails.length >= MESSAGES ? emails : undefined;
    },
    { what: `${MESSAGES} inbound emails after the restart`, timeoutMs: 30_000, intervalMs: 200 },
  );
  expect(stored.map((e) => e.subject).sort()).toEqual([...subjects].sort());
}, 120_000);
