// A burst is queued and drained, not refused (issue 31): `npm start` in its own process takes three
// 1000-item batches in a row and a webhook subscription right after them while its consumers are
// far behind, and every accepted message reaches `delivered` once the burst drains. The requests go
// out once each (apiOnce), so a 503 would show instead of being retried away.
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, paginateScan } from '@aws-sdk/lib-dynamodb';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LOCAL_TABLE } from '../../local/runtime';
import { startHttpReceiver, type Receiver } from '../support/receivers';
import { apiOnce, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';
import { countMessagesWhere } from '../support/runtime-store';

const BATCHES = 3;
const ITEMS = 1000;

let dataDir: string;
let runtime: RuntimeProcess;
let key: string;
let accountId: string;
let db: DynamoDBDocumentClient;
let receiver: Receiver;

beforeAll(async () => {
  receiver = await startHttpReceiver();
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-bursts-'));
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, ACCOUNT_EMAIL: 'ada@example.com', WEBHOOK_ALLOW_PRIVATE: 'true' });
  const bootstrap = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
  key = bootstrap.admin_key;
  accountId = bootstrap.account_id;
  const endpoint = /store \(DynamoDB endpoint\):\s+(\S+)/.exec(runtime.output())?.[1];
  db = DynamoDBDocumentClient.from(new DynamoDBClient({ endpoint, region: 'us-east-1', credentials: { accessKeyId: 'local', secretAccessKey: 'local' } }));
}, 60_000);
afterAll(async () => {
  db?.destroy();
  await runtime?.stop('SIGKILL');
  await receiver?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const batch = (n: number) =>
  Array.from({ length: ITEMS }, (_, i) => ({
    channel: 'email',
    idempotency_key: `burst-${n}-${i}`,
    destination: { email: 'ada@example.com' },
    payload: { subject: `burst ${n} ${i}`, body_text: 'Hi' },
  }));

/** The account's stored messages by status, read once the wait is over. */
async function statuses(): Promise<Map<string, number>> {
  const counts = new Map<string, number>();
  const pages = paginateScan(
    { client: db },
    { TableName: LOCAL_TABLE, FilterExpression: 'entity = :e AND account_id = :a', ExpressionAttributeValues: { ':e': 'message', ':a': accountId }, ProjectionExpression: '#s', ExpressionAttributeNames: { '#s': 'status' } },
  );
  for await (const page of pages) for (const m of page.Items ?? []) counts.set(m.status, (counts.get(m.status) ?? 0) + 1);
  return counts;
}

/** How many are delivered: a count, cheap enough to poll while the runtime drains the burst. */
const deliveredCount = () => countMessagesWhere(db, accountId, { expression: '#s = :d', values: { ':d': 'delivered' }, names: { '#s': 'status' } });

describe('a burst on the local runtime', () => {
  it('accepts three 1000-item batches in a row and a webhook subscription after them, and delivers every accepted message', { timeout: 330_000 }, async () => {
    // Act: the batches back to back, each sent as soon as the last is answered, then a write that adds no mail.
    const answers = [];
    for (let n = 0; n < BATCHES; n++) answers.push(await apiOnce(runtime.url, 'POST', '/v1/send/batch', key, batch(n)));
    const hook = await apiOnce(runtime.url, 'POST', '/v1/webhooks', key, { endpoint_url: `${receiver.url}/hooks`, event_types: ['bounced'] });

    // Assess: nothing refused for the consumers being behind
    expect(answers.map((a) => a.status)).toEqual(Array(BATCHES).fill(200));
    expect({ status: hook.status, body: hook.body }).toMatchObject({ status: 201, body: { endpoint_url: `${receiver.url}/hooks` } });
    const ids = answers.flatMap((a) => a.body.map((r: { success: boolean; response?: { id: string } }) => r.success && r.response?.id));
    expect(ids.filter((id) => !id)).toEqual([]);
    expect(new Set(ids).size).toBe(BATCHES * ITEMS);

    // Assess: every accepted message is delivered once the burst drains
    let delivered = 0;
    await waitFor(async () => (delivered = await deliveredCount()) >= BATCHES * ITEMS, {
      what: () => `all ${BATCHES * ITEMS} messages to be delivered (${delivered} are)`,
      timeoutMs: 280_000,
      intervalMs: 2000,
    });
    expect(Object.fromEntries(await statuses())).toEqual({ delivered: BATCHES * ITEMS });
  });
});
