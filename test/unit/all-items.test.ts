// The one page walker against the real store: a collection larger than a page is walked whole, in
// the order asked for, and a per-page consumer sees each page once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { allItems, eachPage } from '../../shared/db/all-items';
import { keyQueries } from '../../shared/db/keys';
import { startTestStore, type TestStore } from '../support/store';

let db: TestStore;
const partition = 'WALK#one';
const ITEMS = 25;

beforeAll(async () => {
  db = await startTestStore();
  for (let i = 0; i < ITEMS; i++) await db.store.put({ pk: partition, sk: `ITEM#${String(i).padStart(2, '0')}`, entity: 'walk_item', n: i });
});
afterAll(async () => db.close());

describe('the page walker', () => {
  it('walks every page of a query once, in its page size', async () => {
    const pages: number[][] = [];
    for await (const items of eachPage<{ n: number }>(db.store, { ...keyQueries.partition(partition), ascending: true, limit: 10 })) pages.push(items.map((i) => i.n));

    expect(pages.map((p) => p.length)).toEqual([10, 10, 5]);
    expect(pages.flat()).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
  });

  it('reads a collection whole in key order, or newest first when asked', async () => {
    const ascending = await allItems<{ n: number }>(db.store, keyQueries.partition(partition));
    const descending = await allItems<{ n: number }>(db.store, { ...keyQueries.partition(partition), ascending: false });

    expect(ascending.map((i) => i.n)).toEqual(Array.from({ length: ITEMS }, (_, i) => i));
    expect(descending.map((i) => i.n)).toEqual(Array.from({ length: ITEMS }, (_, i) => ITEMS - 1 - i));
  });

  it('yields one empty page for an empty partition', async () => {
    const pages: unknown[][] = [];
    for await (const items of eachPage(db.store, keyQueries.partition('WALK#none'))) pages.push(items);
    expect(pages).toEqual([[]]);
  });
});
