// POST /v1/contacts/import, GET /v1/contacts/imports/{id} and the imports consumer, through the real
// handlers, against a contacts double behind shared/audiences/imports/target.ts (the real shared/audiences/contacts
// target is test/functions/contact-import-contacts.test.ts's): counts, row errors, updates,
// repeats, a crash between a chunk's writes and its progress, cross-account reads, and a
// 30,000-row file.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { handler as importContactsRaw } from '../../functions/uploads/import-contacts';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import type { ContactRow } from '../../shared/audiences/imports/csv';
import type { ImportJob } from '../../shared/audiences/imports/messages';
import { ContactImportRepository, type ContactImportItem } from '../../shared/audiences/imports/repository';
import { CHUNK_ROWS, CHUNKS_PER_JOB } from '../../shared/audiences/imports/run';
import { contactsTarget, useContactImportTarget } from '../../shared/audiences/imports/contacts-target';
import type { ContactImportTarget, UpsertOutcome } from '../../shared/audiences/imports/target';
import { type TestContainer } from '../support/container';
import { underNeeds } from '../support/grants';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';
import { expectError } from '../support/errors';

const importContacts = underNeeds('functions/uploads/import-contacts.ts', importContactsRaw);

interface StoredContact {
  first_name?: string;
  last_name?: string;
  data: Record<string, string>;
  list_ids: string[];
}

/** The contacts of shared/audiences/contacts as the import sees them: one per normalized email and account. */
class MemoryContacts implements ContactImportTarget {
  readonly accounts = new Map<string, Map<string, StoredContact>>();
  readonly staticLists = new Set<string>();
  /** Contacts ever created: a second creation of an email would show here. */
  creations = 0;
  /** The next upsert writes its rows and then throws, as a worker killed before its progress write. */
  dieAfterNextWrite = false;

  contactsOf(accountId: string): Map<string, StoredContact> {
    let found = this.accounts.get(accountId);
    if (!found) this.accounts.set(accountId, (found = new Map()));
    return found;
  }

  private merged(current: StoredContact | undefined, row: ContactRow, listId?: string): StoredContact {
    const lists = new Set(current?.list_ids ?? []);
    if (listId) lists.add(listId);
    return {
      ...(current ?? {}),
      ...(row.first_name !== undefined ? { first_name: row.first_name } : {}),
      ...(row.last_name !== undefined ? { last_name: row.last_name } : {}),
      data: { ...(current?.data ?? {}), ...row.data },
      list_ids: [...lists].sort(),
    };
  }

  private walk(accountId: string, rows: readonly ContactRow[], listId: string | undefined, into: Map<string, StoredContact>): UpsertOutcome[] {
    return rows.map((row) => {
      const current = into.get(row.email);
      const next = this.merged(current, row, listId);
      into.set(row.email, next);
      if (!current) return 'created';
      return JSON.stringify(current) === JSON.stringify(next) ? 'unchanged' : 'updated';
    });
  }

  listKind = async (accountId: string, listId: string) => (this.staticLists.has(`${accountId}/${listId}`) ? ('static' as const) : undefined);

  planUpsert = async (accountId: string, rows: readonly ContactRow[], listId?: string) => ({ outcomes: this.walk(accountId, rows, listId, new Map(this.contactsOf(accountId))) });

  upsertContacts = async (accountId: string, rows: readonly ContactRow[], listId?: string) => {
    const outcomes = this.walk(accountId, rows, listId, this.contactsOf(accountId));
    this.creations += outcomes.filter((o) => o === 'created').length;
    if (this.dieAfterNextWrite) {
      this.dieAfterNextWrite = false;
      throw new Error('worker killed after its contact writes');
    }
    return { created: outcomes.filter((o) => o === 'created').length, updated: outcomes.filter((o) => o === 'updated').length };
  };
}

let contacts: MemoryContacts;
beforeAll(() => useContactImportTarget(() => contacts));
afterAll(() => useContactImportTarget((container) => contactsTarget(container)));

const bed = useTestbed({ scopedKeys: true });
let c: TestContainer;
let accountId: string;
beforeEach(() => {
  c = bed.c;
  accountId = bed.account.account_id;
  contacts = new MemoryContacts();
});

