// The Mail app over an account of 10,000 threads: search latency (GET /v1/mail/search, several
// kinds of query) beside one raw store Query of a posting list of the same size in the same run,
// the thread list's latency (plain and with q), export throughput (json and mbox pages walked by
// their cursors), and what the index costs: store calls and units per indexed message and per search.
//
// The mail is seeded below SMTP: each message is stored as the inbound worker stores it (its email
// item and inline content, InboundRepository.put) and filed by recordInboundMail, the worker's own
// call, which writes the thread and the search index. SMTP and parsing are the inbound benchmark's.
import { noteTarget } from '../lib/targets';
import { keyQueries, keys } from '../../shared/db/keys';
import { InboundRepository, type InboundEmailItem } from '../../shared/inbound-mail/receipt/repository';
import { threadIdOf } from '../../shared/inbound-mail/receipt/thread';
import { recordInboundMail } from '../../shared/inbound-mail/mailbox/record';
import type { Container } from '../../shared/runtime/container';
import type { Benchmark } from '../run';
import { PRICE, priceNote, totalUnits } from '../lib/cost';
import { patientGet } from '../lib/loopback';
import { fmt, fmtInt, median, percentile, sleep, units } from '../lib/measure';
import { newSender, startBenchRuntime, type BenchRuntime, type PortCall } from '../lib/runtime';
import { inLanes } from '../lib/seed';

const THREADS = Number(process.env.MAIL_BENCH_THREADS ?? 10_000);
/** One thread in REPLY_EVERY gets a second message (a reply). */
const REPLY_EVERY = 5;
const SEED_CONCURRENCY = 8;
/** Timed rounds of each query, after WARM_UP untimed ones: enough that p95 is not one GC pause. */
const ROUNDS = Number(process.env.MAIL_BENCH_ROUNDS ?? 60);
const WARM_UP = 5;
const LIST_ROUNDS = 24;
/** Requests start at least this far apart: the account's limit (10 a second) is never met, so no answer waits out a 429. */
const PACE_MS = 110;
const DOMAIN = 'mail.bench.test';
const BASE = Date.parse('2026-01-01T00:00:00.000Z');

/** A message's words: `common` in all, `tN` in one in ten, `wN` in one in a thousand, `rN` in one. */
function textOf(i: number): string {
  return `Hello, common update number ${i} about order t${i % 10} and item w${i % 1000}. Reference r${i}. Regards from the customer desk.`;
}

const timedGet = (b: BenchRuntime, path: string, token: string) => patientGet(b.rt.url, path, token);

let lastRequestAt = 0;
/** timedGet, started no sooner than PACE_MS after the one before. */
async function pacedGet(b: BenchRuntime, path: string, token: string) {
  const wait = lastRequestAt + PACE_MS - performance.now();
  if (wait > 0) await sleep(wait);
  lastRequestAt = performance.now();
  return timedGet(b, path, token);
}

/** One raw store Query of 50 postings of one list, the size of a page of results; its milliseconds. */
async function rawQuery(c: Container, accountId: string): Promise<number> {
  const t0 = performance.now();
  await c.store.query({ ...keyQueries.partition(keys.mailPostingPartition(accountId, 'common')), limit: 50, consistent: false });
  return performance.now() - t0;
}

const cells = (ms: readonly number[]): string => `${fmt(median(ms), 1)} / ${fmt(percentile(ms, 95), 1)}`;

interface Seeded {
  /** Messages stored in all. */
  total: number;
  /** The first messages, stored one at a time and counted. */
  probe: number;
  seedMs: number;
  /** The probe's calls that wrote the search index. */
  indexCalls: PortCall[];
  probeCalls: PortCall[];
}

type MailMessage = { i: number; reply: boolean };

