// Mail search end to end: inbound mail fed through the real inbound worker and outbound mail through
// recordMailMessage are indexed as they arrive, found with every operator newest first, scoped to
// an inbox, never across accounts, once however often the worker runs; a search reads postings in
// proportion to its hits, not to the account's mail; the threads list filters by the same q.
import { beforeEach, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keyQueries, keys } from '../../shared/db/keys';
import type { QueryRequest, Store } from '../../shared/db/store';
import { indexMailMessage } from '../../shared/inbound-mail/mailbox/index-write';
import type { MailMessageEntry } from '../../shared/inbound-mail/mailbox/model';
import { recordMailMessage } from '../../shared/inbound-mail/mailbox/record';
import { searchMail } from '../../shared/inbound-mail/mailbox/search-service';
import type { HttpEventInput } from '../support/events';
import { arrive, inboundDomain, rawMail, rawMailWithAttachment, redeliver } from '../support/mail';
import { expectError } from '../support/errors';
import { useTestbed } from '../support/testbed';

const bed = useTestbed({ scopedKeys: true });
const req = (input: HttpEventInput) => bed.request(input);

const search = async (query: Record<string, string>, key = bed.readKey) => {
  const res = await req({ method: 'GET', path: '/v1/mail/search', key, query });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.results as any[];
};
const subjects = async (q: string, extra: Record<string, string> = {}) => (await search({ q, ...extra })).map((r) => r.subject);

let threadSeq = 0;
const newThreadId = () => `thr_${(++threadSeq).toString(16).padStart(26, '0')}`;

/** Outbound mail as the send path will record it (compose is another slice). */
async function sent(m: { subject: string; text: string; to?: string[]; thread_id?: string; from?: string }): Promise<MailMessageEntry> {
  bed.c.clock.advance(1000);
  const entry: MailMessageEntry = {
    account_id: bed.account.account_id,
    source: 'outbound',
    id: bed.c.ids.next('msg'),
    thread_id: m.thread_id ?? newThreadId(),
    occurred_at: bed.c.clock.now().toISOString(),
    from: m.from ?? 'team@in.test',
    to: m.to ?? ['dave@client.test'],
    cc: [],
    subject: m.subject,
    text: m.text,
    address: m.from ?? 'team@in.test',
  };
  await recordMailMessage(bed.c, entry);
  return entry;
}

beforeEach(async () => {
  await inboundDomain(bed, 'in.test');
});

/** Three inbound messages (one with an attachment, one to sales@) and two outbound, a day apart. */
async function mailbox(): Promise<void> {
  bed.c.clock.set(new Date('2026-03-01T10:00:00.000Z'));
  await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Quarterly report', text: 'The quarterly report is attached below.\nRegards', messageId: '<q1@sender.test>' }), ['team@in.test']);
  bed.c.clock.set(new Date('2026-03-02T10:00:00.000Z'));
  await arrive(bed, rawMail({ from: 'carol@other.test', to: 'sales@in.test', subject: 'Pricing question', text: 'What does the report plan cost?' }), ['sales@in.test']);
  bed.c.clock.set(new Date('2026-03-03T10:00:00.000Z'));
  await arrive(bed, rawMailWithAttachment({ to: 'team@in.test', subject: 'Signed contract', text: 'Here is the contract, signed.' }), ['team@in.test']);
  bed.c.clock.set(new Date('2026-03-04T10:00:00.000Z'));
  await sent({ subject: 'Re: Pricing question', text: 'The report plan costs ten euros.', to: ['carol@other.test'], from: 'sales@in.test' });
  bed.c.clock.set(new Date('2026-03-05T10:00:00.000Z'));
  await sent({ subject: 'Hello Dave', text: 'A report about café culture.' });
}

