// writeNewContacts, the contacts area's many-at-once create (a contact import's chunk): claims first,
// contacts in batch writes, an address a live contact holds left alone, and a caller-derived id
// that names a stored contact (one being deleted) replaced by a fresh one rather than written over it.
import { beforeEach, describe, expect, it } from 'vitest';
import { writeNewContacts } from '../../shared/audiences/contacts/contacts';
import { ContactClaimRepository } from '../../shared/audiences/contacts/claims-repository';
import { ContactRepository } from '../../shared/audiences/contacts/repository';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
let accountId: string;
beforeEach(() => {
  accountId = bed.account.account_id;
});

const send = (method: string, path: string, body?: unknown, query?: Record<string, string>) => bed.request({ method, path, key: bed.sendKey, body, query });
const byEmail = async (email: string) => (await send('GET', '/v1/contacts', undefined, { email })).body.contacts as Array<{ id: string; email: string; first_name: string | null }>;

describe('writeNewContacts', () => {
  it('writes each new address once, under its derived id, and leaves an address a live contact holds to it', async () => {
    const held = await send('POST', '/v1/contacts', { email: 'held@example.com', first_name: 'Held' });
    expect(held.status).toBe(201);
    const ids = ['ctc_01jd0000000000000000000001', 'ctc_01jd0000000000000000000002'];

    const out = await writeNewContacts(bed.c, accountId, [
      { body: { email: 'new@example.com', first_name: 'New' }, id: ids[0] },
      { body: { email: 'held@example.com', first_name: 'Other' }, id: ids[1] },
    ]);

    expect(out.written.map((c) => [c.id, c.email])).toEqual([[ids[0], 'new@example.com']]);
    expect(out.taken).toEqual(['held@example.com']);
    expect(await byEmail('new@example.com')).toEqual([expect.objectContaining({ id: ids[0], first_name: 'New' })]);
    expect(await byEmail('held@example.com')).toEqual([expect.objectContaining({ id: held.body.id, first_name: 'Held' })]);
    expect(await new ContactRepository(bed.c.store).getContact(accountId, ids[1]!)).toBeUndefined();
  });

  it('gives a fresh id when a contact with the derived one is stored, being deleted with its address freed, never writing over it', async () => {
    const id = 'ctc_01jd0000000000000000000003';
    const repo = new ContactRepository(bed.c.store);
    await writeNewContacts(bed.c, accountId, [{ body: { email: 'again@example.com' }, id }]);
    // A delete under way: the contact marked, its address given up, the item not removed yet.
    expect(await repo.markContactDeleted(accountId, id, bed.c.clock.now().toISOString())).toBe(true);
    expect(await new ContactClaimRepository(bed.c.store).releaseEmail(accountId, 'again@example.com', id)).toBe(true);

    const out = await writeNewContacts(bed.c, accountId, [{ body: { email: 'again@example.com', first_name: 'Again' }, id }]);

    expect(out.taken).toEqual([]);
    expect(out.written).toHaveLength(1);
    expect(out.written[0]!.id).not.toBe(id);
    expect(await byEmail('again@example.com')).toEqual([expect.objectContaining({ id: out.written[0]!.id, first_name: 'Again' })]);
    expect((await repo.getContact(accountId, id))?.deleted_at).toBeDefined();
  });
});
