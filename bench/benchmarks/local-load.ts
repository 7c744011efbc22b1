// The local runtime as `npm start` runs it (its own process), under an open-loop load: 160
// requests/s offered by 20 accounts, reads and then single sends, whatever the answers take. What a
// client sees (latency, 503 sheds, 429s, timeouts), when an accepted send shows `delivered`, the
// runtime's peak memory, and the store's own GetItem latency measured in the same run. Then, on the
// quiet runtime, a 1000-item batch against 1000 sequential PutItems to its store, and the 1000
// webhooks of that batch's simulated deliveries at a loopback receiver. Each target of issue 11
// point 3 is stated with whether this run met it. Last, on a fresh runtime, lone reads while a
// broadcast and a contact import run (issue 31, item 2; loneReadsUnderWork).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_TABLE } from '../../shared/runtime/local/runtime';
import type { Benchmark } from '../run';
import type { LoadTask } from '../lib/load-worker';
import { fmt, fmtInt, LoadWorker, percentile, sleep } from '../lib/measure';

const S = { accounts: 20, ratePerSecond: 160, readMs: 15_000, sendMs: 10_000, timeoutMs: 10_000, deliveredSample: 200, storeMs: 3_000, batchItems: 1000, putItemBytes: 640, webhookWaitMs: 60_000 } as const;

interface Answer {
  status: number | 'timeout' | 'error';
  ms: number;
  body: string;
}

const agent = new Agent({ keepAlive: true, maxSockets: 512 });

function call(base: string, method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  const text = body === undefined ? undefined : JSON.stringify(body);
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(new URL(path, base), { method, agent, timeout: S.timeoutMs, headers: { authorization: `Bearer ${token}`, ...(text ? { 'content-type': 'application/json' } : {}) } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', () => resolve({ status: 'error', ms: performance.now() - t0, body: '' }));
    });
    req.on('timeout', () => {
      req.destroy();
      resolve({ status: 'timeout', ms: performance.now() - t0, body: '' });
    });
    req.on('error', () => resolve({ status: 'error', ms: performance.now() - t0, body: '' }));
    req.end(text);
  });
}

/** Sends `make(i)` at `rate` per second for `ms`, never waiting for answers (open loop). */
async function openLoop(rate: number, ms: number, make: (i: number) => Promise<Answer>): Promise<Answer[]> {
  const pending: Array<Promise<Answer>> = [];
  const t0 = performance.now();
  for (let i = 0; i < (rate * ms) / 1000; i++) {
    const due = t0 + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 1) await sleep(wait);
    pending.push(make(i));
  }
  return Promise.all(pending);
}

/** A call retried while the runtime sheds or limits it (before the measured phases). */
async function admitted(base: string, method: string, path: string, token: string, body?: unknown): Promise<Answer> {
  for (let attempt = 0; ; attempt++) {
    const res = await call(base, method, path, token, body);
    if ((res.status !== 429 && res.status !== 503) || attempt > 50) return res;
    await sleep(250);
  }
}

/** VmRSS (KiB) of `pid` and every process under it (threads share their process's). */
function treeRssKiB(pid: number): number {
  const parents = new Map<number, number>();
  for (const e of readdirSync('/proc')) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'utf8');
      parents.set(Number(e), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone
    }
  }
  const tree = [pid];
  for (let i = 0; i < tree.length; i++) for (const [child, parent] of parents) if (parent === tree[i]) tree.push(child);
  let kib = 0;
  for (const p of tree) {
    try {
      kib += Number(/^VmRSS:\s+(\d+)/m.exec(readFileSync(`/proc/${p}/status`, 'utf8'))?.[1] ?? 0);
    } catch {
      // gone
    }
  }
  return kib;
}