async function upload(csv: string, key = bed.sendKey): Promise<string> {
  const res = await bed.request({ method: 'POST', path: '/v1/uploads', key, rawBody: csv, headers: { 'content-type': 'text/csv' } });
  expect(res.status).toBe(201);
  return res.body.key;
}
const start = (body: Record<string, unknown>, key = bed.sendKey) => bed.request({ method: 'POST', path: '/v1/contacts/import', key, body });
const read = (id: string, key = bed.readKey) => bed.request({ method: 'GET', path: `/v1/contacts/imports/${id}`, key });

const importJobs = (): ImportJob[] => c.sent.filter((s) => s.queue === 'imports').map((s) => s.body as ImportJob);
const runJob = (job: ImportJob, receiveCount = 1) => importContacts(sqsEvent([sqsRecord(job, receiveCount)]));

/** Runs queued import jobs, those they queue included, until none is left; answers how many ran. */
async function drain(): Promise<number> {
  let ran = 0;
  while (importJobs().length > ran) {
    expect(await runJob(importJobs()[ran]!)).toEqual({ batchItemFailures: [] });
    ran++;
  }
  return ran;
}

/** Uploads, starts and runs an import to its end; answers GET's body. */
async function imported(csv: string, body: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const started = await start({ object_key: await upload(csv), ...body });
  expect(started.status).toBe(202);
  await drain();
  const res = await read(started.body.id);
  expect(res.status).toBe(200);
  return res.body;
}

const stored = (id: string) => c.store.get<ContactImportItem>(keys.contactImport(accountId, id));

const CSV = [
  'email,first_name,last_name,plan',
  'ada@example.com,Ada,Lovelace,pro',
  'not-an-address,Bob,,free',
  '',
  '"Grace@Example.com ","Grace","Hopper, RDML",team',
  ',Nobody,,',
  'dan@example.com,Dan,,free,surplus',
].join('\r\n');

describe('POST /v1/contacts/import', () => {
  it('answers 202 processing at once and queues the import', async () => {
    const key = await upload(CSV);
    const res = await start({ object_key: key });

    expect(res.status).toBe(202);
    expect(res.body).toEqual({ id: expect.stringMatching(/^imp_[0-9a-z]{26}$/), status: 'processing' });
    expect(importJobs()).toEqual([{ account_id: accountId, import_id: res.body.id }]);
    expect(contacts.contactsOf(accountId).size).toBe(0);
    expect((await read(res.body.id)).body).toEqual({
      id: res.body.id, status: 'processing', total: 0, created: 0, updated: 0, skipped: 0, errors: [], created_at: expect.any(String), completed_at: null,
    });
  });

  it('refuses a key outside the account’s uploads with 403, and one inside that names nothing with 404', async () => {
    const other = await createAccount(c, { email: 'other@example.com' });
    const theirs = await upload(CSV, other.admin_key);
    expectError(await start({ object_key: theirs }), 403, 'forbidden', /not one of this account’s uploads/);
    expectError(await start({ object_key: 'bimi/x/logo.svg' }), 403, 'forbidden');
    expectError(await start({ object_key: `uploads/${accountId}/upl_00000000000000000000000000.csv` }), 404, 'not_found');
    expectError(await start({ object_key: `uploads/${accountId}/../${other.account_id}/x.csv` }), 404, 'not_found');
    expect(importJobs()).toEqual([]);
  });

  it('takes list_id only for a static list of the account', async () => {
    const key = await upload(CSV);
    expectError(await start({ object_key: key, list_id: 'list_nope' }), 404, 'not_found', /list list_nope not found/);
    contacts.staticLists.add(`${accountId}/list_vip`);
    const body = await imported(CSV, { list_id: 'list_vip' });
    expect(body).toMatchObject({ status: 'completed', created: 2 });
    expect([...contacts.contactsOf(accountId).values()].map((s) => s.list_ids)).toEqual([['list_vip'], ['list_vip']]);
  });

  it('is refused to a read key (403) and without a key (401); a body it does not know is 400', async () => {
    const key = await upload(CSV);
    expectError(await start({ object_key: key }, bed.readKey), 403, 'forbidden');
    expectError(await bed.request({ method: 'POST', path: '/v1/contacts/import', body: { object_key: key } }), 401, 'unauthorized');
    expectError(await start({ object_key: key, list: 'x' }), 400, 'invalid_request');
    expectError(await start({}), 400, 'invalid_request', /^body\.object_key/);
  });
});