describe('GET /v1/mail/search', () => {
  it('finds inbound and outbound mail, newest first, as the spec’s Search result', async () => {
    await mailbox();
    const results = await search({ q: 'report' });
    expect(results.map((r) => r.subject)).toEqual(['Hello Dave', 'Re: Pricing question', 'Pricing question', 'Quarterly report']);
    expect(results.map((r) => r.source)).toEqual(['outbound', 'outbound', 'inbound', 'inbound']);
    expect(results[3]).toEqual({
      thread_id: expect.stringMatching(/^thr_[0-9a-f]{26}$/),
      source: 'inbound',
      message_ref: expect.stringMatching(/^inb_/),
      from: 'alice@sender.test',
      subject: 'Quarterly report',
      snippet: 'The quarterly report is attached below. Regards',
      occurred_at: '2026-03-01T10:00:01.000Z', // arrive() moves the clock a second on
    });
    expect(results[0].message_ref).toMatch(/^msg_/);
    // Every word must appear; case and accents do not matter; a word is matched whole.
    expect(await subjects('REPORT Cafe')).toEqual(['Hello Dave']);
    expect(await subjects('repo')).toEqual([]);
    expect((await search({ q: 'report', limit: '2' })).map((r) => r.subject)).toEqual(['Hello Dave', 'Re: Pricing question']);
  });

  it('takes every operator, alone or with words, and quoted phrases', async () => {
    await mailbox();
    expect(await subjects('from:carol@other.test')).toEqual(['Pricing question']);
    expect(await subjects('from:other.test')).toEqual(['Pricing question']);
    expect(await subjects('from:alice')).toEqual(['Signed contract', 'Quarterly report']);
    expect(await subjects('to:carol@other.test')).toEqual(['Re: Pricing question']);
    expect(await subjects('to:sales@in.test')).toEqual(['Pricing question']);
    expect(await subjects('subject:report')).toEqual(['Quarterly report']);
    expect(await subjects('subject:"pricing question"')).toEqual(['Re: Pricing question', 'Pricing question']);
    expect(await subjects('has:attachment')).toEqual(['Signed contract']);
    expect(await subjects('has:attachment contract')).toEqual(['Signed contract']);
    expect(await subjects('after:2026-03-04')).toEqual(['Hello Dave', 'Re: Pricing question']);
    expect(await subjects('before:2026-03-02')).toEqual(['Quarterly report']);
    expect(await subjects('report after:2026-03-02 before:2026-03-05')).toEqual(['Re: Pricing question', 'Pricing question']);
    expect(await subjects('"report plan"')).toEqual(['Re: Pricing question', 'Pricing question']);
    expect(await subjects('"plan report"')).toEqual([]);
    // A phrase of common words is checked on the candidates' text.
    expect(await subjects('"is attached"')).toEqual(['Quarterly report']);
    expect(await subjects('from:alice subject:contract has:attachment after:2026-03-01')).toEqual(['Signed contract']);
  });

  it('answers a range that ends before it starts with no results, on search and on the threads list', async () => {
    await mailbox();
    expect(await subjects('after:2026-03-05 before:2026-03-02')).toEqual([]);
    expect(await subjects('report after:2026-03-05 before:2026-03-02')).toEqual([]);
    const threads = await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { q: 'after:2026-03-05 before:2026-03-02' } });
    expect(threads.status, JSON.stringify(threads.body)).toBe(200);
    expect(threads.body.threads).toEqual([]);
  });

  it('narrows to one inbox by inbox_id or address, and answers 404 for an unknown inbox', async () => {
    await mailbox();
    const inbox = await req({ method: 'POST', path: '/v1/mail/inboxes', key: bed.sendKey, body: { domain: 'in.test', local_part: 'sales' } });
    expect(inbox.status).toBe(201);
    expect(await subjects('report', { inbox_id: inbox.body.id })).toEqual(['Re: Pricing question', 'Pricing question']);
    expect(await subjects('report', { inbox: 'TEAM@in.test' })).toEqual(['Hello Dave', 'Quarterly report']);
    expectError(await req({ method: 'GET', path: '/v1/mail/search', key: bed.readKey, query: { q: 'report', inbox_id: 'mbx_01jz0000000000000000000000' } }), 404, 'not_found');
  });

  it("never finds another account's mail", async () => {
    await mailbox();
    const other = await createAccount(bed.c, { email: 'other@example.com' });
    await inboundDomain(bed, 'elsewhere.test', other.account_id);
    expect(await search({ q: 'report' }, other.admin_key)).toEqual([]);
    expect(await search({ q: 'after:2000-01-01' }, other.admin_key)).toEqual([]);
    await arrive(bed, rawMail({ to: 'x@elsewhere.test', subject: 'Their report', text: 'report' }), ['x@elsewhere.test']);
    expect((await search({ q: 'report' }, other.admin_key)).map((r) => r.subject)).toEqual(['Their report']);
    expect(await subjects('their')).toEqual([]);
  });

  it('indexes a message once however often the worker runs for it', async () => {
    const first = await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Once only', text: 'unique words here', messageId: '<once@sender.test>' }), ['team@in.test']);
    const postings = () => bed.c.store.query(keyQueries.partition(keys.mailPostingPartition(bed.account.account_id, 'unique')));
    expect((await postings()).items).toHaveLength(1);
    await redeliver(first, 2);
    await redeliver(first, 3);
    expect((await postings()).items).toHaveLength(1);
    expect(await subjects('unique')).toEqual(['Once only']);
  });

  it('refuses a missing or malformed q, and unknown query fields', async () => {
    const bad = (query: Record<string, string>) => req({ method: 'GET', path: '/v1/mail/search', key: bed.readKey, query });
    expectError(await bad({}), 400, 'invalid_request', /q/);
    expectError(await bad({ q: '' }), 400, 'invalid_request', /query\.q/);
    expectError(await bad({ q: 'after:2026-02-30' }), 400, 'invalid_request', /YYYY-MM-DD/);
    expectError(await bad({ q: 'before:soon' }), 400, 'invalid_request', /YYYY-MM-DD/);
    expectError(await bad({ q: 'has:star' }), 400, 'invalid_request', /attachment/);
    expectError(await bad({ q: 'x', sort: 'asc' }), 400, 'invalid_request');
    expectError(await bad({ q: 'x', inbox: `${'x'.repeat(300)}@in.test` }), 400, 'invalid_request', /inbox/);
    expectError(await bad({ q: 'x'.repeat(501) }), 400, 'invalid_request', /500 characters/);
    expectError(await req({ method: 'GET', path: '/v1/mail/search', query: { q: 'x' } }), 401, 'unauthorized');
    // Any scope reads.
    expect(await search({ q: 'x' }, bed.sendKey)).toEqual([]);
  });
});

