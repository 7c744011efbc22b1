// A real container over an in-memory store, with a hand-moved clock and a captured log.
import { staticSecrets } from '../../shared/adapters/aws/secrets-manager';
import { StoreScheduler } from '../../shared/adapters/local/store-scheduler';
import { ulidIds } from '../../shared/ids';
import { ManualClock } from '../../shared/ports/clock';
import type { Queue } from '../../shared/ports/queue';
import type { Container } from '../../shared/runtime/container';
import { createLogger } from '../../shared/runtime/logger';
import { startTestStore, type TestStore } from './store';

export interface TestContainer extends Container {
  clock: ManualClock;
  logs: Array<Record<string, unknown>>;
  sent: Array<{ queue: string; body: unknown }>;
  testStore: TestStore;
}

export const TEST_SECRETS = { 'cursor-signing-key': 'test-cursor-key-0123456789', 'staff-token': 'st_test_staff_token_value' } as const;

export async function createTestContainer(options: { start?: string } = {}): Promise<TestContainer> {
  const testStore = await startTestStore();
  const clock = new ManualClock(options.start ?? '2026-03-01T12:00:00.000Z');
  const logs: Array<Record<string, unknown>> = [];
  const sent: Array<{ queue: string; body: unknown }> = [];
  const queue: Queue = {
    send: async (q, body) => void sent.push({ queue: q, body }),
    sendBatch: async (q, bodies) => void bodies.forEach((body) => sent.push({ queue: q, body })),
  };
  return {
    config: {
      runtime: 'local',
      region: 'us-east-1',
      tableName: testStore.store.tableName,
      endpoints: { dynamodb: testStore.endpoint },
      queueUrls: {},
      queueArns: {},
      scheduler: { kind: 'local' },
      secrets: { kind: 'static', values: TEST_SECRETS },
      sharedEmailSender: 'onboarding@sandbox.test',
      logLevel: 'debug',
    },
    clock,
    ids: ulidIds(clock),
    store: testStore.store,
    queue,
    scheduler: new StoreScheduler(testStore.store),
    secrets: staticSecrets(TEST_SECRETS),
    logger: createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    logs,
    sent,
    testStore,
  };
}
