// A dynamic list over 100,000 contacts, walked page by page through GET /v1/lists/{id}/members on a
// local runtime: every page's time, answer size and store calls, against Lambda's limits (the API's
// 29 s, 6 MB answers), and the walk's contacts read per second against the store's own Query rate
// over the same items in the same run.
//
// The contacts are written straight into the store in the contacts area's item shape
// (shared/audiences/contacts/repository.ts), 25 a BatchWriteItem: the benchmark is of the walk, and an import of
// 100,000 rows is its own benchmark (imports.ts).
import type { Benchmark } from '../run';
import { keyQueries, keys } from '../../shared/db/keys';
import { CONTACT_WALK } from '../../shared/audiences/contacts/views';
import { ContactRepository, type ContactItem } from '../../shared/audiences/contacts/repository';
import { PRICE, priceNote, totalUnits } from '../lib/cost';
import { patientGet } from '../lib/loopback';
import { fmt, fmtInt, median, percentile } from '../lib/measure';
import { http, newSender, startBenchRuntime, type BenchRuntime, type PortCall } from '../lib/runtime';
import { benchContact, inLanes } from '../lib/seed';

const CONTACTS = 100_000;
/** One contact in ten is on the pro plan: the dynamic list's filter matches 10,000. */
const PRO_EVERY = 10;
const PAGE_LIMIT = 100;
const SEED_CONCURRENCY = 4;

/** The contacts, 25 a BatchWriteItem, SEED_CONCURRENCY at a time; the time it took. */
async function seedContacts(b: BenchRuntime, accountId: string, log: (line: string) => void): Promise<number> {
  const now = new Date().toISOString();
  const contact = (i: number) => benchContact(b.c, accountId, i, { plan: i % PRO_EVERY === 0 ? 'pro' : 'free', city: 'London', seats: i % 50 }, now);
  const batches = Array.from({ length: Math.ceil(CONTACTS / 25) }, (_, k) => k * 25);
  const tSeed = performance.now();
  const contacts = new ContactRepository(b.c.store);
  await inLanes(batches, SEED_CONCURRENCY, (from) => contacts.putNewContacts(Array.from({ length: Math.min(CONTACTS, from + 25) - from }, (_, j) => contact(from + j))));
  const seedMs = performance.now() - tSeed;
  log(`  seeded ${fmtInt(CONTACTS)} contacts in ${fmt(seedMs / 1000, 1)} s`);
  return seedMs;
}

interface Page {
  ms: number;
  bytes: number;
  members: number;
  storeCalls: number;
  itemsRead: number;
}

interface Walk {
  pages: Page[];
  /** Member ids found. */
  seen: Set<string>;
  calls: PortCall[];
  /** Answers of 429 waited out. */
  limited: number;
}

