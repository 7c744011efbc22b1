// A hard cap holds across processes: three processes share one store and race 50 sends (17, 17
// and 16) against a cap with room for 10; exactly 10 are accepted, and the 40 refused leave no
// claim and no cost behind.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { MessageRepository } from '../../shared/sending/messages/repository';
import { messageIdFor } from '../../shared/sending/messages/message-id';
import { putSpendCap } from '../../shared/billing/spend-caps/service';
import { getUsage } from '../../shared/billing/usage/service';
import { createTestContainer, type TestContainer } from '../support/container';
import { giveVerifiedDomain } from '../support/domains';

const root = fileURLToPath(new URL('../../', import.meta.url));
const SHARES = [17, 17, 16];

let c: TestContainer;
const children: ChildProcess[] = [];

beforeAll(async () => {
  c = await createTestContainer();
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  await c.testStore.close();
});

/** Starts one racer; resolves once it is READY, with a promise of its outcome line. */
async function startRacer(env: Record<string, string>): Promise<{ child: ChildProcess; outcomes: Promise<string[]> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/support/spend-race-child.ts'], {
    cwd: root,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  children.push(child);
  let out = '';
  let err = '';
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  await new Promise<void>((resolve, reject) => {
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('READY\n')) resolve();
    });
    void exited.then(() => reject(new Error(`racer exited before it was ready:\n${err}`)));
  });
  const outcomes = exited.then(() => {
    const line = out.split('\n').find((l) => l.startsWith('['));
    if (!line) throw new Error(`racer printed no outcomes:\n${out}\n${err}`);
    return JSON.parse(line) as string[];
  });
  return { child, outcomes };
}

it('admits exactly 10 of 50 sends raced from three processes against a cap with room for 10', async () => {
  // Prepare
  const account = await createAccount(c, { email: 'owner@example.com' });
  await giveVerifiedDomain(c, account.account_id);
  await putSpendCap(c, account.account_id, { hard_limit_micros: 1000 });
  const base = {
    RACE_ENDPOINT: c.testStore.endpoint,
    RACE_TABLE: c.testStore.store.tableName,
    RACE_CLOCK: c.clock.now().toISOString(),
    RACE_ACCOUNT: account.account_id,
    RACE_KEY: 'key_race',
  };
  const racers = await Promise.all(SHARES.map((count, i) => startRacer({ ...base, RACE_COUNT: String(count), RACE_PREFIX: `race-${i}` })));

  // Act: every racer is connected and waiting; they all start on the same word.
  for (const r of racers) r.child.stdin?.write('GO\n');
  const outcomes = (await Promise.all(racers.map((r) => r.outcomes))).flat();

  // Assess
  expect(outcomes.filter((o) => o === 'accepted')).toHaveLength(10);
  expect(outcomes.filter((o) => o === 'spend_cap_exceeded')).toHaveLength(40);
  expect((await getUsage(c, account.account_id)).total_cost_micros).toBe(1000);
  const keys = SHARES.flatMap((count, i) => Array.from({ length: count }, (_, j) => `race-${i}-${j}`));
  const stored = await new MessageRepository(c.store).getMany(keys.map((key) => messageIdFor(account.account_id, key)));
  expect(stored.size).toBe(10);
  expect([...stored.values()].every((m) => m.accepted_as === undefined && m.status === 'queued')).toBe(true);
}, 120_000);