/** A store that counts the items its reads return. */
function countingStore(store: Store): { store: Store; read: () => number; reset: () => void } {
  let items = 0;
  const counting = Object.create(store) as Store;
  counting.query = async <T extends object>(request: QueryRequest) => {
    const out = await store.query<T>(request);
    items += out.items.length;
    return out;
  };
  counting.batchGet = async <T extends object>(...args: Parameters<Store['batchGet']>) => {
    const out = await store.batchGet<T>(...args);
    items += out.length;
    return out;
  };
  return { store: counting, read: () => items, reset: () => void (items = 0) };
}

describe('a search reads postings in proportion to its hits, not the account’s mail', () => {
  it('finds 3 rare messages among 300 reading a few dozen items', async () => {
    const accountId = bed.account.account_id;
    const base = Date.parse('2026-01-01T00:00:00.000Z');
    const entries: MailMessageEntry[] = Array.from({ length: 300 }, (_, i) => ({
      account_id: accountId,
      source: 'inbound',
      id: `inb_${String(i).padStart(26, '0')}`,
      thread_id: newThreadId(),
      occurred_at: new Date(base + i * 60_000).toISOString(),
      from: `sender${i % 7}@far.test`,
      to: ['team@in.test'],
      cc: [],
      subject: `Status ${i}`,
      text: `common words in every message ${i % 100 === 7 ? 'zanzibar' : ''}`,
      address: 'team@in.test',
    }));
    for (let i = 0; i < entries.length; i += 20) await Promise.all(entries.slice(i, i + 20).map((e) => indexMailMessage(bed.c, e)));

    const counted = countingStore(bed.c.store);
    const run = async (q: string, limit?: string) => {
      counted.reset();
      const results = await searchMail(counted.store, accountId, { q, ...(limit ? { limit } : {}) });
      return { results, read: counted.read() };
    };
    const rare = await run('zanzibar');
    expect(rare.results.map((r) => r.message_ref)).toEqual([207, 107, 7].map((i) => `inb_${String(i).padStart(26, '0')}`));
    // Its 3 postings, which carry what a result shows: no document is read.
    expect(rare.read).toBe(3);

    // A rare term beside a common one: each hit costs a seek of the common list, not a walk of it.
    const both = await run('common zanzibar');
    expect(both.results).toHaveLength(3);
    expect(both.read).toBeLessThan(3 * 30);

    // A common term stops at the limit.
    const common = await run('common', '5');
    expect(common.results).toHaveLength(5);
    expect(common.read).toBeLessThanOrEqual(25 + 5);

    // Operators alone walk the every-message list only as far as the limit.
    const dates = await run('after:2026-01-01', '3');
    expect(dates.results.map((r) => r.subject)).toEqual(['Status 299', 'Status 298', 'Status 297']);
    expect(dates.read).toBeLessThanOrEqual(25 + 3);
  });
});

