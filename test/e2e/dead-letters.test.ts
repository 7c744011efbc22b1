// Dead letters on the local runtime (issue 32): a poison message on a queue ends in its DLQ after
// the queue's receives, the staff listing shows it with the reason the consumer noted, and a redrive
// puts it back on its queue, journaled (a poison body fails again and returns to the DLQ).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';

let dataDir: string;
let runtime: RuntimeProcess;
let staff: string;
const POISON = '{"kind":"attempt","account_id":"acct_nobody"}';

interface Listed {
  queue: string;
  depth: number;
  items: Array<{ id: string; body_preview: string; reason: string | null; receive_count: number | null; first_failed_at: string | null }>;
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'postbox-dlq-'));
  // A message a last run left waiting on the webhooks queue: the start puts it back, and the
  // webhook worker finds it breaks the job contract.
  writeFileSync(join(dataDir, 'queue-journal.jsonl'), `${JSON.stringify({ op: 'send', queue: 'webhooks', at: Date.now(), delay: 0, bodies: [POISON] })}\n`);
  runtime = await startRuntimeProcess({ DATA_DIR: dataDir, QUEUE_RETRY_DELAY_SECONDS: '1', ACCOUNT_EMAIL: 'ada@example.com' });
  staff = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')).staff_token;
}, 60_000);
afterAll(async () => {
  await runtime?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function webhooksDlq(): Promise<Listed | undefined> {
  const res = await api(runtime.url, 'GET', '/v1/admin/dead-letters', staff);
  expect(res.status).toBe(200);
  return (res.body.queues as Listed[]).find((q) => q.queue === 'webhooks');
}

describe('dead letters on the local runtime', () => {
  it('lists a poison message in its DLQ with its reason, and redrives it back on its queue, journaled', async () => {
    const listed = await waitFor(async () => {
      const q = await webhooksDlq();
      return q && q.items.length === 1 && q;
    }, { what: 'the poison message in the webhooks DLQ', timeoutMs: 30_000, intervalMs: 250 });
    expect(listed.depth).toBe(1);
    expect(listed.items[0]).toMatchObject({ body_preview: POISON, receive_count: 5, reason: expect.stringMatching(/^poison message: ZodError/) });
    const id = listed.items[0]?.id ?? '';

    const res = await api(runtime.url, 'POST', '/v1/admin/dead-letters/webhooks/redrive', staff, { ids: [id] });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ queue: 'webhooks', redriven: [id] });
    const journal = readFileSync(join(dataDir, 'queue-journal.jsonl'), 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));
    // Journaled before its send (other work may have written lines since).
    expect(journal.filter((line) => line.op === 'redrive')).toEqual([expect.objectContaining({ queue: 'webhooks', bodies: [POISON] })]);
    // Still poison: after the queue's receives it is back in the DLQ, as a new message.
    const again = await waitFor(async () => {
      const q = await webhooksDlq();
      return q && q.items.length === 1 && q.items[0]?.id !== id && q;
    }, { what: 'the redriven poison message back in the DLQ', timeoutMs: 30_000, intervalMs: 250 });
    expect(again.items[0]?.body_preview).toBe(POISON);
    const audit = await api(runtime.url, 'GET', '/v1/admin/audit', staff);
    expect(audit.body.entries[0]).toMatchObject({ action: 'dead_letters.redrive', target: { type: 'queue', id: 'webhooks' }, outcome: 'succeeded' });
  }, 90_000);
});
