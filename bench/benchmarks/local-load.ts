// The local runtime as `npm start` runs it (its own process), under an open-loop load: 160
// requests/s offered by 20 accounts, reads and then single sends, whatever the answers take. What a
// client sees (latency, 503 sheds, 429s, timeouts), when an accepted send shows `delivered`, the
// runtime's peak memory, and the store's own GetItem latency measured in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCAL_TABLE } from '../../shared/runtime/local/runtime';
import type { Benchmark } from '../run';
import type { LoadTask } from '../lib/load-worker';
import { fmt, fmtInt, LoadWorker, percentile, sleep } from '../lib/measure';

const S = { accounts: 20, ratePerSecond: 160, readMs: 15_000, sendMs: 10_000, timeoutMs: 10_000, deliveredSample: 200, storeMs: 3_000 } as const;

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
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/local.ts'], {
    cwd: projectRoot,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', SES_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
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

export const localLoad: Benchmark = {
  name: 'Local runtime under load',
  async run({ log, projectRoot }) {
    const dataDir = mkdtempSync(join(tmpdir(), 'postbox-load-'));
    const rt = await startRuntime(projectRoot, dataDir);
    const pid = rt.child.pid as number;
    let peakKiB = treeRssKiB(pid);
    const sampler = setInterval(() => (peakKiB = Math.max(peakKiB, treeRssKiB(pid))), 200);
    const worker = new LoadWorker<LoadTask>();
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
      const readOk = reads.filter((r) => r.status === 200).map((r) => r.ms);
      const storeP50 = percentile(store.latenciesMs, 50);
      const row = (label: string, answers: readonly Answer[], ok: number): string => {
        const okMs = answers.filter((a) => a.status === ok).map((a) => a.ms);
        return `| ${label} | ${fmtInt(answers.length)} | ${fmtInt(okMs.length)} (${fmt((okMs.length * 1000) / (label.startsWith('GET') ? S.readMs : S.sendMs), 0)}/s) | ${fmt(percentile(okMs, 50), 1)} | ${fmt(percentile(okMs, 99), 1)} | ${count(answers, (a) => a.status === 503)} | ${count(answers, (a) => a.status === 429)} | ${count(answers, (a) => a.status === 'timeout')} | ${count(answers, (a) => typeof a.status === 'number' && ![ok, 503, 429].includes(a.status)) + count(answers, (a) => a.status === 'error')} |`;
      };
      log(`  reads p50 ${fmt(percentile(readOk, 50), 1)} ms, store p50 ${fmt(storeP50, 2)} ms, peak RSS ${fmt(peakKiB / 1024, 0)} MiB`);
      return [
        '## Local runtime under load',
        '',
        `Method: \`bin/local.ts\` started as its own process (as \`npm start\`; fresh DATA_DIR, LOG_LEVEL error), ${S.accounts} accounts made with \`POST /v1/admin/accounts\` and the staff token. Load is open-loop from this benchmark's process: requests leave at ${S.ratePerSecond}/s whatever the answers take, round-robin over the accounts (${S.ratePerSecond / S.accounts}/s each, under the limit of 10), keep-alive, ${S.timeoutMs / 1000} s client timeout. ` +
          `First ${S.readMs / 1000} s of authenticated \`GET /v1/keys\` (every key used once before, so the key cache is warm, as for a steady client), then ${S.sendMs / 1000} s of single live \`POST /v1/send\` to each account's own address (sandbox). ` +
          `The store row is a consistent GetItem of an ACCOUNT item straight to the runtime's embedded dynalite from a worker thread here, one at a time, just before the reads. send → delivered is the \`delivered\` event's \`created_at\` minus the message's, read afterwards for ${sample.length} of the ${accepted.length} accepted sends (every ${step}th). Peak RSS is VmRSS of the runtime process (its threads included) plus its children (tsx's esbuild), sampled every 200 ms.`,
        '',
        '| Load | Offered | Answered OK | p50 ms | p99 ms | 503 shed | 429 | Timeouts | Other |',
        '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
        row(`GET /v1/keys at ${S.ratePerSecond}/s`, reads, 200),
        row(`POST /v1/send at ${S.ratePerSecond}/s`, sends, 201),
        '',
        `- Store GetItem alone: p50 ${fmt(storeP50, 2)} ms, p99 ${fmt(percentile(store.latenciesMs, 99), 2)} ms (${fmtInt(store.latenciesMs.length)} calls). **Reads p50 ÷ GetItem p50 = ${fmt(percentile(readOk, 50) / storeP50, 1)}** (target ≤ 4); reads p99 ${fmt(percentile(readOk, 99), 0)} ms (target ≤ 250).`,
        `- send → delivered: p50 ${fmt(percentile(deliveredMs, 50) / 1000, 2)} s, p99 ${fmt(percentile(deliveredMs, 99) / 1000, 2)} s over ${deliveredMs.length} messages (target p50 ≤ 2 s)${notFinal.length ? `; ${notFinal.length} not delivered within 90 s (${notFinal.slice(0, 3).join(', ')}…)` : ''}; the sample was all delivered ${fmt(drainedS, 1)} s after the first send.`,
        `- Peak RSS: ${fmt(peakKiB / 1024, 0)} MiB (${fmt(readPeakKiB / 1024, 0)} MiB by the end of the reads; target ≤ 300).`,
        '',
        'Read it as: a 503 is the runtime refusing at once what it could not start on soon (Retry-After: 1), a timeout is a request that waited 10 s; what is answered OK should be answered fast. The 1000-item batch and 1000-webhook targets of issue 11 are not measured here.',
      ].join('\n');
    } finally {
      clearInterval(sampler);
      await worker.close();
      const exited = new Promise((resolve) => rt.child.once('exit', resolve));
      if (rt.child.exitCode === null) rt.child.kill('SIGINT');
      await Promise.race([exited, sleep(15_000)]);
      if (rt.child.exitCode === null) rt.child.kill('SIGKILL');
      agent.destroy();
      if (existsSync(dataDir)) rmSync(dataDir, { recursive: true, force: true });
    }
  },
};
