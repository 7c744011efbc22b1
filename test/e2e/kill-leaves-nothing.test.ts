// `kill -9` of the local runtime leaves nothing running: the store and the emulators are threads of
// its one process, not children that could outlive it, and nothing keeps the store's LevelDB
// directory open, so the next start is its only writer. (`npm start` runs a bundle and starts no
// child; one started by `tsx bin/local.ts`, its esbuild service, ends when its parent's pipe
// closes, and any child must be gone too.)
import { existsSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';
import { waitFor } from '../support/wait';

const PROC = '/proc';

/** Pids of the processes whose parent is `pid`, and of theirs, from /proc/<pid>/stat. */
function descendants(pid: number): number[] {
  const parents = new Map<number, number>();
  for (const entry of readdirSync(PROC)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(join(PROC, entry, 'stat'), 'utf8');
      parents.set(Number(entry), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone meanwhile
    }
  }
  const out: number[] = [];
  const walk = (p: number): void => {
    for (const [child, parent] of parents) if (parent === p) (out.push(child), walk(child));
  };
  walk(pid);
  return out;
}

/** Pids of the processes holding a file under `dir` open. */
function holdersOf(dir: string): number[] {
  const holders = new Set<number>();
  for (const entry of readdirSync(PROC)) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      for (const fd of readdirSync(join(PROC, entry, 'fd'))) {
        if (readlinkSync(join(PROC, entry, 'fd', fd)).startsWith(dir)) holders.add(Number(entry));
      }
    } catch {
      // not ours to read, or gone meanwhile
    }
  }
  return [...holders];
}

const threadsOf = (pid: number): number => Number(/^Threads:\s+(\d+)/m.exec(readFileSync(join(PROC, String(pid), 'status'), 'utf8'))?.[1]);

describe.skipIf(process.platform !== 'linux')('kill -9 of the local runtime', () => {
  let dataDir: string;
  let runtime: RuntimeProcess | undefined;

  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'postbox-kill-'));
  });
  afterAll(async () => {
    await runtime?.stop('SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('leaves no process behind and the store directory free for the next start, which keeps the data', async () => {
    // Prepare: a running runtime with an account made through its API.
    const first = await startRuntimeProcess({ DATA_DIR: dataDir });
    runtime = first;
    const pid = first.child.pid as number;
    const { staff_token } = JSON.parse(readFileSync(join(dataDir, 'bootstrap.json'), 'utf8'));
    const made = await api(first.url, 'POST', '/v1/admin/accounts', staff_token, { name: 'before the kill' });
    expect(made.status).toBe(201);
    const children = descendants(pid);
    const storeDir = join(dataDir, 'dynamodb');
    expect(holdersOf(storeDir)).toEqual([pid]); // the store is the runtime's own thread
    expect(threadsOf(pid)).toBeGreaterThan(1);

    // Act
    const code = await first.stop('SIGKILL');

    // Assess
    expect(code).toBeNull(); // killed, not exited
    await waitFor(() => children.every((child) => !existsSync(join(PROC, String(child)))), {
      what: () => `the runtime's child processes ${children.join(', ')} to end after it was killed`,
    });
    expect(holdersOf(storeDir)).toEqual([]);
    const second = await startRuntimeProcess({ DATA_DIR: dataDir });
    runtime = second;
    const keysAfter = await api(second.url, 'GET', '/v1/keys', made.body.admin_key);
    expect(keysAfter.status).toBe(200); // the account made before the kill, and its key, are still there
    await second.stop();
    runtime = undefined;
  }, 120_000);
});
