// The account limit holds across processes: two runtimes share one store, and a burst split
// between them admits exactly ten.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startDynalite, type Running } from '../../shared/runtime/local/emulators';
import { api, startRuntimeProcess, type RuntimeProcess } from '../support/local-process';

let store: Running;
const runtimes: RuntimeProcess[] = [];
const dirs: string[] = [];

beforeAll(async () => {
  store = await startDynalite();
  for (let i = 0; i < 2; i++) {
    const dir = mkdtempSync(join(tmpdir(), `postbox-rl-${i}-`));
    dirs.push(dir);
    runtimes.push(await startRuntimeProcess({ DATA_DIR: dir, DYNAMODB_ENDPOINT: store.endpoint }));
  }
});
afterAll(async () => {
  await Promise.all(runtimes.map((r) => r.stop()));
  await store.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

it('admits exactly 10 of 30 concurrent requests sent through two processes', async () => {
  // Prepare: one account's keys (live and test share the budget); warm both processes up.
  const { admin_key, test_admin_key } = JSON.parse(readFileSync(join(dirs[0] as string, 'bootstrap.json'), 'utf8'));
  for (const r of runtimes) expect((await api(r.url, 'GET', '/v1/account/verification', admin_key)).status).toBe(200);
  // Act: a burst whose every admission falls inside one window. On a loaded machine a burst can
  // take longer than a second, and then more than ten may pass legitimately, so such a burst is
  // discarded and tried again after the window has emptied.
  let results: Awaited<ReturnType<typeof api>>[] = [];
  for (let attempt = 0; attempt < 10; attempt++) {
    await new Promise((resolve) => setTimeout(resolve, 1100));
    const started = performance.now();
    results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => api((runtimes[i % 2] as RuntimeProcess).url, 'GET', '/v1/account/verification', i % 3 ? admin_key : test_admin_key)),
    );
    if (performance.now() - started < 900) break;
  }

  // Assess
  const passed = results.filter((r) => r.status === 200);
  const refused = results.filter((r) => r.status === 429);
  expect(passed).toHaveLength(10);
  expect(refused).toHaveLength(20);
  for (const r of refused) {
    expect(r.body.error.code).toBe('rate_limit_exceeded');
    expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  }
  for (const r of passed) expect(r.headers.get('x-ratelimit-limit')).toBe('10');
});
