// `npx tsx bench/memory.ts [sends] [rows]`: the peak memory of `npm start` (its own process) through
// a contact import, a stream of sends mailed through the SES emulator and a run of reads. Samples
// VmRSS of the process (its worker threads share it) every 200 ms and reads VmHWM (the kernel's
// peak) at the end; prints the figures and the sizes of DATA_DIR's journals. Not part of
// `npm run bench` (a few minutes on 2 cores); issue 31 item 3 asks for ≤ 400 MiB on the combined run.
// MEMORY_SNAPSHOT=1 writes a heap snapshot of the main thread at the end (under DATA_DIR/snapshot).
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sleep } from './lib/measure';

const root = fileURLToPath(new URL('../', import.meta.url));
const SENDS = Number(process.argv[2] ?? 2000);
const ROWS = Number(process.argv[3] ?? 2000);
const BATCH = 500;
const MiB = 1024;

const status = (pid: number): { rss: number; hwm: number } => {
  const text = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kib = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(text)?.[1] ?? 0);
  return { rss: kib('VmRSS'), hwm: kib('VmHWM') };
};

async function call(base: string, method: string, path: string, key: string, body?: unknown, raw?: string): Promise<{ status: number; body: any }> {
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${key}`, 'content-type': raw === undefined ? 'application/json' : 'text/csv' },
      body: raw ?? (body === undefined ? undefined : JSON.stringify(body)),
    });
    const text = await res.text();
    if ((res.status === 429 || res.status === 503) && attempt < 200) {
      await sleep(200);
      continue;
    }
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }
}

const lineCount = (file: string): number => (existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean).length : 0);
const size = (file: string): string => (existsSync(file) ? `${(statSync(file).size / 1048576).toFixed(1)} MiB` : 'none');

async function main(): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'postbox-memory-'));
  const snapshotDir = join(dataDir, 'snapshot');
  mkdirSync(snapshotDir);
  const nodeArgs = process.env.MEMORY_SNAPSHOT ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${snapshotDir}`] : [];
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', 'bin/local.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, PORT: '0', SES_PORT: '0', INBOUND_SMTP_PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', ACCOUNT_EMAIL: 'ada@example.com', AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  const pid = child.pid as number;
  const phases: string[] = [];
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, status(pid).rss);
    } catch {
      // exited
    }
  }, 200);
  const mark = (phase: string) => {
    const s = status(pid);
    phases.push(`${phase.padEnd(34)} RSS ${(s.rss / MiB).toFixed(0).padStart(5)} MiB, peak so far ${(Math.max(peak, s.hwm) / MiB).toFixed(0)} MiB`);
    process.stderr.write(`${phases.at(-1)}\n`);
  };
  try {
    while (!/^READY (\S+)$/m.test(out)) {
      if (child.exitCode !== null) throw new Error(`runtime exited:\n${out}`);
      await sleep(100);
    }
    const url = /^READY (\S+)$/m.exec(out)![1]!;
    const { admin_key: key } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string };
    mark('started');

    const csv = `email,first_name\n${Array.from({ length: ROWS }, (_, i) => `row${i}@memory.test,Row ${i}`).join('\n')}\n`;
    const uploaded = await call(url, 'POST', '/v1/uploads', key, undefined, csv);
    const started = await call(url, 'POST', '/v1/contacts/import', key, { object_key: uploaded.body.key });
    if (started.status !== 202) throw new Error(`import answered ${started.status}: ${JSON.stringify(started.body).slice(0, 300)}`);
    let view: { status: number; body: any };
    for (;;) {
      view = await call(url, 'GET', `/v1/contacts/imports/${started.body.id}`, key);
      if (!['pending', 'processing', 'running'].includes(view.body.status)) break;
      await sleep(500);
    }
    mark(`import of ${ROWS} rows ${view.body.status} ${JSON.stringify(view.body.counts ?? view.body).slice(0, 120)}`);

    const html = `<html><body>${'<p>Hello, this is a newsletter paragraph with some words in it.</p>'.repeat(40)}</body></html>`;
    for (let sent = 0; sent < SENDS; sent += BATCH) {
      const items = Array.from({ length: Math.min(BATCH, SENDS - sent) }, (_, i) => ({
        channel: 'email',
        idempotency_key: `memory-${sent + i}`,
        destination: { email: 'ada@example.com' },
        payload: { subject: `Memory ${sent + i}`, body_text: 'Hi', body_html: html },
      }));
      const res = await call(url, 'POST', '/v1/send/batch', key, items);
      if (res.status !== 200) throw new Error(`batch answered ${res.status}: ${JSON.stringify(res.body).slice(0, 300)}`);
    }
    mark(`${SENDS} sends accepted`);
    const ledger = join(dataDir, 'ses-feedback.jsonl');
    while (lineCount(ledger) < SENDS) await sleep(1000);
    mark(`${SENDS} mailed and reported`);
    for (let i = 0; i < 200; i++) await call(url, 'GET', `/v1/messages?limit=100`, key);
    mark('200 reads');
    await sleep(5000);
    mark('settled');
    if (process.env.MEMORY_SNAPSHOT) {
      child.kill('SIGUSR2');
      while (!readdirSync(snapshotDir).some((f) => f.endsWith('.heapsnapshot'))) await sleep(500);
      await sleep(5000);
      process.stderr.write(`snapshot: ${readdirSync(snapshotDir).map((f) => join(snapshotDir, f)).join(' ')} (copy it before the run ends)\n`);
      if (process.env.MEMORY_SNAPSHOT_KEEP) await sleep(Number(process.env.MEMORY_SNAPSHOT_KEEP));
    }
    const end = status(pid);
    process.stdout.write(
      [
        `memory: ${ROWS}-row import, ${SENDS} sends mailed, 200 reads`,
        ...phases,
        `peak RSS (VmHWM): ${(Math.max(peak, end.hwm) / MiB).toFixed(0)} MiB`,
        `ses-mail.jsonl ${size(join(dataDir, 'ses-mail.jsonl'))}, queue-journal.jsonl ${size(join(dataDir, 'queue-journal.jsonl'))}, ses-feedback.jsonl ${size(ledger)}`,
      ].join('\n') + '\n',
    );
  } finally {
    clearInterval(sampler);
    child.kill('SIGKILL');
    await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
