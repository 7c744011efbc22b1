// `npx tsx bench/memory.ts [sends] [rows]`: the peak memory of `npm start` (its own process) through
// a contact import, a stream of sends mailed through the SES emulator and a run of reads. Samples
// VmRSS of the process (its worker threads share it) every 200 ms and reads VmHWM (the kernel's
// peak) at the end; prints the figures and the sizes of DATA_DIR's journals. Not part of
// `npm run bench` (a few minutes on 2 cores); issue 31 item 3 asks for ≤ 400 MiB on the combined run.
// MEMORY_SNAPSHOT=1 writes a heap snapshot of the main thread at the end (under DATA_DIR/snapshot).
import { spawn, type ChildProcess } from 'node:child_process';
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

interface Runtime {
  child: ChildProcess;
  pid: number;
  dataDir: string;
  snapshotDir: string;
  /** Its stdout and stderr so far. */
  output(): string;
}

/** `npm start`'s entry in a process of its own on a fresh DATA_DIR (with a heap snapshot on SIGUSR2 when MEMORY_SNAPSHOT is set). */
function spawnRuntime(): Runtime {
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
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  return { child, pid: child.pid as number, dataDir, snapshotDir, output: () => out };
}

/** Its URL once it says READY, and the admin key it wrote on bootstrap. */
async function whenReady(rt: Runtime): Promise<{ url: string; key: string }> {
  while (!/^READY (\S+)$/m.test(rt.output())) {
    if (rt.child.exitCode !== null) throw new Error(`runtime exited:\n${rt.output()}`);
    await sleep(100);
  }
  const url = /^READY (\S+)$/m.exec(rt.output())![1]!;
  const { admin_key: key } = JSON.parse(readFileSync(join(rt.dataDir, 'bootstrap.json'), 'utf8')) as { admin_key: string };
  return { url, key };
}

/** VmRSS sampled every 200 ms; `mark` notes a phase's RSS and the peak so far. */
function sampleMemory(pid: number): { phases: string[]; peak(): number; mark(phase: string): void; stop(): void } {
  const phases: string[] = [];
  let peak = 0;
  const sampler = setInterval(() => {
    try {
      peak = Math.max(peak, status(pid).rss);
    } catch {
      // exited
    }
  }, 200);
  return {
    phases,
    peak: () => peak,
    mark(phase) {
      const s = status(pid);
      phases.push(`${phase.padEnd(34)} RSS ${(s.rss / MiB).toFixed(0).padStart(5)} MiB, peak so far ${(Math.max(peak, s.hwm) / MiB).toFixed(0)} MiB`);
      process.stderr.write(`${phases.at(-1)}\n`);
    },
    stop: () => clearInterval(sampler),
  };
}

/** A CSV of ROWS contacts uploaded and imported; the import as it ended. */
async function importContacts(url: string, key: string): Promise<{ status: number; body: any }> {
  const csv = `email,first_name\n${Array.from({ length: ROWS }, (_, i) => `row${i}@memory.test,Row ${i}`).join('\n')}\n`;
  const uploaded = await call(url, 'POST', '/v1/uploads', key, undefined, csv);
  const started = await call(url, 'POST', '/v1/contacts/import', key, { object_key: uploaded.body.key });
  if (started.status !== 202) throw new Error(`import answered ${started.status}: ${JSON.stringify(started.body).slice(0, 300)}`);
  for (;;) {
    const view = await call(url, 'GET', `/v1/contacts/imports/${started.body.id}`, key);
    if (!['pending', 'processing', 'running'].includes(view.body.status)) return view;
    await sleep(500);
  }
}

/** SENDS emails with an HTML body of 40 paragraphs, BATCH a request. */
async function sendEmails(url: string, key: string): Promise<void> {
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
}

/** MEMORY_SNAPSHOT: a heap snapshot of the runtime's main thread, kept MEMORY_SNAPSHOT_KEEP ms for copying. */
async function snapshot(rt: Runtime): Promise<void> {
  rt.child.kill('SIGUSR2');
  while (!readdirSync(rt.snapshotDir).some((f) => f.endsWith('.heapsnapshot'))) await sleep(500);
  await sleep(5000);
  process.stderr.write(`snapshot: ${readdirSync(rt.snapshotDir).map((f) => join(rt.snapshotDir, f)).join(' ')} (copy it before the run ends)\n`);
  if (process.env.MEMORY_SNAPSHOT_KEEP) await sleep(Number(process.env.MEMORY_SNAPSHOT_KEEP));
}

async function main(): Promise<void> {
  const rt = spawnRuntime();
  const memory = sampleMemory(rt.pid);
  const { mark } = memory;
  try {
    const { url, key } = await whenReady(rt);
    mark('started');
    const view = await importContacts(url, key);
    mark(`import of ${ROWS} rows ${view.body.status} ${JSON.stringify(view.body.counts ?? view.body).slice(0, 120)}`);
    await sendEmails(url, key);
    mark(`${SENDS} sends accepted`);
    const ledger = join(rt.dataDir, 'ses-feedback.jsonl');
    while (lineCount(ledger) < SENDS) await sleep(1000);
    mark(`${SENDS} mailed and reported`);
    for (let i = 0; i < 200; i++) await call(url, 'GET', `/v1/messages?limit=100`, key);
    mark('200 reads');
    await sleep(5000);
    mark('settled');
    if (process.env.MEMORY_SNAPSHOT) await snapshot(rt);
    const end = status(rt.pid);
    process.stdout.write(
      [
        `memory: ${ROWS}-row import, ${SENDS} sends mailed, 200 reads`,
        ...memory.phases,
        `peak RSS (VmHWM): ${(Math.max(memory.peak(), end.hwm) / MiB).toFixed(0)} MiB`,
        `ses-mail.jsonl ${size(join(rt.dataDir, 'ses-mail.jsonl'))}, queue-journal.jsonl ${size(join(rt.dataDir, 'queue-journal.jsonl'))}, ses-feedback.jsonl ${size(ledger)}`,
      ].join('\n') + '\n',
    );
  } finally {
    memory.stop();
    rt.child.kill('SIGKILL');
    await new Promise((resolve) => (rt.child.exitCode === null ? rt.child.once('exit', resolve) : resolve(undefined)));
    rmSync(rt.dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${String((error as Error)?.stack ?? error)}\n`);
  process.exit(1);
});