/** Stores one message as the inbound worker does and files it with the worker's own call. */
async function storeMessage(c: Container, inbound: InboundRepository, accountId: string, { i, reply }: MailMessage): Promise<void> {
  const n = reply ? THREADS + i : i;
  const subject = `${reply ? 'Re: ' : ''}Order ${i} status`;
  const email: Omit<InboundEmailItem, 'pk' | 'sk' | 'entity'> = {
    id: c.ids.next('inb'),
    account_id: accountId,
    domain: DOMAIN,
    recipient: `desk${i % 4}@${DOMAIN}`,
    inbox_id: null,
    from: `customer${i % 500}@client${i % 20}.test`,
    to: [`desk${i % 4}@${DOMAIN}`],
    cc: [],
    subject,
    spf_verdict: 'PASS',
    dkim_verdict: 'PASS',
    dmarc_verdict: 'PASS',
    spam_verdict: 'PASS',
    virus_verdict: 'PASS',
    attachments: i % 10 === 3 ? [{ filename: 'order.pdf', content_type: 'application/pdf', size: 2048 }] : [],
    size_bytes: 600,
    received_at: new Date(BASE + n * 60_000).toISOString(),
    thread_id: threadIdOf({ accountId, rfcMessageId: `<order-${i}@client.test>`, inReplyTo: null, references: [], subject, participants: [] }),
    raw_key: `inbound/bench-${n}`,
  };
  const text = textOf(n);
  const item = await inbound.putOnce(email, { content: { text, html: null, headers: {}, rfc_message_id: `<order-${n}@client.test>` } });
  await recordInboundMail(c, item, text);
}

/** The mailbox: a few messages counted one at a time (what indexing costs), then the rest in lanes. */
async function seedMailbox(b: BenchRuntime, accountId: string, log: (line: string) => void): Promise<Seeded> {
  const inbound = new InboundRepository(b.c.store);
  const seedOne = (m: MailMessage) => storeMessage(b.c, inbound, accountId, m);
  const messages: MailMessage[] = [];
  for (let i = 0; i < THREADS; i++) messages.push({ i, reply: false });
  for (let i = 0; i < THREADS; i += REPLY_EVERY) messages.push({ i, reply: true });

  // What indexing one message costs: the calls of recordInboundMail for a few messages, counted.
  const probe = messages.splice(0, 20);
  b.count({ before: true });
  for (const m of probe) await seedOne(m);
  const probeCalls = b.take();
  b.uncount();
  const indexCalls = probeCalls.filter((call) => /MAILIDX|MAILDOC/.test(JSON.stringify(call.args[0]).slice(0, 4000)));

  const tSeed = performance.now();
  await inLanes(messages, SEED_CONCURRENCY, seedOne);
  const seedMs = performance.now() - tSeed;
  const total = messages.length + probe.length;
  log(`  seeded ${fmtInt(total)} messages in ${fmtInt(THREADS)} threads in ${fmt(seedMs / 1000, 1)} s`);
  return { total, probe: probe.length, seedMs, indexCalls, probeCalls };
}

interface Searched {
  rows: string[];
  ms: number[];
  /** Store calls of each search. */
  calls: number[];
  rru: number;
  queries: number;
  /** The raw store Query, timed after each timed search (so under the same load as the searches). */
  rawMs: number[];
}

/**
 * Search latency, one request at a time: WARM_UP untimed rounds of each query, then ROUNDS timed
 * rounds of all queries in turn (so a slow spell of the machine falls on every query alike), each
 * followed by one raw store Query; store calls counted.
 */
async function measureSearch(b: BenchRuntime, token: string, accountId: string): Promise<Searched> {
  const queries: Array<[string, string]> = [
    ['a word in 1 message', `r${Math.floor(THREADS / 2)}`],
    ['a word in 0.1 %', 'w42'],
    ['a word in 10 %', 't7'],
    ['a word in every message (first 50)', 'common'],
    ['two words, 10 % and 0.1 %', 't2 w42'],
    ['from: and has:attachment', `from:customer3@client3.test has:attachment`],
    ['a phrase', '"order t3 and item w3"'],
    ['after: alone (first 50)', `after:${new Date(BASE + THREADS * 30_000).toISOString().slice(0, 10)}`],
  ];
  const path = (q: string) => `/v1/mail/search?q=${encodeURIComponent(q)}`;
  for (let r = 0; r < WARM_UP; r++) for (const [, q] of queries) await pacedGet(b, path(q), token);
  const out: Searched = { rows: [], ms: [], calls: [], rru: 0, queries: queries.length, rawMs: [] };
  const ms = queries.map((): number[] => []);
  const hits = queries.map(() => 0);
  b.count();
  for (let r = 0; r < ROUNDS; r++) {
    for (const [i, [, q]] of queries.entries()) {
      b.take();
      const res = await pacedGet(b, path(q), token);
      const calls = b.take().filter((call) => call.by === 'api');
      out.calls.push(calls.length);
      out.rru += totalUnits(calls).rru;
      ms[i]!.push(res.ms);
      hits[i] = (JSON.parse(res.body.toString('utf8')) as { results: unknown[] }).results.length;
      out.rawMs.push(await rawQuery(b.c, accountId));
    }
  }
  b.uncount();
  for (const [i, [name, q]] of queries.entries()) {
    out.ms.push(...ms[i]!);
    out.rows.push(`| ${name} | \`${q}\` | ${hits[i]} | ${cells(ms[i]!)} ms |`);
  }
  return out;
}