describe('a search result from the posting or from the document', () => {
  it('answers alike from postings that show the result and from documents, where a posting has no room or a phrase needs the text', async () => {
    const accountId = bed.account.account_id;
    const entry = (i: number, subject: string): MailMessageEntry => ({
      account_id: accountId,
      source: 'inbound',
      id: `inb_${String(i).padStart(26, '0')}`,
      thread_id: newThreadId(),
      occurred_at: new Date(Date.parse('2026-02-01T00:00:00.000Z') + i * 60_000).toISOString(),
      from: 'ann@far.test',
      to: ['team@in.test'],
      cc: [],
      subject,
      text: `The tangerine plan, part ${i}.`,
      address: 'team@in.test',
    });
    // A subject of 1,000 characters leaves no room on the postings: its result comes from the document.
    const long = `Tangerine ${'x'.repeat(990)}`;
    await indexMailMessage(bed.c, entry(1, 'Tangerine short'));
    await indexMailMessage(bed.c, entry(2, long));
    const postings = await bed.c.store.query<Record<string, unknown>>({ ...keyQueries.partition(keys.mailPostingPartition(accountId, 'tangerine')), consistent: true });
    expect(postings.items.map((p) => p.subject)).toEqual([undefined, 'Tangerine short']);

    const counted = countingStore(bed.c.store);
    const results = await searchMail(counted.store, accountId, { q: 'tangerine' });
    expect(results.map((r) => [r.message_ref, r.subject, r.snippet, r.from])).toEqual([
      [entry(2, long).id, long, 'The tangerine plan, part 2.', 'ann@far.test'],
      [entry(1, '').id, 'Tangerine short', 'The tangerine plan, part 1.', 'ann@far.test'],
    ]);
    expect(results[1]).toEqual({ thread_id: expect.any(String), source: 'inbound', message_ref: entry(1, '').id, from: 'ann@far.test', subject: 'Tangerine short', snippet: 'The tangerine plan, part 1.', occurred_at: '2026-02-01T00:01:00.000Z' });
    // Two postings and the one document.
    expect(counted.read()).toBe(3);

    // A phrase is checked on the documents, whatever the postings show.
    counted.reset();
    expect((await searchMail(counted.store, accountId, { q: '"tangerine plan part 1"' })).map((r) => r.subject)).toEqual(['Tangerine short']);
    expect(counted.read()).toBeGreaterThanOrEqual(4);
  });
});

describe('GET /v1/mail/threads?q=', () => {
  const threads = async (query: Record<string, string>) => {
    const res = await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body as { threads: any[]; next_cursor: string | null };
  };

  it('lists the threads of the matching messages once each, newest match first, in the folder asked, page by page', async () => {
    // Three threads; the first gets a matching reply last, so it has two matches.
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Alpha', text: 'budget talk', messageId: '<a@x.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Beta', text: 'budget again', messageId: '<b@x.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Gamma', text: 'nothing here', messageId: '<c@x.test>' }), ['team@in.test']);
    await arrive(bed, rawMail({ to: 'team@in.test', subject: 'Re: Alpha', text: 'the budget, final', references: '<a@x.test>' }), ['team@in.test']);

    const all = await threads({ q: 'budget' });
    expect(all.threads.map((t) => t.subject)).toEqual(['Alpha', 'Beta']);
    expect(all.next_cursor).toBeNull();

    const first = await threads({ q: 'budget', limit: '1' });
    expect(first.threads.map((t) => t.subject)).toEqual(['Alpha']);
    const second = await threads({ q: 'budget', limit: '1', cursor: first.next_cursor! });
    // Alpha's older match is not shown again.
    expect(second.threads.map((t) => t.subject)).toEqual(['Beta']);
    const third = second.next_cursor ? await threads({ q: 'budget', limit: '1', cursor: second.next_cursor }) : { threads: [], next_cursor: null };
    expect(third.threads).toEqual([]);

    // The folder narrows it as it narrows the plain list.
    const beta = all.threads[1];
    expect((await req({ method: 'PUT', path: `/v1/mail/threads/${beta.id}/folder`, key: bed.sendKey, body: { folder: 'archive' } })).status).toBe(200);
    expect((await threads({ q: 'budget' })).threads.map((t) => t.subject)).toEqual(['Alpha']);
    expect((await threads({ q: 'budget', folder: 'archive' })).threads.map((t) => t.subject)).toEqual(['Beta']);

    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { q: 'has:nothing' } }), 400, 'invalid_request', /has:/);
    expectError(await req({ method: 'GET', path: '/v1/mail/threads', key: bed.readKey, query: { q: 'alpha', cursor: first.next_cursor! } }), 400, 'invalid_request', /filters/);
  });
});

describe('the deployment gate', () => {
  it('answers 404 on search and export where inbound email is off, after the credentials check', async () => {
    bed.c.config.inboundEnabled = false;
    try {
      for (const call of [
        { method: 'GET', path: '/v1/mail/search', query: { q: 'x' } },
        { method: 'GET', path: '/v1/mail/export' },
        { method: 'GET', path: '/v1/mail/export', query: { format: 'mbox' } },
      ] as HttpEventInput[]) {
        expectError(await req({ ...call, key: bed.account.admin_key }), 404, 'not_found');
        expectError(await req(call), 401, 'unauthorized');
      }
    } finally {
      bed.c.config.inboundEnabled = true;
    }
  });
});