describe('the import', () => {
  it('counts created rows and reports bad ones with their spreadsheet row numbers', async () => {
    const body = await imported(CSV);

    expect(body).toEqual({
      id: expect.any(String),
      status: 'completed',
      total: 5,
      created: 2,
      updated: 0,
      skipped: 3,
      errors: [
        { row: 3, message: '"not-an-address" is not a valid email address' },
        { row: 6, message: 'email is empty' },
        { row: 7, message: '5 fields, but the header names 4 columns' },
      ],
      created_at: expect.any(String),
      completed_at: expect.any(String),
    });
    expect(Object.fromEntries(contacts.contactsOf(accountId))).toEqual({
      'ada@example.com': { first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro' }, list_ids: [] },
      'grace@example.com': { first_name: 'Grace', last_name: 'Hopper, RDML', data: { plan: 'team' }, list_ids: [] },
    });
  });

  it('updates existing contacts instead of refusing them, and counts an equal row as skipped', async () => {
    contacts.contactsOf(accountId).set('ada@example.com', { first_name: 'Ada', data: { plan: 'free', city: 'London' }, list_ids: [] });
    contacts.contactsOf(accountId).set('grace@example.com', { first_name: 'Grace', data: { plan: 'team' }, list_ids: [] });

    const body = await imported('email,first_name,plan\nada@example.com,Ada,pro\ngrace@example.com,,team\nnew@example.com,New,\n');

    expect(body).toMatchObject({ status: 'completed', total: 3, created: 1, updated: 1, skipped: 1, errors: [] });
    expect(contacts.contactsOf(accountId).get('ada@example.com')).toEqual({ first_name: 'Ada', data: { plan: 'pro', city: 'London' }, list_ids: [] });
  });

  it('changes nothing when the same file is imported again', async () => {
    await imported(CSV);
    const before = JSON.stringify([...contacts.contactsOf(accountId)]);

    const again = await imported(CSV);

    expect(again).toMatchObject({ status: 'completed', total: 5, created: 0, updated: 0, skipped: 5 });
    expect(JSON.stringify([...contacts.contactsOf(accountId)])).toBe(before);
    expect(contacts.creations).toBe(2);
  });

  it('re-runs a chunk whose worker died between its contact writes and its progress write: no duplicates, true counts', async () => {
    const rows = Array.from({ length: CHUNK_ROWS + 10 }, (_, i) => `user${i}@example.com,User ${i}`);
    const started = await start({ object_key: await upload(['email,first_name', ...rows].join('\n')) });
    const [job] = importJobs();
    contacts.dieAfterNextWrite = true;

    const failed = await runJob(job!);

    expect(failed.batchItemFailures).toHaveLength(1);
    const halfway = await stored(started.body.id);
    expect(halfway).toMatchObject({ status: 'processing', next_chunk: 0, created: 0, pending: { chunk: 0, created: CHUNK_ROWS } });
    expect(contacts.contactsOf(accountId).size).toBe(CHUNK_ROWS); // written, not yet counted

    expect(await runJob(job!, 2)).toEqual({ batchItemFailures: [] });

    const done = (await read(started.body.id)).body;
    expect(done).toMatchObject({ status: 'completed', total: CHUNK_ROWS + 10, created: CHUNK_ROWS + 10, updated: 0, skipped: 0 });
    expect(contacts.contactsOf(accountId).size).toBe(CHUNK_ROWS + 10);
    expect(contacts.creations).toBe(CHUNK_ROWS + 10);
    expect((await stored(started.body.id))?.pending).toBeUndefined();
  });

  it('stores one plan per chunk: a second run that meets another run’s plan of the chunk stands back', async () => {
    const started = await start({ object_key: await upload(CSV) });
    const imports = new ContactImportRepository(c.store);
    const plan = { chunk: 0, total: 5, created: 2, updated: 0, skipped: 3, errors: [] };
    const now = c.clock.now().toISOString();

    expect(await imports.beginChunk(accountId, started.body.id, plan, now)).toMatchObject({ pending: plan });
    expect(await imports.beginChunk(accountId, started.body.id, { ...plan, created: 0, skipped: 5 }, now)).toBeUndefined();
    expect(await imports.beginChunk(accountId, started.body.id, { ...plan, chunk: 1 }, now)).toBeUndefined();
    expect((await stored(started.body.id))?.pending).toEqual(plan);
  });

  it('does nothing for a job of a finished import, or one another run moved on', async () => {
    const body = await imported(CSV);
    const job = { account_id: accountId, import_id: body.id };
    const queued = importJobs().length;

    expect(await runJob(job)).toEqual({ batchItemFailures: [] });

    expect(importJobs()).toHaveLength(queued);
    expect((await read(body.id)).body).toEqual(body);
  });

  it('fails the whole import, writing nothing, when the file cannot be read as contacts', async () => {
    const noEmail = await imported('name,plan\nAda,pro\n');
    expect(noEmail).toMatchObject({ status: 'failed', total: 0, created: 0, errors: [{ row: 1, message: 'the header has no "email" column; nothing was imported' }] });
    expect(noEmail.completed_at).toEqual(expect.any(String));

    const broken = await imported('email,note\na@example.com,ok\nb@example.com,"never closed\n');
    expect(broken).toMatchObject({ status: 'failed', errors: [{ row: 3, message: expect.stringMatching(/^Quote Not Closed/) }] });
    expect(contacts.contactsOf(accountId).size).toBe(0);
  });

  it('keeps the first 100 errors and counts every bad row', async () => {
    const rows = Array.from({ length: 150 }, (_, i) => `bad-${i}`);
    const body = await imported(['email', ...rows, 'ok@example.com'].join('\n'));

    expect(body).toMatchObject({ status: 'completed', total: 151, created: 1, skipped: 150 });
    expect(body.errors).toHaveLength(100);
    expect(body.errors[0]).toEqual({ row: 2, message: '"bad-0" is not a valid email address' });
    expect(body.errors[99].row).toBe(101);
  });

  it('fails the import on the last receive of a job that keeps failing, keeping what it wrote', async () => {
    const started = await start({ object_key: await upload(CSV) });
    const [job] = importJobs();
    contacts.dieAfterNextWrite = true;

    expect((await runJob(job!, 5)).batchItemFailures).toHaveLength(1);

    const body = (await read(started.body.id)).body;
    expect(body).toMatchObject({ status: 'failed', errors: [{ row: 0, message: expect.stringMatching(/stopped after repeated failures/) }] });
  });

  it('completes a 30,000-row file in jobs of at most 20 chunks', async () => {
    const rows = Array.from({ length: 30_000 }, (_, i) => `person${i}@example.com,Person,${i % 2 === 0 ? 'Even' : 'Odd'},plan-${i % 7}`);
    const csv = ['email,first_name,last_name,plan', ...rows].join('\n');
    const started = await start({ object_key: await upload(csv) });

    const jobs = await drain();

    expect(jobs).toBe(Math.ceil(30_000 / (CHUNK_ROWS * CHUNKS_PER_JOB)));
    expect((await read(started.body.id)).body).toMatchObject({ status: 'completed', total: 30_000, created: 30_000, updated: 0, skipped: 0, errors: [] });
    expect(contacts.contactsOf(accountId).size).toBe(30_000);
  });
});

describe('GET /v1/contacts/imports/{id}', () => {
  it('answers 404 for another account’s import and an unknown id; any scope reads', async () => {
    const body = await imported(CSV);
    const other = await createAccount(c, { email: 'other@example.com' });

    expectError(await read(body.id, other.admin_key), 404, 'not_found');
    expectError(await read('imp_00000000000000000000000000'), 404, 'not_found');
    expectError(await read('not-an-id'), 404, 'not_found');
    expect((await read(body.id, bed.sendKey)).status).toBe(200);
    expect((await read(body.id, bed.account.admin_key)).status).toBe(200);
  });
});
