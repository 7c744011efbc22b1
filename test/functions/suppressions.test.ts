// Suppressions end to end through the handler: adds, lists, removes and imports that block
// recipients, checked through the same lookups the send path uses; other accounts never see them.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { findSuppressed, findSuppression } from '../../shared/sending/suppressions/service';
import { useTestbed } from '../support/testbed';

const bed = useTestbed();

const request = bed.request;
const admin = () => bed.account.admin_key;
const add = (body: unknown, key = admin()) => request({ method: 'POST', path: '/v1/suppressions', key, body });
const list = (query: Record<string, string> = {}, key = admin()) => request({ method: 'GET', path: '/v1/suppressions', key, query });
const remove = (query: Record<string, string>, key = admin()) => request({ method: 'DELETE', path: '/v1/suppressions', key, query });
const importEntries = (body: unknown, key = admin()) => request({ method: 'POST', path: '/v1/suppressions/import', key, body });
const keyWithScope = async (scope: 'read' | 'send'): Promise<string> =>
  (await request({ method: 'POST', path: '/v1/keys', key: admin(), body: { scope } })).body.key;
const recipients = (body: { suppressions: Array<{ recipient: string }> }) => body.suppressions.map((s) => s.recipient);

function expectInvalid(res: { status: number; body: any }, field: string, status = 400): void {
  expect(res.status).toBe(status);
  expect(res.body.error.code).toBe('invalid_request');
  expect(res.body.error.message.startsWith(`${field}:`)).toBe(true);
}

describe('POST /v1/suppressions', () => {
  it('suppresses a normalized email address with the default reason and blocks it', async () => {
    const res = await add({ channel: 'email', recipient: '  Jane.Doe@Example.COM ' });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      channel: 'email',
      recipient: 'jane.doe@example.com',
      state: 'suppressed',
      reason: 'manual',
      updated_at: bed.c.clock.now().toISOString(),
    });
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'JANE.DOE@example.com')).toMatchObject({ state: 'suppressed' });
  });

  it('keeps a given reason and takes non-email recipients verbatim apart from whitespace', async () => {
    const res = await add({ channel: 'sms', recipient: ' +15551234567 ', reason: 'asked by phone' });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ channel: 'sms', recipient: '+15551234567', reason: 'asked by phone', state: 'suppressed' });
    expect(await findSuppressed(bed.c.store, bed.account.account_id, 'sms', ['+15551234567'])).toEqual(new Set(['+15551234567']));
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', '+15551234567')).toBeUndefined();
  });

  it('upserts a re-added recipient: 201 again, reason and updated_at refreshed, still one entry', async () => {
    const first = await add({ channel: 'email', recipient: 'a@example.com', reason: 'first' });

    const second = await add({ channel: 'email', recipient: 'A@EXAMPLE.COM', reason: 'second' });
    const listed = await list();

    expect(second.status).toBe(201);
    expect(second.body.reason).toBe('second');
    expect(second.body.updated_at > first.body.updated_at).toBe(true);
    expect(listed.body.suppressions).toEqual([second.body]);
  });

  it('turns an unsubscribed entry back into suppressed when added by hand', async () => {
    await importEntries({ entries: [{ email: 'u@example.com', state: 'unsubscribed' }] });

    const res = await add({ channel: 'email', recipient: 'u@example.com' });

    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ state: 'suppressed', reason: 'manual' });
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'u@example.com')).toMatchObject({ state: 'suppressed' });
  });

  it.each([
    [{ channel: 'fax', recipient: 'a@example.com' }, 'body.channel'],
    [{ recipient: 'a@example.com' }, 'body.channel'],
    [{ channel: 'email' }, 'body.recipient'],
    [{ channel: 'email', recipient: '   ' }, 'body.recipient'],
    [{ channel: 'email', recipient: 'not-an-address' }, 'body.recipient'],
    [{ channel: 'email', recipient: 'a@localhost' }, 'body.recipient'],
    [{ channel: 'email', recipient: 'a@example.com', reason: '' }, 'body.reason'],
    [{ channel: 'email', recipient: 'a@example.com', colour: 'red' }, 'body'],
    [undefined, 'body'],
  ])('answers 400 invalid_request for %j naming %s and stores nothing', async (body, field) => {
    const res = await add(body);

    expectInvalid(res, field);
    expect((await list()).body.suppressions).toEqual([]);
  });
});