/** The list's members page by page, following next_cursor; the API's store calls counted. */
async function walkMembers(b: BenchRuntime, token: string, listId: string): Promise<Walk> {
  const walk: Walk = { pages: [], seen: new Set(), calls: [], limited: 0 };
  // The key's rate limit: a client waits as told and asks again; the wait is not the walk's.
  const onLimited = (): void => void (walk.limited++, b.take());
  b.count();
  let cursor: string | null = null;
  do {
    const path: string = `/v1/lists/${listId}/members?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
    const res = await patientGet(b.rt.url, path, token, onLimited);
    const body = JSON.parse(res.body.toString('utf8')) as { contacts: Array<{ id: string }>; next_cursor: string | null };
    for (const c of body.contacts) walk.seen.add(c.id);
    const calls = b.take().filter((c) => c.by === 'api');
    walk.calls.push(...calls);
    const queries = calls.filter((c) => c.op === 'query');
    const itemsRead = queries.reduce((a, c) => a + ((c.result as { items?: unknown[] } | undefined)?.items?.length ?? 0), 0);
    walk.pages.push({ ms: res.ms, bytes: res.body.length, members: body.contacts.length, storeCalls: calls.length, itemsRead });
    cursor = body.next_cursor;
  } while (cursor);
  b.uncount();
  return walk;
}

/**
 * The store's own Query rate over the same items, page by page as the walk reads them; after the
 * walk, so both read a warm store.
 */
async function rawQueryWalk(b: BenchRuntime, accountId: string): Promise<{ rawItems: number; rawMs: number }> {
  const tRaw = performance.now();
  let rawItems = 0;
  let startKey: Record<string, unknown> | undefined;
  do {
    const page = await b.c.store.query<ContactItem>({ ...keyQueries.accountItems(accountId, keys.contactPrefix), limit: CONTACT_WALK.pageSize, startKey });
    rawItems += page.items.length;
    startKey = page.lastKey;
  } while (startKey);
  const rawMs = performance.now() - tRaw;
  if (rawItems !== CONTACTS) throw new Error(`the raw query read ${rawItems} contacts, not ${CONTACTS}`);
  return { rawItems, rawMs };
}

function report({ pages, seen, calls, limited }: Walk, raw: { rawItems: number; rawMs: number }, seedMs: number, log: (line: string) => void): string {
  const expected = CONTACTS / PRO_EVERY;
  const walkMs = pages.reduce((a, p) => a + p.ms, 0);
  const read = pages.reduce((a, p) => a + p.itemsRead, 0);
  const ms = pages.map((p) => p.ms);
  const maxBytes = Math.max(...pages.map((p) => p.bytes));
  const maxRead = Math.max(...pages.map((p) => p.itemsRead));
  const maxCalls = Math.max(...pages.map((p) => p.storeCalls));
  const walkRate = (read * 1000) / walkMs;
  const rawRate = (raw.rawItems * 1000) / raw.rawMs;
  const budget = CONTACT_WALK.pageSize * CONTACT_WALK.pages;
  const u = totalUnits(calls);
  const dollars = (u.rru * PRICE.rru + u.wru * PRICE.wru) / 1e6 + (pages.length * PRICE.httpApi) / 1e6;
  log(`  walked ${fmtInt(read)} contacts in ${pages.length} pages, ${fmt(walkMs / 1000, 2)} s: ${fmtInt(walkRate)} contacts/s; raw query ${fmtInt(rawRate)} items/s`);
  return [
    '## Dynamic list walk',
    '',
    `Method: a local runtime in this process, one account holding ${fmtInt(CONTACTS)} contacts (written straight into the store in the contacts area's item shape, ${SEED_CONCURRENCY} BatchWriteItem calls of 25 at a time: ${fmt(seedMs / 1000, 1)} s), ` +
      `and a dynamic list whose filter (\`data.plan eq "pro"\`) matches one in ${PRO_EVERY}. Its members are read with GET /v1/lists/{id}/members?limit=${PAGE_LIMIT}, following next_cursor until it is null, ` +
      `one request at a time (bench/benchmarks/lists.ts). A page reads at most ${fmtInt(budget)} contacts (${CONTACT_WALK.pages} Query pages of ${CONTACT_WALK.pageSize}, shared/audiences/contacts/views.ts CONTACT_WALK) ` +
      'and answers the members among them, so a page may be short and still have a next_cursor; the work per request is bounded whatever the list\'s size.',
    '',
    '| Measure | Value | Lambda limit |',
    '|---|---:|---:|',
    `| pages to walk ${fmtInt(CONTACTS)} contacts | ${pages.length} | |`,
    `| members found (each once) | ${fmtInt(seen.size)} of ${fmtInt(expected)} | |`,
    `| page time, median / p95 / max | ${fmt(median(ms), 0)} / ${fmt(percentile(ms, 95), 0)} / ${fmt(Math.max(...ms), 0)} ms | 29,000 ms (API Gateway) |`,
    `| largest answer | ${fmtInt(maxBytes)} bytes | 6,291,456 bytes |`,
    `| contacts read by one page, at most | ${fmtInt(maxRead)} | |`,
    `| contacts read by the whole walk | ${fmtInt(read)} (a page that fills its ${PAGE_LIMIT} members mid-Query ends there, and the next one reads the rest of that Query page again) | |`,
    `| store calls by one page, at most (the key lookup included) | ${maxCalls} | |`,
    `| the whole walk (its requests' time; ${limited} answers of 429 from the key's rate limit waited out and left out) | ${fmt(walkMs / 1000, 2)} s, **${fmtInt(walkRate)} contacts read/s** | |`,
    `| the store's own Query over the same contacts, ${CONTACT_WALK.pageSize} a page, one at a time (same run) | ${fmt(raw.rawMs / 1000, 2)} s, ${fmtInt(rawRate)} items/s | |`,
    '',
    `**The walk reads contacts at ${fmt((100 * walkRate) / rawRate, 0)} % of the store's own Query rate** on this machine; the rest is the key check, the cursor, the filter and the HTTP answer of each page. ` +
      `In AWS the whole walk is ${pages.length} API requests and ${fmtInt(u.rru)} DynamoDB read units (${fmtInt(u.requests)} store requests; bench/lib/cost.ts prices what each call read), about $${fmt(dollars, 4)} with API Gateway, ` +
      `whatever the list's share of the contacts: a dynamic list costs its account's contact count per full read. ${priceNote}`,
  ].join('\n');
}

export const lists: Benchmark = {
  name: 'Dynamic list walk',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { key: token, accountId } = await newSender(b.c, 'bench lists');
      const seedMs = await seedContacts(b, accountId, log);
      const filter = { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] };
      const list = await http(b.rt, 'POST', '/v1/lists', token, { name: 'Pro plan', type: 'dynamic', filter });
      if (list.status !== 201) throw new Error(`POST /v1/lists answered ${list.status}: ${JSON.stringify(list.json)}`);
      const walk = await walkMembers(b, token, (list.json as { id: string }).id);
      const raw = await rawQueryWalk(b, accountId);
      const expected = CONTACTS / PRO_EVERY;
      if (walk.seen.size !== expected) throw new Error(`the walk found ${walk.seen.size} members, not ${expected}`);
      return report(walk, raw, seedMs, log);
    } finally {
      await b.close();
    }
  },
};