async function startRuntime(projectRoot: string, dataDir: string): Promise<{ child: ChildProcess; url: string; dynamodb: string; output: () => string }> {
  // POSTBOX_LOAD_NODE_ARGS: extra node options for the runtime (e.g. --cpu-prof), for profiling.
  const extra = (process.env.POSTBOX_LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
  const child = spawn(process.execPath, [...extra, '--import', 'tsx', 'bin/local.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', WEBHOOK_ALLOW_PRIVATE: 'true', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (out += d.toString()));
  const deadline = performance.now() + 60_000;
  while (!/^READY (\S+)$/m.test(out)) {
    if (child.exitCode !== null || performance.now() > deadline) throw new Error(`runtime did not start:\n${out}`);
    await sleep(50);
  }
  return {
    child,
    url: /^READY (\S+)$/m.exec(out)![1]!,
    dynamodb: /store \(DynamoDB endpoint\):\s+(\S+)/.exec(out)![1]!,
    output: () => out,
  };
}

const count = (answers: readonly Answer[], pred: (a: Answer) => boolean): number => answers.filter(pred).length;

/** A loopback webhook endpoint: answers 200 at once and notes when each event id arrived. */
async function startReceiver(): Promise<{ url: string; arrivals: Map<string, number[]>; close(): Promise<void>; server: Server }> {
  const arrivals = new Map<string, number[]>();
  const server = createServer((req, res) => {
    const id = String(req.headers['service-event-id'] ?? '');
    const list = arrivals.get(id);
    if (list) list.push(performance.now());
    else arrivals.set(id, [performance.now()]);
    req.resume();
    req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('ok'));
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', () => ok()));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hooks`,
    arrivals,
    server,
    close: () =>
      new Promise<void>((ok) => {
        server.closeAllConnections();
        server.close(() => ok());
      }),
  };
}

/** A raw body (a CSV upload) with the same client as `call`. */
function upload(base: string, path: string, token: string, body: string, type: string): Promise<Answer> {
  const t0 = performance.now();
  return new Promise((resolve) => {
    const req = request(new URL(path, base), { method: 'POST', agent, headers: { authorization: `Bearer ${token}`, 'content-type': type } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, ms: performance.now() - t0, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', () => resolve({ status: 'error', ms: performance.now() - t0, body: '' }));
    req.end(body);
  });
}

const LONE = { recipients: 400, importRows: 5000, keysEveryMs: 125, broadcastEveryMs: 250, quietReads: 40, maxMs: 120_000 } as const;

export interface LoneReads {
  quiet: number[];
  keys: Answer[];
  broadcast: Answer[];
  importS: number;
  broadcastS: number;
  /** Peak RSS of the runtime (its threads included) over the phase, MiB. */
  peakMiB: number;
  lines: string[];
}

/** Reads `path` one at a time every `everyMs` until `done()`; every answer, 503s included. */
async function loneReads(base: string, path: () => string, token: string, everyMs: number, done: () => boolean): Promise<Answer[]> {
  const out: Answer[] = [];
  while (!done()) {
    const next = performance.now() + everyMs;
    out.push(await call(base, 'GET', path(), token));
    await sleep(Math.max(0, next - performance.now()));
  }
  return out;
}

/**
 * Issue 31 item 2 on a fresh `npm start`: a lone authenticated read (one in flight, paced under the
 * per-account limit) while a broadcast of `recipients` test-mode recipients and a `importRows`-row
 * contact import run together: GET /v1/keys from an idle account and GET /v1/broadcasts/{id} from
 * the broadcasting one, each one at a time.
 */
export async function loneReadsUnderWork(projectRoot: string, log: (line: string) => void): Promise<LoneReads> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-lone-'));
  const rt = await startRuntime(projectRoot, dataDir);
  const pid = rt.child.pid as number;
  let peakKiB = treeRssKiB(pid);
  const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, treeRssKiB(pid))), 200);
  try {
    const boot = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string; admin_key: string; test_admin_key: string };
    const reader = JSON.parse((await admitted(rt.url, 'POST', '/v1/admin/accounts', boot.staff_token, { name: 'lone reader', email: 'reader@example.com' })).body) as { admin_key: string };
    await admitted(rt.url, 'GET', '/v1/keys', reader.admin_key);
    const quiet: number[] = [];
    for (let i = 0; i < LONE.quietReads; i++) {
      quiet.push((await call(rt.url, 'GET', '/v1/keys', reader.admin_key)).ms);
      await sleep(LONE.keysEveryMs);
    }
    const csv = ['email,first_name', ...Array.from({ length: LONE.importRows }, (_, i) => `row${i}@example.com,Row${i}`)].join('\n');
    const up = await upload(rt.url, '/v1/uploads', boot.admin_key, csv, 'text/csv');
    if (up.status !== 201) throw new Error(`upload answered ${up.status} ${up.body.slice(0, 200)}`);
    log(`  lone reads: a ${LONE.importRows}-row import and a ${LONE.recipients}-recipient broadcast together`);
    const t0 = performance.now();
    const imp = await admitted(rt.url, 'POST', '/v1/contacts/import', boot.admin_key, { object_key: (JSON.parse(up.body) as { key: string }).key });
    if (imp.status !== 202) throw new Error(`import answered ${imp.status} ${imp.body.slice(0, 200)}`);
    const recipients = Array.from({ length: LONE.recipients }, (_, i) => ({ email: `reader${i}@example.com` }));
    const bulk = await admitted(rt.url, 'POST', '/v1/send/bulk', boot.test_admin_key, { from_email: 'onboarding@sandbox.postbox.dev', subject: 'News', body_text: 'Hello', recipients });
    if (bulk.status !== 202) throw new Error(`bulk answered ${bulk.status} ${bulk.body.slice(0, 200)}`);
    const importId = (JSON.parse(imp.body) as { id: string }).id;
    const broadcastId = (JSON.parse(bulk.body) as { id: string }).id;
    let importS = Number.NaN;
    let broadcastS = Number.NaN;
    const done = () => (!Number.isNaN(importS) && !Number.isNaN(broadcastS)) || performance.now() - t0 > LONE.maxMs;
    // Progress, read by a third client every second (not measured).
    const watch = (async () => {
      while (!done()) {
        await sleep(1000);
        const i = JSON.parse((await call(rt.url, 'GET', `/v1/contacts/imports/${importId}`, boot.admin_key)).body || '{}') as { status?: string };
        if (Number.isNaN(importS) && i.status === 'completed') importS = (performance.now() - t0) / 1000;
        const b = (JSON.parse((await call(rt.url, 'GET', `/v1/broadcasts/${broadcastId}`, boot.test_admin_key)).body || '{}') as { stats?: { total: number; delivered: number; failed: number } }).stats;
        if (Number.isNaN(broadcastS) && b?.total && b.delivered + b.failed >= b.total) broadcastS = (performance.now() - t0) / 1000;
      }
    })();
    const [keys, broadcast] = await Promise.all([
      loneReads(rt.url, () => '/v1/keys', reader.admin_key, LONE.keysEveryMs, done),
      loneReads(rt.url, () => `/v1/broadcasts/${broadcastId}`, boot.test_admin_key, LONE.broadcastEveryMs, done),
    ]);
    await watch;
    const ok = (a: Answer[]) => a.filter((x) => x.status === 200).map((x) => x.ms);
    const not200 = (a: Answer[]) => a.filter((x) => x.status !== 200).length;
    const describe = (label: string, a: Answer[]) =>
      `| ${label} | ${a.length} | ${fmt(percentile(ok(a), 50), 1)} | ${fmt(percentile(ok(a), 99), 1)} | ${fmt(Math.max(...ok(a)), 0)} | ${not200(a)} |`;
    const lines = [
      '| Lone read (one in flight) | Reads | p50 ms | p99 ms | max ms | not 200 |',
      '|---|---:|---:|---:|---:|---:|',
      `| GET /v1/keys, quiet runtime | ${quiet.length} | ${fmt(percentile(quiet, 50), 1)} | ${fmt(percentile(quiet, 99), 1)} | ${fmt(Math.max(...quiet), 0)} | 0 |`,
      describe('GET /v1/keys, during import + broadcast', keys),
      describe('GET /v1/broadcasts/{id}, during import + broadcast', broadcast),
      '',
      `- ${LONE.importRows}-row import completed after ${fmt(importS, 1)} s; ${LONE.recipients}-recipient broadcast all delivered after ${fmt(broadcastS, 1)} s (test mode; measured from the import request). Peak RSS of the runtime: ${fmt(peakKiB / 1024, 0)} MiB.`,
    ];
    return { quiet, keys, broadcast, importS, broadcastS, peakMiB: peakKiB / 1024, lines };
  } finally {
    clearInterval(sampler);
    const exited = new Promise((resolve) => rt.child.once('exit', resolve));
    if (rt.child.exitCode === null) rt.child.kill('SIGINT');
    await Promise.race([exited, sleep(15_000)]);
    if (rt.child.exitCode === null) rt.child.kill('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export const localLoad: Benchmark = {
  name: 'Local runtime under load',
  async run(context) {
    const section = await underLoad(context);
    const lone = await loneReadsUnderWork(context.projectRoot, context.log).finally(() => agent.destroy());
    const worst = Math.max(percentile(lone.keys.filter((a) => a.status === 200).map((a) => a.ms), 99), percentile(lone.broadcast.filter((a) => a.status === 200).map((a) => a.ms), 99));
    const refused = [...lone.keys, ...lone.broadcast].filter((a) => a.status !== 200).length;
    return [
      section,
      '',
      `Lone reads (issue 31, item 2): a fresh runtime, one ${LONE.importRows}-row CSV import (live key) and one ${LONE.recipients}-recipient \`POST /v1/send/bulk\` (test mode, inline recipients) started together; meanwhile, one at a time, \`GET /v1/keys\` of an idle account every ${LONE.keysEveryMs} ms and \`GET /v1/broadcasts/{id}\` of the broadcasting account every ${LONE.broadcastEveryMs} ms, until the import is completed and every recipient delivered.`,
      '',
      ...lone.lines,
      `- Target: a lone read p99 ≤ 100 ms and never refused: p99 ${fmt(worst, 0)} ms, ${refused} not answered 200, **${worst <= 100 && refused === 0 ? 'met' : 'not met'}**.`,
    ].join('\n');
  },
};

/** The open-loop load, the batch and its webhooks, on a runtime of its own. */
async function underLoad({ log, projectRoot }: { log: (line: string) => void; projectRoot: string }): Promise<string> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-load-'));
  const rt = await startRuntime(projectRoot, dataDir);
  const pid = rt.child.pid as number;
  let peakKiB = treeRssKiB(pid);
  const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, treeRssKiB(pid))), 200);
  const worker = new LoadWorker<LoadTask>();
  const receiver = await startReceiver();
  try {
    const { staff_token } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { staff_token: string };
    const accounts: Array<{ key: string; id: string; email: string }> = [];
    for (let i = 0; i < S.accounts; i++) {
      const email = `owner${i}@example.com`;
      const made = await admitted(rt.url, 'POST', '/v1/admin/accounts', staff_token, { name: `load ${i}`, email });
      if (made.status !== 201) throw new Error(`POST /v1/admin/accounts answered ${made.status} ${made.body.slice(0, 200)}`);
      const json = JSON.parse(made.body) as { admin_key: string; account_id: string };
      accounts.push({ key: json.admin_key, id: json.account_id, email });
    }
    // Every key once, so the read phase starts on the warm path the cache gives a steady client.
    for (const a of accounts) await admitted(rt.url, 'GET', '/v1/keys', a.key);

    log(`  store GetItem alone, 1 in flight, ${S.storeMs / 1000} s`);
    const store = await worker.run({ kind: 'store', endpoint: rt.dynamodb, tableName: LOCAL_TABLE, region: 'us-east-1', accountIds: accounts.map((a) => a.id), concurrency: 1, warmupMs: 500, durationMs: S.storeMs });

    log(`  reads: ${S.ratePerSecond}/s offered for ${S.readMs / 1000} s`);
    const reads = await openLoop(S.ratePerSecond, S.readMs, (i) => call(rt.url, 'GET', '/v1/keys', accounts[i % accounts.length]!.key));
    const readPeakKiB = peakKiB;

    log(`  single sends: ${S.ratePerSecond}/s offered for ${S.sendMs / 1000} s`);
    const sendStarted = performance.now();
    const sends = await openLoop(S.ratePerSecond, S.sendMs, (i) => {
      const a = accounts[i % accounts.length]!;
      return call(rt.url, 'POST', '/v1/send', a.key, { channel: 'email', idempotency_key: `load-${i}`, destination: { email: a.email }, payload: { subject: `Load ${i}`, body_text: 'hello' } });
    });
    const accepted = sends.flatMap((s, i) => (s.status === 201 ? [{ id: (JSON.parse(s.body) as { id: string }).id, account: accounts[i % accounts.length]! }] : []));

    // send → delivered: the delivered event's created_at against the message's, read once every
    // sampled message is final (paced well under each account's 10 requests/s).
    const step = Math.max(1, Math.floor(accepted.length / S.deliveredSample));
    const sample = accepted.filter((_, i) => i % step === 0);
    const deliveredMs: number[] = [];
    const notFinal: string[] = [];
    const finalDeadline = performance.now() + 90_000;
    for (const m of sample) {
      for (;;) {
        const res = await admitted(rt.url, 'GET', `/v1/messages/${m.id}`, m.account.key);
        const view = res.status === 200 ? (JSON.parse(res.body) as { status: string; created_at: string; events: Array<{ type: string; created_at: string }> }) : undefined;
        const delivered = view?.events.find((e) => e.type === 'delivered');
        if (view && delivered) {
          deliveredMs.push(Date.parse(delivered.created_at) - Date.parse(view.created_at));
          break;
        }
        if (performance.now() > finalDeadline) {
          notFinal.push(`${m.id}:${view?.status ?? res.status}`);
          break;
        }
        await sleep(100);
      }
    }
    const drainedS = (performance.now() - sendStarted) / 1000;
    const sendPeakKiB = peakKiB;

    // (d) and (e): 1000 sequential PutItems straight to the runtime's store, then one 1000-item
    // batch of test-mode sends from a fresh account subscribed to `delivered`: the batch's wall
    // time against the puts', and then every simulated delivery's webhook at the receiver.
    const made = await admitted(rt.url, 'POST', '/v1/admin/accounts', staff_token, { name: 'load batch', email: 'batch-owner@example.com' });
    const batchAccount = JSON.parse(made.body) as { test_admin_key: string };
    const sub = await admitted(rt.url, 'POST', '/v1/webhooks', batchAccount.test_admin_key, { endpoint_url: receiver.url, event_types: ['delivered'] });
    if (sub.status !== 201) throw new Error(`POST /v1/webhooks answered ${sub.status} ${sub.body.slice(0, 200)}`);
    log(`  ${S.batchItems} sequential PutItems, then one ${S.batchItems}-item batch`);
    const puts = await worker.run({ kind: 'puts', endpoint: rt.dynamodb, tableName: LOCAL_TABLE, region: 'us-east-1', count: S.batchItems, itemBytes: S.putItemBytes });
    const items = Array.from({ length: S.batchItems }, (_, k) => ({ channel: 'email', idempotency_key: `batch-${k}`, destination: { email: 'batch-owner@example.com' }, payload: { subject: `Batch ${k}`, body_text: 'hello' } }));
    let batchTries = 0;
    let batch: Answer;
    let batchStarted: number;
    do {
      if (batchTries > 0) await sleep(1000);
      batchTries++;
      batchStarted = performance.now();
      batch = await call(rt.url, 'POST', '/v1/send/batch', batchAccount.test_admin_key, items);
    } while (batch.status === 503 && batchTries < 30);
    const batchResults = batch.status === 200 || batch.status === 201 || batch.status === 207 ? (JSON.parse(batch.body) as Array<{ success?: boolean }>) : [];
    const batchAccepted = batchResults.filter((r) => r?.success).length;
    log(`  batch answered ${batch.status} in ${fmt(batch.ms, 0)} ms (${batchAccepted} accepted); waiting for ${batchAccepted} webhooks`);
    const hooksDeadline = batchStarted + S.webhookWaitMs + 30_000;
    while (receiver.arrivals.size < batchAccepted && performance.now() < hooksDeadline) await sleep(100);
    await sleep(2000); // a duplicate sent late would still be seen
    const arrivals = [...receiver.arrivals.values()];
    const lastArrivalS = arrivals.length ? (Math.max(...arrivals.map((a) => a[0]!)) - batchStarted) / 1000 : Number.NaN;
    const duplicates = arrivals.reduce((n, a) => n + a.length - 1, 0);
    const hooksInTime = arrivals.filter((a) => a[0]! - batchStarted <= S.webhookWaitMs).length;
    const batchRatio = batch.ms / puts.windowMs;

    const readOk = reads.filter((r) => r.status === 200).map((r) => r.ms);
    const storeP50 = percentile(store.latenciesMs, 50);
    const readRatio = percentile(readOk, 50) / storeP50;
    const readP99 = percentile(readOk, 99);
    const deliveredP50 = percentile(deliveredMs, 50);
    const row = (label: string, answers: readonly Answer[], ok: number): string => {
      const okMs = answers.filter((a) => a.status === ok).map((a) => a.ms);
      return `| ${label} | ${fmtInt(answers.length)} | ${fmtInt(okMs.length)} (${fmt((okMs.length * 1000) / (label.startsWith('GET') ? S.readMs : S.sendMs), 0)}/s) | ${fmt(percentile(okMs, 50), 1)} | ${fmt(percentile(okMs, 99), 1)} | ${count(answers, (a) => a.status === 503)} | ${count(answers, (a) => a.status === 429)} | ${count(answers, (a) => a.status === 'timeout')} | ${count(answers, (a) => typeof a.status === 'number' && ![ok, 503, 429].includes(a.status)) + count(answers, (a) => a.status === 'error')} |`;
    };
    log(`  reads p50 ${fmt(percentile(readOk, 50), 1)} ms, store p50 ${fmt(storeP50, 2)} ms, peak RSS ${fmt(peakKiB / 1024, 0)} MiB`);
    return [
      '## Local runtime under load',
      '',
      `Method: \`bin/local.ts\` started as its own process (as \`npm start\`; fresh DATA_DIR, LOG_LEVEL error, WEBHOOK_ALLOW_PRIVATE=true for the loopback receiver), ${S.accounts} accounts made with \`POST /v1/admin/accounts\` and the staff token. Load is open-loop from this benchmark's process: requests leave at ${S.ratePerSecond}/s whatever the answers take, round-robin over the accounts (${S.ratePerSecond / S.accounts}/s each, under the limit of 10), keep-alive, ${S.timeoutMs / 1000} s client timeout. ` +
        `First ${S.readMs / 1000} s of authenticated \`GET /v1/keys\` (every key used once before, so the key cache is warm, as for a steady client), then ${S.sendMs / 1000} s of single live \`POST /v1/send\` to each account's own address (sandbox). ` +
        `The store row is a consistent GetItem of an ACCOUNT item straight to the runtime's embedded dynalite from a worker thread here, one at a time, just before the reads. send → delivered is the \`delivered\` event's \`created_at\` minus the message's, read afterwards for ${sample.length} of the ${accepted.length} accepted sends (every ${step}th). Peak RSS is VmRSS of the runtime process (its threads included) plus its children (tsx's esbuild, if it runs), sampled every 200 ms over the whole run. ` +
        `Last, once the sends are delivered: ${fmtInt(S.batchItems)} PutItems one after the other straight to the runtime's dynalite from a worker thread here, then one ${fmtInt(S.batchItems)}-item \`POST /v1/send/batch\` of test-mode sends (each simulated \`delivered\` is a webhook) from a fresh account subscribed to \`delivered\` at a loopback receiver in this process, which counts arrivals per \`service-event-id\`.`,
      '',
      '| Load | Offered | Answered OK | p50 ms | p99 ms | 503 shed | 429 | Timeouts | Other |',
      '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
      row(`GET /v1/keys at ${S.ratePerSecond}/s`, reads, 200),
      row(`POST /v1/send at ${S.ratePerSecond}/s`, sends, 201),
      '',
      `- Store GetItem alone: p50 ${fmt(storeP50, 2)} ms, p99 ${fmt(percentile(store.latenciesMs, 99), 2)} ms (${fmtInt(store.latenciesMs.length)} calls). **Reads p50 ÷ GetItem p50 = ${fmt(readRatio, 1)}** (target ≤ 4); reads p99 ${fmt(percentile(readOk, 99), 0)} ms (target ≤ 250).`,
      `- send → delivered: p50 ${fmt(percentile(deliveredMs, 50) / 1000, 2)} s, p99 ${fmt(percentile(deliveredMs, 99) / 1000, 2)} s over ${deliveredMs.length} messages (target p50 ≤ 2 s)${notFinal.length ? `; ${notFinal.length} not delivered within 90 s (${notFinal.slice(0, 3).join(', ')}…)` : ''}; the sample was all delivered ${fmt(drainedS, 1)} s after the first send.`,
      `- Peak RSS: ${fmt(peakKiB / 1024, 0)} MiB (${fmt(readPeakKiB / 1024, 0)} MiB by the end of the reads, ${fmt(sendPeakKiB / 1024, 0)} MiB by the time the sends were delivered, the rest in the batch and its webhooks; target ≤ 300).`,
      `- ${fmtInt(S.batchItems)} sequential PutItems of ${S.putItemBytes}-byte items straight to the runtime's store: ${fmt(puts.windowMs / 1000, 2)} s (p50 ${fmt(percentile(puts.latenciesMs, 50), 2)} ms each). One ${fmtInt(S.batchItems)}-item POST /v1/send/batch (test mode): ${batch.status}, ${fmtInt(batchAccepted)} accepted, ${fmt(batch.ms / 1000, 2)} s${batchTries > 1 ? ` (after ${batchTries - 1} answers 503 while the consumers were behind)` : ''}. **Batch ÷ sequential puts = ${fmt(batchRatio, 2)}** (target ≤ 0.5).`,
      `- Webhooks for the batch's ${fmtInt(batchAccepted)} simulated deliveries (one subscription to \`delivered\`, a loopback receiver answering 200 at once): ${fmtInt(arrivals.length)} event ids arrived, ${fmtInt(hooksInTime)} within ${S.webhookWaitMs / 1000} s of the batch request, the last ${fmt(lastArrivalS, 1)} s after it; **${duplicates} arrived more than once** (target: all within 60 s, none twice).`,
      '',
      'Targets (issue 11, point 3):',
      '',
      `- (a) reads p50 ≤ 4× GetItem p50 and p99 ≤ 250 ms: ${fmt(readRatio, 1)}× and ${fmt(readP99, 0)} ms, **${readRatio <= 4 && readP99 <= 250 ? 'met' : 'not met'}**.`,
      `- (b) single sends accepted without timeouts, send → delivered p50 ≤ 2 s: ${count(sends, (a) => a.status === 'timeout')} timeouts, p50 ${fmt(deliveredP50 / 1000, 2)} s, **${count(sends, (a) => a.status === 'timeout') === 0 && deliveredP50 <= 2000 ? 'met' : 'not met'}** (${fmtInt(accepted.length)} of ${fmtInt(sends.length)} accepted, the rest answered 503 at once).`,
      `- (c) peak RSS ≤ 300 MiB: ${fmt(peakKiB / 1024, 0)} MiB, **${peakKiB / 1024 <= 300 ? 'met' : 'not met'}**.`,
      `- (d) 1000-item batch ≤ 0.5× 1000 sequential PutItems: ${fmt(batchRatio, 2)}×, **${batchRatio <= 0.5 && batchAccepted === S.batchItems ? 'met' : 'not met'}**.`,
      `- (e) 1000 webhooks all delivered within 60 s, none twice: ${fmtInt(hooksInTime)} in time, ${duplicates} twice, **${hooksInTime >= S.batchItems && duplicates === 0 ? 'met' : 'not met'}**.`,
      '',
      'Read it as: a 503 is the runtime refusing at once a request that found 32 others in flight (Retry-After: 1), a timeout is a request that waited 10 s; what is answered OK should be answered fast.',
    ].join('\n');
  } finally {
    clearInterval(sampler);
    await worker.close();
    await receiver.close();
    const exited = new Promise((resolve) => rt.child.once('exit', resolve));
    if (rt.child.exitCode === null) rt.child.kill('SIGINT');
    await Promise.race([exited, sleep(15_000)]);
    if (rt.child.exitCode === null) rt.child.kill('SIGKILL');
    if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
  }
}