describe('GET /v1/suppressions', () => {
  it('answers an empty list with next_cursor null', async () => {
    const res = await list();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ suppressions: [], next_cursor: null });
  });

  it('lists the most recently changed first, so a re-added recipient moves to the top', async () => {
    await add({ channel: 'email', recipient: 'old@example.com' });
    await add({ channel: 'sms', recipient: '+15550000001' });
    await add({ channel: 'email', recipient: 'new@example.com' });
    await add({ channel: 'email', recipient: 'old@example.com', reason: 'again' });

    const res = await list();

    expect(res.status).toBe(200);
    expect(recipients(res.body)).toEqual(['old@example.com', 'new@example.com', '+15550000001']);
    expect(res.body.suppressions[0]).toMatchObject({ channel: 'email', state: 'suppressed', reason: 'again' });
  });

  it('filters by channel', async () => {
    await add({ channel: 'email', recipient: 'a@example.com' });
    await add({ channel: 'sms', recipient: '+15550000001' });
    await add({ channel: 'push', recipient: 'device-token-1' });

    const sms = await list({ channel: 'sms' });
    const voice = await list({ channel: 'voice' });

    expect(sms.body.suppressions).toEqual([expect.objectContaining({ channel: 'sms', recipient: '+15550000001' })]);
    expect(voice.body).toEqual({ suppressions: [], next_cursor: null });
  });

  it('walks a filtered list exactly once with limit and cursor, newest first', async () => {
    const emails: string[] = [];
    for (let i = 0; i < 5; i++) {
      emails.push(`user${i}@example.com`);
      await add({ channel: 'email', recipient: `user${i}@example.com` });
      await add({ channel: 'sms', recipient: `+1555000000${i}` });
    }

    const seen: string[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 10; page++) {
      const res = await list({ channel: 'email', limit: '2', ...(cursor ? { cursor } : {}) });
      expect(res.status).toBe(200);
      expect(res.body.suppressions.length).toBeLessThanOrEqual(2);
      seen.push(...recipients(res.body));
      cursor = res.body.next_cursor ?? undefined;
      if (!cursor) break;
    }

    expect(seen).toEqual([...emails].reverse());
  });

  it('refuses a cursor replayed with another channel filter or by another account', async () => {
    for (let i = 0; i < 3; i++) await add({ channel: 'email', recipient: `u${i}@example.com` });
    const first = await list({ channel: 'email', limit: '1' });
    const other = await createAccount(bed.c, {});

    const otherFilter = await list({ channel: 'sms', limit: '1', cursor: first.body.next_cursor });
    const noFilter = await list({ limit: '1', cursor: first.body.next_cursor });
    const foreign = await list({ channel: 'email', limit: '1', cursor: first.body.next_cursor }, other.admin_key);

    expect(first.body.next_cursor).toEqual(expect.any(String));
    for (const res of [otherFilter, noFilter, foreign]) expectInvalid(res, 'cursor');
  });

  it('answers 400 naming query.channel for an unknown channel', async () => {
    expectInvalid(await list({ channel: 'fax' }), 'query.channel');
  });

  it('never shows another account’s entries', async () => {
    const other = await createAccount(bed.c, {});
    await add({ channel: 'email', recipient: 'theirs@example.com' }, other.admin_key);
    await add({ channel: 'email', recipient: 'mine@example.com' });

    const mine = await list();
    const theirs = await list({}, other.admin_key);

    expect(recipients(mine.body)).toEqual(['mine@example.com']);
    expect(recipients(theirs.body)).toEqual(['theirs@example.com']);
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'theirs@example.com')).toBeUndefined();
  });
});

