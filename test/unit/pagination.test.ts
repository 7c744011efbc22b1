import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidRequestError } from '../../shared/errors';
import { decodeCursor, encodeCursor, parseLimit, queryPage } from '../../shared/pagination';
import { startTestStore, type TestStore } from '../support/store';

describe('parseLimit', () => {
  it.each([
    [undefined, 50],
    ['', 50],
    ['abc', 50],
    ['0', 50],
    ['-5', 50],
    ['2.5', 50],
    ['1', 1],
    ['100', 100],
    ['101', 100],
    ['99999999999999999999', 50],
    [' 7 ', 7],
  ])('turns %j into %i', (raw, expected) => {
    expect(parseLimit(raw)).toBe(expected);
  });
});

describe('cursors', () => {
  const secret = 'k1';
  const scope = { accountId: 'acct_a', collection: 'messages', filters: { status: 'sent' } };
  const key = { pk: 'ACCT#acct_a', sk: 'MSG#01', gsi2sk: 'msg_01jq0000000000000000000000' };

  it('round-trip the store key they were made from', () => {
    expect(decodeCursor(secret, scope, encodeCursor(secret, scope, key))).toEqual(key);
  });

  it('reveal nothing: no storage key, account id, list or filter name in the text or its base64 decoding', () => {
    const cursor = encodeCursor(secret, scope, key);
    const decoded = Buffer.from(cursor.split('.')[1] ?? '', 'base64url').toString('latin1');

    for (const text of [cursor, decoded]) {
      for (const secretPart of ['ACCT', 'acct_a', 'MSG#01', 'msg_01jq', 'messages', 'status']) expect(text).not.toContain(secretPart);
    }
    expect(cursor).toMatch(/^c2\.[\w-]+$/);
  });

  it('differ each time for the same position (random IV)', () => {
    expect(encodeCursor(secret, scope, key)).not.toBe(encodeCursor(secret, scope, key));
  });

  it('are refused after any one byte of the sealed part changes', () => {
    const cursor = encodeCursor(secret, scope, key);
    const sealed = Buffer.from(cursor.slice(3), 'base64url');
    for (let i = 0; i < sealed.length; i++) {
      const flipped = Buffer.from(sealed);
      flipped[i] = (flipped[i] as number) ^ 0x01;
      expect(() => decodeCursor(secret, scope, `c2.${flipped.toString('base64url')}`), `byte ${i}`).toThrow(InvalidRequestError);
    }
  });

  it.each([
    ['sealed with another secret', () => encodeCursor('k2', scope, key), scope],
    ['from another account', () => encodeCursor(secret, { ...scope, accountId: 'acct_b' }, key), scope],
    ['from another list', () => encodeCursor(secret, { ...scope, collection: 'keys' }, key), scope],
    ['replayed with other filters', () => encodeCursor(secret, scope, key), { ...scope, filters: { status: 'bounced' } }],
    ['with a character added', () => `${encodeCursor(secret, scope, key)}A`, scope],
    ['with another version', () => encodeCursor(secret, scope, key).replace(/^c2/, 'c1'), scope],
    ['cut short', () => encodeCursor(secret, scope, key).slice(0, 20), scope],
    ['without its version', () => encodeCursor(secret, scope, key).split('.')[1] as string, scope],
    ['of the old signed kind', () => `${Buffer.from(JSON.stringify({ v: 1, a: 'acct_a', c: 'messages', f: '', k: key })).toString('base64url')}.sig`, scope],
    ['that is garbage', () => '%%%', scope],
    ['that is empty', () => '', scope],
  ])('are refused when %s', (_label, make, readScope) => {
    expect(() => decodeCursor(secret, readScope, make())).toThrow(InvalidRequestError);
  });

  it('ignore empty filters when binding, so omitted and blank filters are the same walk', () => {
    const cursor = encodeCursor(secret, { ...scope, filters: { status: undefined } }, key);
    expect(decodeCursor(secret, { ...scope, filters: { status: '' } }, cursor)).toEqual(key);
  });
});

describe('queryPage', () => {
  let t: TestStore;
  beforeAll(async () => {
    t = await startTestStore();
    // Three rows share a created_at; the id part of the sort key breaks the tie.
    const rows = ['2026-01-01T00:00:00.000Z#a', '2026-01-01T00:00:01.000Z#a', '2026-01-01T00:00:01.000Z#b', '2026-01-01T00:00:01.000Z#c', '2026-01-01T00:00:02.000Z#a'];
    await t.store.batchPut(rows.map((sk) => ({ pk: 'P', sk, kind: sk.endsWith('b') ? 'odd' : 'even' })));
  });
  afterAll(async () => t.close());

  const base = { keyCondition: 'pk = :pk', values: { ':pk': 'P' } as Record<string, unknown> };
  const page = (limit: number, cursor?: string) => ({ secret: 's', scope: { accountId: 'a', collection: 'rows' }, limit, cursor });

  it('returns newest first with the id as tie-breaker and a cursor only while rows remain', async () => {
    const first = await queryPage(t.store, base, page(2));
    const second = await queryPage(t.store, base, page(2, first.nextCursor ?? undefined));
    const third = await queryPage(t.store, base, page(2, second.nextCursor ?? undefined));

    expect([...first.items, ...second.items, ...third.items].map((i) => i.sk)).toEqual([
      '2026-01-01T00:00:02.000Z#a',
      '2026-01-01T00:00:01.000Z#c',
      '2026-01-01T00:00:01.000Z#b',
      '2026-01-01T00:00:01.000Z#a',
      '2026-01-01T00:00:00.000Z#a',
    ]);
    expect(third.nextCursor).toBeNull();
  });

  it('gives next_cursor null when the last page is exactly full', async () => {
    const all = await queryPage(t.store, base, page(5));
    expect(all.items).toHaveLength(5);
    expect(all.nextCursor).toBeNull();
  });

  it('fills pages through a filter and returns [] with null for nothing', async () => {
    const filtered = await queryPage(t.store, { ...base, filter: 'kind = :k', values: { ...base.values, ':k': 'even' } }, page(3));
    const none = await queryPage(t.store, { ...base, filter: 'kind = :k', values: { ...base.values, ':k': 'none' } }, page(3));

    expect(filtered.items.map((i) => i.kind)).toEqual(['even', 'even', 'even']);
    expect(filtered.nextCursor).not.toBeNull();
    expect(none).toEqual({ items: [], nextCursor: null });
  });
});
