// A real container over an in-memory store, with a hand-moved clock and a captured log.
import { staticSecrets } from '../../shared/adapters/aws/secrets-manager';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { FileObjectStore } from '../../shared/adapters/local/file-object-store';
import { LocalIdentities } from '../../shared/adapters/local/local-identities';
import { StoreScheduler } from '../../shared/adapters/local/store-scheduler';
import { ulidIds } from '../../shared/ids';
import { ManualClock } from '../../shared/ports/clock';
import type { Dns } from '../../shared/ports/dns';
import type { Mailer, OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { systemRandom } from '../../shared/ports/random';
import type { Container } from '../../shared/runtime/container';
import { createLogger } from '../../shared/runtime/logger';
import { guarded, identityRules, mailerRules, objectRules, queueRules, schedulerRules, secretRules, storeRules } from './grants';
import { startTestStore, type TestStore } from './store';

export interface TestContainer extends Container {
  clock: ManualClock;
  scheduler: StoreScheduler;
  logs: Array<Record<string, unknown>>;
  sent: Array<{ queue: string; body: unknown; delaySeconds?: number }>;
  /** What the fake mailer was handed; set `mailerFailure` to make it throw. */
  mailed: OutboundEmail[];
  mailerFailure?: Error;
  /** Domains the fake DNS knows to take mail; anything else has no records. */
  mailDomains: Set<string>;
  testStore: TestStore;
}

export const TEST_SECRETS = {
  'cursor-signing-key': 'test-cursor-key-0123456789',
  'staff-token': 'st_test_staff_token_value',
  'data-encryption-key': Buffer.alloc(32, 7).toString('base64'),
} as const;

export async function createTestContainer(options: { start?: string } = {}): Promise<TestContainer> {
  const testStore = await startTestStore();
  const clock = new ManualClock(options.start ?? '2026-03-01T12:00:00.000Z');
  const logs: Array<Record<string, unknown>> = [];
  const sent: TestContainer['sent'] = [];
  const queue: Queue = {
    send: async (q, body, options) => void sent.push({ queue: q, body, delaySeconds: options?.delaySeconds }),
    sendBatch: async (q, bodies) => void bodies.forEach((body) => sent.push({ queue: q, body })),
  };
  const mailed: OutboundEmail[] = [];
  const objectsRoot = mkdtempSync(join(tmpdir(), 'postbox-objects-'));
  const mailDomains = new Set<string>(['example.com', 'example.org']);
  const container: TestContainer = {
    config: {
      runtime: 'local',
      region: 'us-east-1',
      tableName: testStore.store.tableName,
      endpoints: { dynamodb: testStore.endpoint },
      queueUrls: {},
      queueArns: {},
      objects: { kind: 'files', root: objectsRoot },
      scheduler: { kind: 'local' },
      secrets: { kind: 'static', values: TEST_SECRETS },
      sharedEmailSender: 'onboarding@sandbox.test',
      logLevel: 'debug',
      dnsServers: [],
      validationEnabled: true,
      emailCostMicros: 100,
      webhookAllowPrivate: false,
    },
    clock,
    ids: ulidIds(clock),
    store: testStore.store,
    queue,
    scheduler: new StoreScheduler(testStore.store),
    secrets: staticSecrets(TEST_SECRETS),
    logger: createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    mailer: undefined as unknown as Mailer,
    identities: new LocalIdentities(),
    objects: new FileObjectStore(objectsRoot),
    dns: undefined as unknown as Dns,
    http: new GuardedHttp({ allowPrivate: false }),
    random: systemRandom,
    logs,
    sent,
    mailed,
    mailDomains,
    testStore,
  };
  container.mailer = guarded(
    {
      send: async (email: OutboundEmail) => {
        if (container.mailerFailure) throw container.mailerFailure;
        mailed.push(email);
        return { providerMessageId: `ses-${mailed.length}-${email.messageId}` };
      },
    },
    mailerRules,
  );
  // While a handler runs, every adapter holds it to its manifest needs (./grants.ts).
  container.store = guarded(container.store, storeRules);
  container.queue = guarded(container.queue, queueRules);
  container.scheduler = guarded(container.scheduler, schedulerRules);
  container.objects = guarded(container.objects, objectRules);
  container.identities = guarded(container.identities, identityRules);
  container.secrets = guarded(container.secrets, secretRules);
  container.dns = {
    acceptsMail: async (domain) => mailDomains.has(domain),
    lookup: async (name, type) => (type === 'MX' && mailDomains.has(name) ? [`10 mx.${name}`] : []),
  };
  return container;
}
