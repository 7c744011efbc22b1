// The contact import writing to shared/audiences/contacts through its real target (shared/audiences/imports/contacts-target.ts),
// read back through the contacts and lists routes: created and updated contacts, list membership,
// a repeat that changes nothing, a crash between a chunk's writes and its progress that leaves no
// second contact or membership, a crash between a chunk's address claims and its plan, new
// addresses claimed rather than read, and data that would pass the contacts limits refused per row.
import { afterAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { handler as importContactsRaw } from '../../functions/uploads/import-contacts';
import { ContactCountRepository } from '../../shared/audiences/contacts/count-repository';
import { keys } from '../../shared/db/keys';
import { contactsTarget, useContactImportTarget } from '../../shared/audiences/imports/contacts-target';
import type { ImportJob } from '../../shared/audiences/imports/messages';
import { CHUNK_ROWS } from '../../shared/audiences/imports/run';
import { underNeeds } from '../support/grants';
import { sqsEvent, sqsRecord } from '../support/sqs';
import { useTestbed } from '../support/testbed';

const importContacts = underNeeds('functions/uploads/import-contacts.ts', importContactsRaw);

/** The real target; `die` makes its next upsert throw after writing, as a worker killed there. */
let die = false;
useContactImportTarget((c) => {
  const real = contactsTarget(c);
  return {
    ...real,
    upsertContacts: async (...args) => {
      const out = await real.upsertContacts(...args);
      if (die) {
        die = false;
        throw new Error('worker killed after its contact writes');
      }
      return out;
    },
  };
});
afterAll(() => useContactImportTarget((c) => contactsTarget(c)));

const bed = useTestbed({ scopedKeys: true });
beforeEach(() => {
  die = false;
});

const send = (method: string, path: string, body?: unknown, query?: Record<string, string>) => bed.request({ method, path, key: bed.sendKey, body, query });
const importJobs = (): ImportJob[] => bed.c.sent.filter((s) => s.queue === 'imports').map((s) => s.body as ImportJob);

async function importCsv(csv: string, listId?: string): Promise<Record<string, any>> {
  const uploaded = await bed.request({ method: 'POST', path: '/v1/uploads', key: bed.sendKey, rawBody: csv, headers: { 'content-type': 'text/csv' } });
  const started = await send('POST', '/v1/contacts/import', { object_key: uploaded.body.key, ...(listId ? { list_id: listId } : {}) });
  expect(started.status).toBe(202);
  const job = importJobs().find((j) => j.import_id === started.body.id)!;
  for (let attempt = 1; ; attempt++) {
    const out = await importContacts(sqsEvent([sqsRecord(job, attempt)]));
    if (out.batchItemFailures.length === 0) break;
    expect(attempt).toBeLessThan(3);
  }
  return (await send('GET', `/v1/contacts/imports/${started.body.id}`)).body;
}

const contactByEmail = async (email: string) => (await send('GET', '/v1/contacts', undefined, { email })).body;
const members = async (listId: string) => (await send('GET', `/v1/lists/${listId}/members`)).body;

describe('a contact import into shared/audiences/contacts', () => {
  it('creates contacts as POST /v1/contacts does, in the static list, and a repeat changes nothing', async () => {
    const list = (await send('POST', '/v1/lists', { name: 'Imported', type: 'static' })).body;
    const csv = 'email,first_name,last_name,plan\nAda@Example.com,Ada,Lovelace,pro\ngrace@example.com,Grace,Hopper,team\n';

    const first = await importCsv(csv, list.id);

    expect(first).toMatchObject({ status: 'completed', total: 2, created: 2, updated: 0, skipped: 0, errors: [] });
    const ada = await contactByEmail('ada@example.com');
    expect(ada.contacts).toEqual([expect.objectContaining({ email: 'ada@example.com', first_name: 'Ada', last_name: 'Lovelace', data: { plan: 'pro' }, list_ids: [list.id] })]);
    expect((await send('GET', `/v1/lists/${list.id}`)).body.member_count).toBe(2);

    const again = await importCsv(csv, list.id);

    expect(again).toMatchObject({ status: 'completed', created: 0, updated: 0, skipped: 2 });
    expect((await contactByEmail('ada@example.com')).contacts).toEqual(ada.contacts);
    expect((await send('GET', `/v1/lists/${list.id}`)).body.member_count).toBe(2);
  });

  it('updates an existing contact (never duplicate_contact), merging data and keeping what the row leaves empty', async () => {
    const made = await send('POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada', last_name: 'Byron', data: { city: 'London', vip: true } });
    expect(made.status).toBe(201);

    const result = await importCsv('email,first_name,last_name,plan\nada@example.com,,Lovelace,pro\n');

    expect(result).toMatchObject({ status: 'completed', created: 0, updated: 1, skipped: 0 });
    const [ada] = (await contactByEmail('ada@example.com')).contacts;
    expect(ada).toMatchObject({ id: made.body.id, first_name: 'Ada', last_name: 'Lovelace', data: { city: 'London', vip: true, plan: 'pro' } });
  });

  it('adds an existing contact to the list as an update', async () => {
    const list = (await send('POST', '/v1/lists', { name: 'VIP', type: 'static' })).body;
    await send('POST', '/v1/contacts', { email: 'ada@example.com', first_name: 'Ada' });

    expect(await importCsv('email,first_name\nada@example.com,Ada\n', list.id)).toMatchObject({ created: 0, updated: 1, skipped: 0 });
    expect((await members(list.id)).contacts.map((c: { email: string }) => c.email)).toEqual(['ada@example.com']);
  });

  it('plans each chunk from what the chunks before it wrote, while the next chunk\'s reads are taken during its writes', async () => {
    const list = (await send('POST', '/v1/lists', { name: 'Spread', type: 'static' })).body;
    const filler = (chunk: number, n: number) => Array.from({ length: n }, (_, i) => `c${chunk}-${i}@example.com,Filler,,`);
    // Chunk 0 makes ada and grace; chunk 1 changes ada (its read is its own, not chunk 1's read
    // ahead taken during chunk 0's writes); chunk 2 repeats ada's row and adds grace's last name
    // (grace read ahead during chunk 1's writes, after chunk 0's were done).
    const csv = [
      'email,first_name,last_name,plan',
      'ada@example.com,Ada,,free',
      'grace@example.com,Grace,,team',
      ...filler(0, CHUNK_ROWS - 2),
      'ada@example.com,Augusta,Lovelace,',
      ...filler(1, CHUNK_ROWS - 1),
      'ada@example.com,Augusta,Lovelace,',
      'grace@example.com,Grace,Hopper,',
    ].join('\n');

    const result = await importCsv(`${csv}\n`, list.id);

    expect(result).toMatchObject({ status: 'completed', total: 2 * CHUNK_ROWS + 2, created: 2 * CHUNK_ROWS - 1, updated: 2, skipped: 1, errors: [] });
    expect((await contactByEmail('ada@example.com')).contacts).toEqual([
      expect.objectContaining({ first_name: 'Augusta', last_name: 'Lovelace', data: { plan: 'free' }, list_ids: [list.id] }),
    ]);
    expect((await contactByEmail('grace@example.com')).contacts).toEqual([expect.objectContaining({ first_name: 'Grace', last_name: 'Hopper', data: { plan: 'team' } })]);
    expect((await send('GET', `/v1/lists/${list.id}`)).body.member_count).toBe(2 * CHUNK_ROWS - 1);
    expect(await new ContactCountRepository(bed.c.store).contactCount(bed.account.account_id)).toBe(2 * CHUNK_ROWS - 1);
  });

  it('re-runs a chunk whose worker died after its writes: one contact per address, one membership each, true counts', async () => {
    const list = (await send('POST', '/v1/lists', { name: 'Crash', type: 'static' })).body;
    die = true;

    const result = await importCsv('email,first_name\na@example.com,A\nb@example.com,B\nc@example.com,C\n', list.id);

    expect(result).toMatchObject({ status: 'completed', created: 3, updated: 0, skipped: 0 });
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) expect((await contactByEmail(email)).contacts).toHaveLength(1);
    expect((await send('GET', `/v1/lists/${list.id}`)).body.member_count).toBe(3);
    expect((await members(list.id)).contacts).toHaveLength(3);
    // The account's contact count moved once for the chunk, and keeps no trace of the import after it.
    expect(await new ContactCountRepository(bed.c.store).contactCount(bed.account.account_id)).toBe(3);
    expect(Object.keys((await bed.c.store.get(keys.contactCount(bed.account.account_id)))!).filter((k) => k.startsWith('import_'))).toEqual([]);
  });

  it('re-runs a chunk whose worker died between an address claim and its contact: the next receive takes its own claim back', async () => {
    // The kill: b's contact item is never written (the claims are all taken before any contact is), the address claims stay.
    const batchPut = bed.c.store.batchPut.bind(bed.c.store);
    let killed = false;
    const spy = vi.spyOn(bed.c.store, 'batchPut').mockImplementation(async (items) => {
      if (!killed && items.some((item) => (item as { entity?: string }).entity === 'contact' && (item as { email?: string }).email === 'b@example.com')) {
        killed = true;
        throw new Error('worker killed between the address claims and the contacts');
      }
      return batchPut(items);
    });
    try {
      // importCsv allows one failed receive: the retry must not wait for the claim to go stale.
      const result = await importCsv('email,first_name\na@example.com,A\nb@example.com,B\nc@example.com,C\n');

      expect(killed).toBe(true);
      expect(result).toMatchObject({ status: 'completed', total: 3, created: 3, updated: 0, skipped: 0, errors: [] });
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) expect((await contactByEmail(email)).contacts).toHaveLength(1);
    } finally {
      spy.mockRestore();
    }
  });

  it('re-runs a chunk whose worker died after taking its address claims, before storing its plan: the claims are its own again, each contact made once', async () => {
    // The kill: the plan's write (the import item's `pending`) fails once, after the plan took the chunk's claims.
    const list = (await send('POST', '/v1/lists', { name: 'Claimed', type: 'static' })).body;
    const update = bed.c.store.update.bind(bed.c.store);
    let killed = false;
    const spy = vi.spyOn(bed.c.store, 'update').mockImplementation((async (key: unknown, change: { expression: string }) => {
      if (!killed && change.expression.startsWith('SET pending = :plan')) {
        killed = true;
        throw new Error('worker killed between the address claims and the plan');
      }
      return update(key as never, change as never);
    }) as never);
    try {
      const result = await importCsv('email,first_name\na@example.com,A\nb@example.com,B\nc@example.com,C\n', list.id);

      expect(killed).toBe(true);
      // importCsv allows one failed receive: the retry takes the dead run's claims back at once, never waiting for them to go stale.
      expect(result).toMatchObject({ status: 'completed', total: 3, created: 3, updated: 0, skipped: 0, errors: [] });
      for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) expect((await contactByEmail(email)).contacts).toHaveLength(1);
      expect((await send('GET', `/v1/lists/${list.id}`)).body.member_count).toBe(3);
      expect(await new ContactCountRepository(bed.c.store).contactCount(bed.account.account_id)).toBe(3);
    } finally {
      spy.mockRestore();
    }
  });

  it('plans new addresses by claiming them: a chunk of new addresses reads no claim before it takes it', async () => {
    const gets: string[] = [];
    const batchGet = bed.c.store.batchGet.bind(bed.c.store);
    const spy = vi.spyOn(bed.c.store, 'batchGet').mockImplementation((async (keysRead: Array<{ sk: string }>) => {
      gets.push(...keysRead.map((k) => k.sk));
      return batchGet(keysRead as never);
    }) as never);
    try {
      const result = await importCsv('email,first_name\nnew1@example.com,N\nnew2@example.com,M\n');

      expect(result).toMatchObject({ status: 'completed', created: 2 });
      // No address claim was read (the claims' keys: keys.contactEmail); the contacts were not read either, as none held them.
      expect(gets.filter((sk) => sk.startsWith(keys.contactEmail(bed.account.account_id, '').sk))).toEqual([]);
    } finally {
      spy.mockRestore();
    }
  });

  it('refuses a row whose data would pass 50 keys with the stored ones, and a dynamic list', async () => {
    const stored = Object.fromEntries(Array.from({ length: 49 }, (_, i) => [`k${i}`, 'x']));
    await send('POST', '/v1/contacts', { email: 'full@example.com', data: stored });

    const result = await importCsv('email,extra1,extra2\nfull@example.com,1,2\nok@example.com,1,2\n');

    expect(result).toMatchObject({ status: 'completed', created: 1, updated: 0, skipped: 1, errors: [{ row: 2, message: expect.stringMatching(/51 keys/) }] });
    const made = await send('POST', '/v1/lists', { name: 'Pro', type: 'dynamic', filter: { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] } });
    expect(made.status).toBe(201);
    const dynamic = made.body;
    const uploaded = await bed.request({ method: 'POST', path: '/v1/uploads', key: bed.sendKey, rawBody: 'email\na@example.com\n', headers: { 'content-type': 'text/csv' } });
    const res = await send('POST', '/v1/contacts/import', { object_key: uploaded.body.key, list_id: dynamic.id });
    expect(res.status).toBe(422);
    expect(res.body.error).toMatchObject({ code: 'invalid_request', status: 422, message: expect.stringMatching(/is dynamic/) });
    const missing = await send('POST', '/v1/contacts/import', { object_key: uploaded.body.key, list_id: 'lst_00000000000000000000000000' });
    expect(missing.status).toBe(404);
  });
});
