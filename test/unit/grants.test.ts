// The test-side stand-in for IAM refuses what a function's needs do not grant.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { functions } from '../../functions/manifest';
import { keys } from '../../shared/db/keys';
import { createTestContainer, type TestContainer } from '../support/container';
import { NotGrantedError, runningAs } from '../support/grants';

let c: TestContainer;
beforeAll(async () => {
  c = await createTestContainer();
});
afterAll(async () => c.testStore.close());

const fn = (name: string) => functions.find((f) => f.name === name) as (typeof functions)[number];

it('refuses table, queue, scheduler, bucket, SES and secret use outside a function’s needs', async () => {
  const fallback = fn('fallback'); // needs nothing
  const attempts: Array<() => Promise<unknown>> = [
    () => c.store.get(keys.account('acct_x')),
    () => c.queue.send('send', {}),
    () => c.scheduler.cancel('x'),
    () => c.objects.get('k'),
    () => c.mailer.send({ from: 'a@b.c', to: 'd@e.f', subject: 's', messageId: 'm', accountId: 'a' }),
    () => c.identities.remove('acme.test'),
    async () => c.secrets.get('staff-token'),
  ];

  for (const attempt of attempts) {
    await expect(runningAs.run(fallback, async () => attempt())).rejects.toBeInstanceOf(NotGrantedError);
  }
});

it('allows what the needs grant, and reads but not writes with read-only table access', async () => {
  const keysFn = fn('keys');
  const readOnly = { ...keysFn, needs: { table: 'read' as const } };

  await expect(runningAs.run(keysFn, () => c.store.get(keys.account('acct_x')))).resolves.toBeUndefined();
  await expect(runningAs.run(readOnly, () => c.store.get(keys.account('acct_x')))).resolves.toBeUndefined();
  await expect(runningAs.run(readOnly, async () => c.store.put({ ...keys.account('acct_x') }))).rejects.toBeInstanceOf(NotGrantedError);
});
