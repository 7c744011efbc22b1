// A dynamic list over 100,000 contacts, walked page by page through GET /v1/lists/{id}/members on a
// local runtime: every page's time, answer size and store calls, against Lambda's limits (the API's
// 29 s, 6 MB answers), and the walk's contacts read per second against the store's own Query rate
// over the same items in the same run.
//
// The contacts are written straight into the store in the contacts area's item shape
// (shared/contacts/repository.ts), 25 a BatchWriteItem: the benchmark is of the walk, and an import of
// 100,000 rows is its own benchmark (imports.ts).
import type { Benchmark } from '../run';
import { keyQueries, keys } from '../../shared/db/keys';
import { CONTACT_WALK } from '../../shared/contacts/views';
import type { ContactItem } from '../../shared/contacts/repository';
import { PRICE, priceNote, totalUnits } from '../lib/cost';
import type { PortCall } from '../lib/runtime';
import { fmt, fmtInt, median, percentile, sleep } from '../lib/measure';
import { http, newSender, startBenchRuntime } from '../lib/runtime';

const CONTACTS = 100_000;
/** One contact in ten is on the pro plan: the dynamic list's filter matches 10,000. */
const PRO_EVERY = 10;
const PAGE_LIMIT = 100;
const SEED_CONCURRENCY = 4;

export const lists: Benchmark = {
  name: 'Dynamic list walk',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { key: token, accountId } = await newSender(b.c, 'bench lists');
      const now = new Date().toISOString();
      const contact = (i: number): ContactItem => {
        const id = b.c.ids.next('ctc');
        return {
          ...keys.contact(accountId, id),
          entity: 'contact',
          id,
          account_id: accountId,
          email: `reader${i}@example.com`,
          first_name: 'Ada',
          last_name: 'Lovelace',
          data: { plan: i % PRO_EVERY === 0 ? 'pro' : 'free', city: 'London', seats: i % 50 },
          unsubscribed: false,
          created_at: now,
          updated_at: now,
        };
      };

      // The store's raw batch-write rate, while seeding.
      const tSeed = performance.now();
      let next = 0;
      await Promise.all(
        Array.from({ length: SEED_CONCURRENCY }, async () => {
          while (next < CONTACTS) {
            const from = next;
            next = Math.min(CONTACTS, next + 25);
            await b.c.store.batchPut(Array.from({ length: next - from }, (_, j) => contact(from + j)));
          }
        }),
      );
      const seedMs = performance.now() - tSeed;
      log(`  seeded ${fmtInt(CONTACTS)} contacts in ${fmt(seedMs / 1000, 1)} s`);

      const filter = { match: 'all', conditions: [{ field: 'data.plan', op: 'eq', value: 'pro' }] };
      const list = await http(b.rt, 'POST', '/v1/lists', token, { name: 'Pro plan', type: 'dynamic', filter });
      if (list.status !== 201) throw new Error(`POST /v1/lists answered ${list.status}: ${JSON.stringify(list.json)}`);
      const listId = (list.json as { id: string }).id;

      b.count();
      const pages: Array<{ ms: number; bytes: number; members: number; storeCalls: number; itemsRead: number }> = [];
      const seen = new Set<string>();
      const walkCalls: PortCall[] = [];
      let limited = 0;
      let cursor: string | null = null;
      do {
        const path: string = `/v1/lists/${listId}/members?limit=${PAGE_LIMIT}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const t0 = performance.now();
        const res = await fetch(`${b.rt.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
        const text = await res.text();
        const ms = performance.now() - t0;
        if (res.status === 429) {
          // The key's rate limit: a client waits as told and asks again; the wait is not the walk's.
          limited++;
          b.take();
          await sleep(Number(res.headers.get('retry-after') ?? '1') * 1000);
          continue;
        }
        if (res.status !== 200) throw new Error(`GET ${path} answered ${res.status}: ${text}`);
        const body = JSON.parse(text) as { contacts: Array<{ id: string }>; next_cursor: string | null };
        for (const c of body.contacts) seen.add(c.id);
        const calls = b.take().filter((c) => c.by === 'api');
        walkCalls.push(...calls);
        const queries = calls.filter((c) => c.op === 'query');
        const itemsRead = queries.reduce((a, c) => a + ((c.result as { items?: unknown[] } | undefined)?.items?.length ?? 0), 0);
        pages.push({ ms, bytes: Buffer.byteLength(text), members: body.contacts.length, storeCalls: calls.length, itemsRead });
        cursor = body.next_cursor;
      } while (cursor);
      const walkMs = pages.reduce((a, p) => a + p.ms, 0);
      b.uncount();

      // The store's own Query rate over the same items, page by page as the walk reads them; after the
      // walk, so both read a warm store.
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

      const expected = CONTACTS / PRO_EVERY;
      if (seen.size !== expected) throw new Error(`the walk found ${seen.size} members, not ${expected}`);
      const read = pages.reduce((a, p) => a + p.itemsRead, 0);
      const ms = pages.map((p) => p.ms);
      const maxBytes = Math.max(...pages.map((p) => p.bytes));
      const maxRead = Math.max(...pages.map((p) => p.itemsRead));
      const maxCalls = Math.max(...pages.map((p) => p.storeCalls));
      const walkRate = (read * 1000) / walkMs;
      const rawRate = (rawItems * 1000) / rawMs;
      const budget = CONTACT_WALK.pageSize * CONTACT_WALK.pages;
      const u = totalUnits(walkCalls);
      const dollars = (u.rru * PRICE.rru + u.wru * PRICE.wru) / 1e6 + (pages.length * PRICE.httpApi) / 1e6;
      log(`  walked ${fmtInt(read)} contacts in ${pages.length} pages, ${fmt(walkMs / 1000, 2)} s: ${fmtInt(walkRate)} contacts/s; raw query ${fmtInt(rawRate)} items/s`);

      return [
        '## Dynamic list walk',
        '',
        `Method: a local runtime in this process, one account holding ${fmtInt(CONTACTS)} contacts (written straight into the store in the contacts area's item shape, ${SEED_CONCURRENCY} BatchWriteItem calls of 25 at a time: ${fmt(seedMs / 1000, 1)} s), ` +
          `and a dynamic list whose filter (\`data.plan eq "pro"\`) matches one in ${PRO_EVERY}. Its members are read with GET /v1/lists/{id}/members?limit=${PAGE_LIMIT}, following next_cursor until it is null, ` +
          `one request at a time (bench/benchmarks/lists.ts). A page reads at most ${fmtInt(budget)} contacts (${CONTACT_WALK.pages} Query pages of ${CONTACT_WALK.pageSize}, shared/contacts/views.ts CONTACT_WALK) ` +
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
        `| the store's own Query over the same contacts, ${CONTACT_WALK.pageSize} a page, one at a time (same run) | ${fmt(rawMs / 1000, 2)} s, ${fmtInt(rawRate)} items/s | |`,
        '',
        `**The walk reads contacts at ${fmt((100 * walkRate) / rawRate, 0)} % of the store's own Query rate** on this machine; the rest is the key check, the cursor, the filter and the HTTP answer of each page. ` +
          `In AWS the whole walk is ${pages.length} API requests and ${fmtInt(u.rru)} DynamoDB read units (${fmtInt(u.requests)} store requests; bench/lib/cost.ts prices what each call read), about $${fmt(dollars, 4)} with API Gateway, ` +
          `whatever the list's share of the contacts: a dynamic list costs its account's contact count per full read. ${priceNote}`,
      ].join('\n');
    } finally {
      await b.close();
    }
  },
};