describe('DELETE /v1/suppressions', () => {
  it('removes the entry whatever the case of the address, so the recipient is no longer blocked', async () => {
    await add({ channel: 'email', recipient: 'gone@example.com' });
    await add({ channel: 'email', recipient: 'kept@example.com' });

    const res = await remove({ channel: 'email', recipient: ' Gone@Example.com ' });
    const listed = await list();

    expect(res.status).toBe(204);
    expect(res.body).toBeUndefined();
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', 'gone@example.com')).toBeUndefined();
    expect(recipients(listed.body)).toEqual(['kept@example.com']);
  });

  it('answers 404 not_found for an absent entry, a second delete and the wrong channel', async () => {
    await add({ channel: 'email', recipient: 'once@example.com' });
    await remove({ channel: 'email', recipient: 'once@example.com' });
    await add({ channel: 'sms', recipient: '+15550000001' });

    for (const query of [
      { channel: 'email', recipient: 'never@example.com' },
      { channel: 'email', recipient: 'once@example.com' },
      { channel: 'voice', recipient: '+15550000001' },
    ]) {
      const res = await remove(query);
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('not_found');
    }
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'sms', '+15550000001')).toBeDefined();
  });

  it('answers 404 for another account’s entry and leaves it in place', async () => {
    const other = await createAccount(bed.c, {});
    await add({ channel: 'email', recipient: 'theirs@example.com' }, other.admin_key);

    const res = await remove({ channel: 'email', recipient: 'theirs@example.com' });

    expect(res.status).toBe(404);
    expect(await findSuppression(bed.c.store, other.account_id, 'email', 'theirs@example.com')).toBeDefined();
    expect(recipients((await list({}, other.admin_key)).body)).toEqual(['theirs@example.com']);
  });

  it.each([
    [{ recipient: 'a@example.com' }, 'query.channel'],
    [{ channel: 'email' }, 'query.recipient'],
    [{ channel: 'email', recipient: '' }, 'query.recipient'],
    [{ channel: 'fax', recipient: 'a@example.com' }, 'query.channel'],
  ])('answers 400 for %j naming %s', async (query, field) => {
    expectInvalid(await remove(query), field);
  });
});

