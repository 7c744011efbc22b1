// Mail inboxes and labels through the handler: the domain rules and uniqueness of inboxes, mail
// joined to the inbox of its recipient address (and detached when the inbox goes), and labels'
// case-insensitive names, hex colours, order and deletion; every failure case.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { MAX_INBOXES } from '../../shared/inbound-mail/mailbox/inboxes';
import { MAX_LABELS } from '../../shared/inbound-mail/mailbox/labels';
import { MailSettingsRepository } from '../../shared/inbound-mail/mailbox/settings-repository';
import { giveVerifiedDomain } from '../support/domains';
import type { HttpEventInput } from '../support/events';
import { arrive, inboundDomain, rawMail } from '../support/mail';
import { expectError } from '../support/errors';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
const req = (input: HttpEventInput) => bed.request(input);

const createInbox = (body: unknown, key = bed.sendKey) => req({ method: 'POST', path: '/v1/mail/inboxes', key, body });
const inboxes = async (key = bed.readKey) => (await req({ method: 'GET', path: '/v1/mail/inboxes', key })).body.inboxes as any[];
const deleteInbox = (id: string, key = bed.sendKey) => req({ method: 'DELETE', path: `/v1/mail/inboxes/${id}`, key });
const createLabel = (body: unknown, key = bed.sendKey) => req({ method: 'POST', path: '/v1/mail/labels', key, body });
const labels = async (key = bed.readKey) => (await req({ method: 'GET', path: '/v1/mail/labels', key })).body.labels as any[];
const deleteLabel = (id: string, key = bed.sendKey) => req({ method: 'DELETE', path: `/v1/mail/labels/${id}`, key });
const threads = async (query: Record<string, string> = {}) => (await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query })).body.threads as any[];

beforeEach(async () => {
  await inboundDomain(bed, 'in.test');
});

describe('POST /v1/mail/inboxes', () => {
  it('creates an inbox on an inbound-enabled domain, lowercased, and lists it newest first', async () => {
    const res = await createInbox({ domain: 'IN.test', local_part: 'Support' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ domain: 'in.test', local_part: 'support', address: 'support@in.test', active: true });
    expect(res.body.id).toMatch(/^mbx_/);
    expect(res.body.domain_id).toMatch(/^dom_/);
    const second = (await createInbox({ domain: 'in.test', local_part: 'billing' })).body;
    expect((await inboxes()).map((i) => i.id)).toEqual([second.id, res.body.id]);
  });

  it('refuses an address that has an inbox (409), whatever its case', async () => {
    expect((await createInbox({ domain: 'in.test', local_part: 'support' })).status).toBe(201);
    expectError(await createInbox({ domain: 'in.test', local_part: 'SUPPORT' }), 409, 'conflict', /support@in.test/);
    expect(await inboxes()).toHaveLength(1);
  });

  it("refuses domains that are not ready (422) and domains that are not the account's (404)", async () => {
    expectError(await createInbox({ domain: 'acme.test', local_part: 'x' }), 422, 'domain_not_ready', /inbound/);
    await giveVerifiedDomain(bed.c, bed.account.account_id, 'pending.test', { dkim_status: 'pending', inbound_enabled: true });
    expectError(await createInbox({ domain: 'pending.test', local_part: 'x' }), 422, 'domain_not_ready', /verified/);
    expectError(await createInbox({ domain: bed.c.config.sharedEmailSender.split('@')[1], local_part: 'x' }), 422, 'domain_not_ready', /sandbox/);
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await inboundDomain(bed, 'theirs.test', other.account_id);
    expectError(await createInbox({ domain: 'theirs.test', local_part: 'x' }), 404, 'not_found');
    expectError(await createInbox({ domain: 'nobody.test', local_part: 'x' }), 404, 'not_found');
    expectError(await createInbox({ domain: 'not a domain', local_part: 'x' }), 404, 'not_found');
    expect(await inboxes()).toEqual([]);
  });

  it('refuses bad bodies (400) and read keys (403)', async () => {
    expectError(await createInbox({ domain: 'in.test' }), 400, 'invalid_request', /local_part/);
    expectError(await createInbox({ domain: 'in.test', local_part: 'two words' }), 400, 'invalid_request', /local_part/);
    expectError(await createInbox({ domain: 'in.test', local_part: 'a@b' }), 400, 'invalid_request', /local_part/);
    expectError(await createInbox({ domain: 'in.test', local_part: 'x', extra: 1 }), 400, 'invalid_request');
    expectError(await createInbox(undefined), 400, 'invalid_request', /body/);
    expectError(await createInbox({ domain: 'in.test', local_part: 'x' }, bed.readKey), 403, 'forbidden');
    expect((await createInbox({ domain: 'in.test', local_part: 'x' }, bed.account.admin_key)).status).toBe(201);
  });

  it(`holds at most ${MAX_INBOXES} inboxes per account`, async () => {
    const repo = new MailSettingsRepository(bed.c.store);
    for (let i = 0; i < MAX_INBOXES; i++) {
      const address = `box${i}@in.test`;
      await repo.createInbox({ id: bed.c.ids.next('mbx'), account_id: bed.account.account_id, domain_id: 'dom_x', domain: 'in.test', local_part: `box${i}`, address, active: true, created_at: 'x', updated_at: 'x' });
    }
    expectError(await createInbox({ domain: 'in.test', local_part: 'one-more' }), 400, 'invalid_request', /at most/);
  });
});