/** The thread list, plain and with q. */
async function measureThreadList(b: BenchRuntime, token: string): Promise<{ listMs: number[]; listQMs: number[] }> {
  const listMs: number[] = [];
  const listQMs: number[] = [];
  for (let r = 0; r < LIST_ROUNDS; r++) {
    listMs.push((await pacedGet(b, '/v1/mail/threads?limit=50', token)).ms);
    listQMs.push((await pacedGet(b, `/v1/mail/threads?limit=50&q=${encodeURIComponent('t7')}`, token)).ms);
  }
  return { listMs, listQMs };
}

interface Walked {
  count: number;
  bytes: number;
  pages: number;
  ms: number;
}

/** The export's pages walked by their cursors, at most `maxPages`. */
async function walkExport(b: BenchRuntime, token: string, format: 'json' | 'mbox', maxPages: number): Promise<Walked> {
  let cursor: string | null = null;
  const out: Walked = { count: 0, bytes: 0, pages: 0, ms: 0 };
  do {
    const res = await timedGet(b, `/v1/mail/export?format=${format}&folder=inbox${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`, token);
    out.ms += res.ms;
    out.bytes += res.body.length;
    out.pages++;
    if (format === 'json') {
      const doc = JSON.parse(res.body.toString('utf8')) as { count: number; next_cursor: string | null };
      out.count += doc.count;
      cursor = doc.next_cursor;
    } else {
      out.count += res.body.toString('latin1').split(/^From /m).length - 1;
      cursor = res.headers.get('postbox-next-cursor');
    }
  } while (cursor && out.pages < maxPages);
  return out;
}

interface Measured {
  seeded: Seeded;
  search: Searched;
  listMs: number[];
  listQMs: number[];
  json: Walked;
  mbox: Walked;
}

