// `kill -9` of the local runtime in the middle of a contact import (issue 28 reported it on 5,000
// rows): after a restart on the same DATA_DIR the import completes, every row written once, and its
// counts add up to the file's rows. 1,500 rows (three chunks) prove the same as 5,000 in a fraction
// of the time: the fault is in the one chunk the kill cuts short, whichever it is. The kill lands where the store says the import
// is (inside a chunk of 500, while its address claims are taken), not after a sleep.
import { expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { api, admitted, useKillableRuntime } from '../support/local-process';
import { getItem, scanEntity, storeOf } from '../support/runtime-store';
import { waitFor } from '../support/wait';

const ROWS = 1500;
/** Inside the second chunk (rows 500–999), its writes under way. */
const KILL_AT = 750;

const runtime = useKillableRuntime('crash-import');

const emailOf = (i: number): string => `row${i}@crash-import.test`;

async function upload(base: string, csv: string): Promise<string> {
  const res = await admitted(
    () => fetch(`${base}/v1/uploads`, { method: 'POST', headers: { authorization: `Bearer ${runtime.bootstrap.admin_key}`, 'content-type': 'text/csv' }, body: csv }),
    'POST /v1/uploads',
  );
  const body = (await res.json()) as { key: string };
  expect(res.status).toBe(201);
  return body.key;
}

it(`finishes a ${ROWS}-row import killed mid-chunk: every row once, counts that add up`, { timeout: 180_000 }, async () => {
  const first = runtime.current;
  const { admin_key: key, account_id: accountId } = runtime.bootstrap;
  const csv = `email,first_name\n${Array.from({ length: ROWS }, (_, i) => `${emailOf(i)},Row ${i}`).join('\n')}\n`;
  const started = await api(first.url, 'POST', '/v1/contacts/import', key, { object_key: await upload(first.url, csv) });
  expect(started.status).toBe(202);

  // A chunk claims its new addresses (16 at a time) before it writes their contacts in batches:
  // the kill lands when row KILL_AT's claim appears, with the second chunk's claims under way.
  const db = storeOf(first);
  const reached = await waitFor(async () => (await getItem(db, keys.contactEmail(accountId, emailOf(KILL_AT)))) !== undefined && `row ${KILL_AT}'s address claimed`, {
    what: `the import to claim row ${KILL_AT}'s address`,
    timeoutMs: 90_000,
    intervalMs: 2,
  });
  first.child.kill('SIGKILL');
  db.destroy();

  const second = await runtime.restart();
  let last: Record<string, any> | undefined;
  const finished = await waitFor(
    async () => {
      last = (await api(second.url, 'GET', `/v1/contacts/imports/${started.body.id}`, key)).body;
      return last?.status !== 'processing' && last;
    },
    { what: () => `the import to finish after the restart (last seen: ${JSON.stringify(last)})`, timeoutMs: 120_000, intervalMs: 250 },
  );

  expect(finished).toMatchObject({ status: 'completed', total: ROWS, created: ROWS, updated: 0, skipped: 0, errors: [] });
  expect(finished.created + finished.updated + finished.skipped).toBe(ROWS);
  // Every row once: one live contact and one address claim per address, none twice.
  const after = storeOf(second);
  const contacts = (await scanEntity(after, 'contact')).filter((c) => c.account_id === accountId && c.deleted_at === undefined);
  const claims = (await scanEntity(after, 'contact_email')).filter((c) => c.account_id === accountId);
  const counted = Number((await getItem(after, keys.contactCount(accountId)))?.count);
  after.destroy();
  const wanted = Array.from({ length: ROWS }, (_, i) => emailOf(i)).sort();
  expect(contacts.map((c) => c.email).sort()).toEqual(wanted);
  expect(claims.map((c) => c.pk).length).toBe(ROWS);
  const byId = new Map(contacts.map((c) => [c.id, c.email]));
  expect(claims.filter((c) => !byId.has(c.contact_id))).toEqual([]);
  // The account's contact count moved once per contact, the cut chunk's included.
  expect(counted).toBe(ROWS);
  process.stdout.write(`crash-import: killed once ${reached}; after the restart: ${JSON.stringify({ status: finished.status, created: finished.created, updated: finished.updated, skipped: finished.skipped })}\n`);
});