describe('inboxes and mail', () => {
  it("joins mail to its recipient's inbox; mail to other addresses stays in the threads with no inbox", async () => {
    const inbox = (await createInbox({ domain: 'in.test', local_part: 'support' })).body;
    await arrive(bed, rawMail({ to: 'support@in.test', subject: 'Help', messageId: '<h1@sender.test>' }), ['support@in.test']);
    await arrive(bed, rawMail({ to: 'random@in.test', subject: 'Stray', messageId: '<s1@sender.test>' }), ['random@in.test']);
    const all = await threads();
    expect(all.map((t) => [t.subject, t.inbox_ids])).toEqual([
      ['Stray', []],
      ['Help', [inbox.id]],
    ]);
    expect((await threads({ inbox_id: inbox.id })).map((t) => t.subject)).toEqual(['Help']);
    const detail = (await req({ method: 'GET', path: `/v1/mail/threads/${all[1].id}`, key: bed.readKey })).body;
    expect(detail.messages[0]).toMatchObject({ recipient: 'support@in.test', inbox_id: inbox.id });
  });

  it('deleting an inbox detaches its mail, which keeps its recipient and thread', async () => {
    const inbox = (await createInbox({ domain: 'in.test', local_part: 'support' })).body;
    await arrive(bed, rawMail({ to: 'support@in.test', subject: 'Help', messageId: '<h2@sender.test>' }), ['support@in.test']);
    expect((await deleteInbox(inbox.id)).status).toBe(204);
    expect(await inboxes()).toEqual([]);
    const [kept] = await threads();
    expect(kept).toMatchObject({ subject: 'Help', inbox_ids: [], message_count: 1 });
    const detail = (await req({ method: 'GET', path: `/v1/mail/threads/${kept.id}`, key: bed.readKey })).body;
    expect(detail.messages[0]).toMatchObject({ recipient: 'support@in.test', inbox_id: null });
    expect((await threads({ inbox: 'support@in.test' })).map((t) => t.id)).toEqual([kept.id]);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { inbox_id: inbox.id } }), 404, 'not_found');
  });

  it("refuses to delete an unknown inbox, another account's, or with a read key", async () => {
    const inbox = (await createInbox({ domain: 'in.test', local_part: 'support' })).body;
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await deleteInbox('mbx_00000000000000000000000000'), 404, 'not_found');
    expectError(await deleteInbox('not-an-inbox'), 404, 'not_found');
    expectError(await deleteInbox(inbox.id, other.admin_key), 404, 'not_found');
    expectError(await deleteInbox(inbox.id, bed.readKey), 403, 'forbidden');
    expect(await inboxes(other.admin_key)).toEqual([]);
    expect(await inboxes()).toHaveLength(1);
    expect((await deleteInbox(inbox.id)).status).toBe(204);
    expectError(await deleteInbox(inbox.id), 404, 'not_found');
  });
});

describe('labels', () => {
  it('creates labels with hex colours and lists them by name without regard to case', async () => {
    const res = await createLabel({ name: 'work', color: '#1A73E8' });
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    expect(res.body).toMatchObject({ name: 'work', color: '#1a73e8' });
    expect(res.body.id).toMatch(/^lbl_/);
    await createLabel({ name: 'Bills', color: '#abc' });
    await createLabel({ name: 'zeta', color: '#000' });
    expect((await labels()).map((l) => l.name)).toEqual(['Bills', 'work', 'zeta']);
  });

  it('refuses a name taken without regard to case (409), bad colours and names (400), read keys (403)', async () => {
    await createLabel({ name: 'Work', color: '#fff' });
    expectError(await createLabel({ name: 'WORK', color: '#000' }), 409, 'conflict', /WORK/);
    for (const color of ['blue', '#ff', '#ggg', 'fff', '#fffffff', '#1234']) {
      expectError(await createLabel({ name: `c${color}`, color }), 400, 'invalid_request', /color/);
    }
    expectError(await createLabel({ name: '', color: '#fff' }), 400, 'invalid_request', /name/);
    expectError(await createLabel({ name: '   ', color: '#fff' }), 400, 'invalid_request', /name/);
    expectError(await createLabel({ name: 'x'.repeat(101), color: '#fff' }), 400, 'invalid_request', /name/);
    expectError(await createLabel({ name: 'a\u0007b', color: '#fff' }), 400, 'invalid_request', /name/);
    expectError(await createLabel({ color: '#fff' }), 400, 'invalid_request', /name/);
    expectError(await createLabel({ name: 'ok', color: '#fff' }, bed.readKey), 403, 'forbidden');
    expect((await labels()).map((l) => l.name)).toEqual(['Work']);
  });

  it(`holds at most ${MAX_LABELS} labels per account`, async () => {
    const repo = new MailSettingsRepository(bed.c.store);
    for (let i = 0; i < MAX_LABELS; i++) {
      await repo.createLabel({ id: bed.c.ids.next('lbl'), account_id: bed.account.account_id, name: `l${i}`, color: '#fff', created_at: 'x' });
    }
    expectError(await createLabel({ name: 'one-more', color: '#fff' }), 400, 'invalid_request', /at most/);
  });

  it("deletes a label (204); an unknown one, another account's or a read key's call is refused", async () => {
    const work = (await createLabel({ name: 'Work', color: '#fff' })).body;
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    expectError(await deleteLabel(work.id, other.admin_key), 404, 'not_found');
    expectError(await deleteLabel('lbl_00000000000000000000000000'), 404, 'not_found');
    expectError(await deleteLabel('bad'), 404, 'not_found');
    expectError(await deleteLabel(work.id, bed.readKey), 403, 'forbidden');
    expect(await labels(other.admin_key)).toEqual([]);
    expect((await deleteLabel(work.id)).status).toBe(204);
    expect(await labels()).toEqual([]);
    expectError(await deleteLabel(work.id), 404, 'not_found');
    expect((await createLabel({ name: 'work', color: '#fff' })).status).toBe(201);
  });
});