describe('POST /v1/suppressions/import', () => {
  it('normalizes, de-duplicates (last occurrence wins) and counts invalid and duplicate rows as skipped', async () => {
    const res = await importEntries({
      entries: [
        { email: 'One@Example.com', reason: 'first', state: 'unsubscribed' },
        { email: 'two@example.com' },
        { email: 'not an address' },
        { email: '' },
        { email: ' ONE@example.com ', reason: 'second' },
        { email: 'three@example.com', reason: '', state: 'unsubscribed' },
      ],
    });
    const listed = await list();

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 3, skipped: 3 });
    expect(await findSuppressed(bed.c.store, bed.account.account_id, 'email', ['one@example.com', 'TWO@example.com', 'three@example.com'])).toEqual(
      new Set(['one@example.com', 'two@example.com', 'three@example.com']),
    );
    const byRecipient = Object.fromEntries(listed.body.suppressions.map((s: { recipient: string }) => [s.recipient, s]));
    expect(Object.keys(byRecipient).sort()).toEqual(['one@example.com', 'three@example.com', 'two@example.com']);
    expect(byRecipient['one@example.com']).toMatchObject({ channel: 'email', reason: 'second', state: 'suppressed' });
    expect(byRecipient['two@example.com']).toMatchObject({ reason: 'import', state: 'suppressed' });
    expect(byRecipient['three@example.com']).toMatchObject({ reason: 'import', state: 'unsubscribed' });
  });

  it('is safe to repeat: the same counts and no duplicated entries', async () => {
    const body = { entries: [{ email: 'a@example.com' }, { email: 'b@example.com' }, { email: 'A@example.com' }, { email: 'bad' }] };

    const first = await importEntries(body);
    const second = await importEntries(body);
    const listed = await list();

    expect(first.body).toEqual({ imported: 2, skipped: 2 });
    expect(second.status).toBe(200);
    expect(second.body).toEqual(first.body);
    expect(recipients(listed.body).sort()).toEqual(['a@example.com', 'b@example.com']);
  });

  it('refreshes entries that were already suppressed by hand', async () => {
    await add({ channel: 'email', recipient: 'known@example.com', reason: 'by hand' });

    const res = await importEntries({ entries: [{ email: 'known@example.com', reason: 'from file' }] });
    const listed = await list();

    expect(res.body).toEqual({ imported: 1, skipped: 0 });
    expect(listed.body.suppressions).toEqual([expect.objectContaining({ recipient: 'known@example.com', reason: 'from file' })]);
  });

  it('imports into another channel when one is named', async () => {
    const res = await importEntries({ channel: 'sms', entries: [{ email: '+15550000001' }, { email: '  ' }] });

    expect(res.body).toEqual({ imported: 1, skipped: 1 });
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'sms', '+15550000001')).toMatchObject({ reason: 'import' });
    expect(await findSuppression(bed.c.store, bed.account.account_id, 'email', '+15550000001')).toBeUndefined();
  });

  it('answers {imported: 0, skipped: 0} for no entries', async () => {
    const res = await importEntries({ entries: [] });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 0, skipped: 0 });
  });

  it('imports thousands of addresses and blocks every one', async () => {
    const addresses = Array.from({ length: 2500 }, (_, i) => `bulk${i}@example.com`);

    const res = await importEntries({ entries: addresses.map((email) => ({ email: email.toUpperCase() })) });
    const blocked = await findSuppressed(bed.c.store, bed.account.account_id, 'email', addresses);

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 2500, skipped: 0 });
    expect(blocked.size).toBe(2500);
  });

  it('refuses more than 10000 entries with 422 invalid_request and writes nothing', async () => {
    const addresses = Array.from({ length: 10_001 }, (_, i) => `over${i}@example.com`);

    const res = await importEntries({ entries: addresses.map((email) => ({ email })) });

    expectInvalid(res, 'body.entries', 422);
    expect(res.body.error.status).toBe(422);
    expect((await list()).body.suppressions).toEqual([]);
    expect((await findSuppressed(bed.c.store, bed.account.account_id, 'email', addresses.slice(0, 100))).size).toBe(0);
  });

  it('accepts exactly 10000 entries', async () => {
    const res = await importEntries({ entries: Array.from({ length: 10_000 }, (_, i) => ({ email: i % 2 ? 'same@example.com' : 'bad' })) });

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ imported: 1, skipped: 9999 });
  });

  it.each([
    [{}, 'body.entries'],
    [{ entries: 'a@example.com' }, 'body.entries'],
    [{ entries: [{ email: 5 }] }, 'body.entries.0.email'],
    [{ entries: [{ address: 'a@example.com' }] }, 'body.entries.0.email'],
    [{ entries: [{ email: 'a@example.com', colour: 'red' }] }, 'body.entries.0'],
    [{ entries: [{ email: 'a@example.com', state: 'bounced' }] }, 'body.entries.0.state'],
    [{ channel: 'fax', entries: [] }, 'body.channel'],
    [{ entries: [], colour: 'red' }, 'body'],
    [[{ email: 'a@example.com' }], 'body'],
    [undefined, 'body'],
  ])('answers 400 invalid_request for %j naming %s and stores nothing', async (body, field) => {
    const res = await importEntries(body);

    expectInvalid(res, field);
    expect((await list()).body.suppressions).toEqual([]);
  });
});

describe('scopes', () => {
  it('lets a read key list but not add, remove or import', async () => {
    await add({ channel: 'email', recipient: 'listed@example.com' });
    const read = await keyWithScope('read');

    const listed = await list({}, read);
    const refused = [
      await add({ channel: 'email', recipient: 'new@example.com' }, read),
      await remove({ channel: 'email', recipient: 'listed@example.com' }, read),
      await importEntries({ entries: [{ email: 'imported@example.com' }] }, read),
    ];

    expect(listed.status).toBe(200);
    expect(recipients(listed.body)).toEqual(['listed@example.com']);
    for (const res of refused) {
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('forbidden');
    }
    expect(recipients((await list()).body)).toEqual(['listed@example.com']);
  });

  it('lets a send key list, add, remove and import', async () => {
    const send = await keyWithScope('send');

    const added = await add({ channel: 'email', recipient: 'a@example.com' }, send);
    const imported = await importEntries({ entries: [{ email: 'b@example.com' }] }, send);
    const removed = await remove({ channel: 'email', recipient: 'a@example.com' }, send);
    const listed = await list({}, send);

    expect(added.status).toBe(201);
    expect(imported.status).toBe(200);
    expect(removed.status).toBe(204);
    expect(listed.status).toBe(200);
    expect(recipients(listed.body)).toEqual(['b@example.com']);
  });
});
