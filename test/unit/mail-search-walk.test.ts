// The search walk (shared/inbound-mail/mailbox/search-walk.ts) against a plain intersection of the
// same postings in a real store: every query, range, start and budget finds exactly the postings in
// all of its lists, newest first, each once; resumed walks lose and repeat nothing; and a rare term
// beside common ones is decided by point reads, not by walking the common lists.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import type { Store } from '../../shared/db/store';
import { MailIndexRepository, type MailPostingItem } from '../../shared/inbound-mail/mailbox/index-repository';
import { Walk, type WalkPosition } from '../../shared/inbound-mail/mailbox/search-walk';
import { startTestStore, type TestStore } from '../support/store';

const ACCOUNT = 'acc_walk';
const BASE = Date.parse('2026-01-01T00:00:00.000Z');
/** Each term and the share of messages that have it. */
const SHARES: Record<string, number> = { all: 1, most: 0.9, half: 0.5, tenth: 0.1, rare: 0.02, rarest: 0.005 };
const MESSAGES = 600;

let ts: TestStore;
const lists = new Map<string, string[]>();

/** A deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

beforeAll(async () => {
  ts = await startTestStore();
  const next = random(7);
  const items: MailPostingItem[] = [];
  for (let i = 0; i < MESSAGES; i++) {
    // Some messages share an instant: the id breaks the tie.
    const at = new Date(BASE + Math.floor(i / 3) * 60_000).toISOString();
    const id = `inb_${String(i).padStart(6, '0')}`;
    for (const [term, share] of Object.entries(SHARES)) {
      if (next() >= share) continue;
      const key = keys.mailPosting(ACCOUNT, term, at, 'inbound', id);
      items.push({ ...key, entity: 'mail_posting', thread_id: `thr_${i}` });
      lists.set(term, [...(lists.get(term) ?? []), key.sk]);
    }
  }
  await ts.store.batchPut(items);
}, 60_000);

afterAll(async () => {
  await ts?.close();
});

/** What the walk must find: the sort keys in every list, in range and below the start, newest first. */
function expected(terms: string[], range: { after?: string; before?: string }, start?: WalkPosition): string[] {
  const [first = [], ...rest] = terms.map((t) => lists.get(t) ?? []);
  return first
    .filter((sk) => rest.every((l) => l.includes(sk)))
    .filter((sk) => (range.after === undefined || sk >= range.after) && (range.before === undefined || sk < range.before))
    .filter((sk) => !start || sk < start.sk || (start.inclusive && sk === start.sk))
    .sort()
    .reverse();
}

/** A store that counts its calls. */
function counting(store: Store): { store: Store; calls: () => number } {
  let calls = 0;
  const wrapped = Object.create(store) as Store;
  wrapped.query = (...args) => (calls++, store.query(...args));
  wrapped.batchGet = (...args) => (calls++, store.batchGet(...args));
  return { store: wrapped, calls: () => calls };
}

/** Every posting of a walk, taken `n` at a time; resumed from its position after each cut. */
async function walkAll(store: Store, terms: string[], range: { after?: string; before?: string }, n: number, budget?: number): Promise<string[]> {
  const found: string[] = [];
  let start: WalkPosition | undefined;
  for (let walks = 0; walks < 500; walks++) {
    const walk = new Walk(new MailIndexRepository(store), ACCOUNT, terms, range, start, budget);
    for (;;) {
      const { items, stop } = await walk.take(n);
      found.push(...items.map((p) => p.sk));
      if (stop === 'end') return found;
      if (stop === 'cut') break;
    }
    start = walk.position;
  }
  throw new Error('the walk never ended');
}

const day = (d: number): string => new Date(BASE + d * 3_600_000).toISOString();

describe('the search walk', () => {
  const queries = [['all'], ['rare'], ['most', 'rare'], ['half', 'tenth'], ['tenth', 'rare', 'most'], ['rarest', 'all', 'half'], ['half', 'most', 'all'], ['tenth', 'rarest']];
  const ranges = [{}, { after: day(1) }, { before: day(2) }, { after: day(1), before: day(2) }];

  it('finds exactly the postings in every list, newest first, for any query, range and page size', async () => {
    for (const terms of queries) {
      for (const range of ranges) {
        for (const n of [1, 7, 50]) {
          expect(await walkAll(ts.store, terms, range, n), `${terms.join(' ')} ${JSON.stringify(range)} by ${n}`).toEqual(expected(terms, range));
        }
      }
    }
  }, 120_000);

  it('loses and repeats nothing when cut by its budget and resumed from its position', async () => {
    for (const terms of queries) {
      for (const budget of [1, 2, 3]) {
        expect(await walkAll(ts.store, terms, {}, 10, budget), `${terms.join(' ')} budget ${budget}`).toEqual(expected(terms, {}));
      }
    }
  }, 120_000);

  it('starts below a position, at it when inclusive', async () => {
    const all = expected(['most', 'half'], {});
    const at = all[10]!;
    for (const inclusive of [true, false]) {
      const walk = new Walk(new MailIndexRepository(ts.store), ACCOUNT, ['most', 'half'], {}, { sk: at, inclusive });
      const { items } = await walk.take(5);
      expect(items.map((p) => p.sk)).toEqual(expected(['most', 'half'], {}, { sk: at, inclusive }).slice(0, 5));
    }
  });

  it('decides a rare term beside common ones in a few calls, whatever the common lists hold', async () => {
    const { store, calls } = counting(ts.store);
    const walk = new Walk(new MailIndexRepository(store), ACCOUNT, ['all', 'most', 'rarest', 'half'], {});
    const found: string[] = [];
    for (let stop: string | undefined; stop !== 'end'; ) {
      const taken = await walk.take(50);
      found.push(...taken.items.map((p) => p.sk));
      stop = taken.stop;
    }
    expect(found).toEqual(expected(['all', 'most', 'rarest', 'half'], {}));
    // The first page of each list, then one BatchGetItem of the rare term's candidates.
    expect(calls()).toBeLessThanOrEqual(5);
  });

  it('ends at once, reading nothing, when after: is later than before:', async () => {
    const { store, calls } = counting(ts.store);
    const walk = new Walk(new MailIndexRepository(store), ACCOUNT, ['all'], { after: day(2), before: day(1) });
    expect(await walk.take(10)).toEqual({ items: [], stop: 'end' });
    expect(calls()).toBe(0);
  });

  it('ends at once on a term with no postings', async () => {
    const walk = new Walk(new MailIndexRepository(ts.store), ACCOUNT, ['all', 'nowhere'], {});
    expect(await walk.take(10)).toEqual({ items: [], stop: 'end' });
  });
});