function report({ seeded, search, listMs, listQMs, json, mbox }: Measured): string {
  const { rawMs } = search;
  const { total, seedMs, probe } = seeded;
  const perMessage = totalUnits(seeded.indexCalls);
  const recordUnits = totalUnits(seeded.probeCalls);
  const perSearchRru = search.rru / search.calls.length;
  const wru = perMessage.wru + perMessage.gsiWru;
  const writeDollarsPerMillion = wru * PRICE.wru;
  const readDollarsPerMillion = perSearchRru * PRICE.rru + PRICE.httpApi;
  const p95Ratio = percentile(search.ms, 95) / median(rawMs);
  const target = noteTarget({
    item: 4,
    what: `Mail search p95 ≤ 15× a store Query p50 at ${fmtInt(THREADS)} threads, quoted phrases included`,
    figure: `${fmt(p95Ratio, 1)}× (p95 ${fmt(percentile(search.ms, 95), 1)} ms, Query p50 ${fmt(median(rawMs), 1)} ms)`,
    met: p95Ratio <= 15,
  });
  return [
    '## Mail search and export',
    '',
    `Method: a local runtime in this process, one account holding ${fmtInt(THREADS)} threads and ${fmtInt(total)} inbound messages (one thread in ${REPLY_EVERY} has a reply), stored as the inbound worker stores them and filed by its own call, recordInboundMail, which writes the thread and the search index (${SEED_CONCURRENCY} at a time: ${fmt(seedMs / 1000, 1)} s, ${fmtInt((total * 1000) / seedMs)} messages/s). ` +
      `Each message has 20-odd words: \`common\` in all, \`tN\` in one in ten, \`wN\` in one in a thousand, \`rN\` in one. Requests are sent one at a time over HTTP with the key; answers of 429 from the account's rate limit are waited out and not timed (bench/benchmarks/mail.ts); they start ${PACE_MS} ms apart, so the limit is never met. ` +
      `${WARM_UP} untimed rounds of every query, then ${ROUNDS} timed rounds of all of them in turn, each search followed by one raw store Query (timed below, under the same load).`,
    '',
    '| Search | q | results | latency p50 / p95 |',
    '|---|---|---:|---:|',
    ...search.rows,
    `| **every search above** | | | **${cells(search.ms)} ms** |`,
    `| the store's own Query: 50 postings of one list, no HTTP (same run) | | 50 | ${cells(rawMs)} ms |`,
    `| GET /v1/mail/threads?limit=50 | | 50 | ${cells(listMs)} ms |`,
    `| GET /v1/mail/threads?limit=50&q=t7 | | | ${cells(listQMs)} ms |`,
    '',
    `**Search answers at p95 in ${fmt(percentile(search.ms, 95) / median(rawMs), 1)} times one raw store Query's p50** (issue 31 asks at most 15), at a median of ${fmt(median(search.ms) / median(rawMs), 1)} times, on this machine (the key check and rate limit, the query parse, the postings of each term, the search documents of the page's results, the HTTP answer). ` +
      `A search made ${fmt(median(search.calls), 0)} store calls at the median and ${Math.max(...search.calls)} at most, and read ${units(perSearchRru)} read units on average (bench/lib/cost.ts): ` +
      `about $${fmt(readDollarsPerMillion, 2)} per million searches with API Gateway (Lambda time aside).`,
    '',
    'Target (issue 31):',
    '',
    target,
    '',
    '| Export | messages | pages | bytes | time (requests only) | throughput |',
    '|---|---:|---:|---:|---:|---:|',
    `| format=json, the whole inbox by next_cursor | ${fmtInt(json.count)} | ${json.pages} | ${fmtInt(json.bytes)} | ${fmt(json.ms / 1000, 2)} s | **${fmtInt((json.count * 1000) / json.ms)} messages/s** |`,
    `| format=mbox, the first ${mbox.pages} pages by Postbox-Next-Cursor (raw objects absent here: each message composed) | ${fmtInt(mbox.count)} | ${mbox.pages} | ${fmtInt(mbox.bytes)} | ${fmt(mbox.ms / 1000, 2)} s | ${fmtInt((mbox.count * 1000) / mbox.ms)} messages/s |`,
    '',
    `Indexing one message (counted over ${probe} messages, the item each write replaces read first): ${fmt(seeded.indexCalls.length / probe, 1)} store calls and ${units(wru / probe)} write units for the index ` +
      `(its search document and one posting per distinct term, BatchWriteItem 25 at a time), of ${units((recordUnits.wru + recordUnits.gsiWru) / probe)} for all of recordInboundMail and the email item: ` +
      `$${fmt(writeDollarsPerMillion / probe, 2)} per million messages for the index at on-demand prices. ${priceNote}`,
  ].join('\n');
}

export const mail: Benchmark = {
  name: 'Mail search and export',
  async run({ log }) {
    const b = await startBenchRuntime();
    try {
      const { key: token, accountId } = await newSender(b.c, 'bench mail');
      const seeded = await seedMailbox(b, accountId, log);
      const search = await measureSearch(b, token, accountId);
      const { listMs, listQMs } = await measureThreadList(b, token);
      // Export: every page of the json export; the first pages of mbox.
      const json = await walkExport(b, token, 'json', Infinity);
      if (json.count !== seeded.total) throw new Error(`the json export held ${json.count} messages, not ${seeded.total}`);
      const mbox = await walkExport(b, token, 'mbox', 20);
      log(`  search p50/p95 ${cells(search.ms)} ms; raw query ${cells(search.rawMs)} ms; p95 / raw p50 ${fmt(percentile(search.ms, 95) / median(search.rawMs), 1)}; export ${fmtInt((json.count * 1000) / json.ms)} messages/s`);
      return report({ seeded, search, listMs, listQMs, json, mbox });
    } finally {
      await b.close();
    }
  },
};
