// The real composition root over an embedded store, with a hand-moved clock, a captured log, and
// recorders in place of the queue and the mailer.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalIdentities } from '../../shared/adapters/local/local-identities';
import { StoreScheduler } from '../../shared/adapters/local/store-scheduler';
import { ManualClock } from '../../shared/ports/clock';
import type { OutboundEmail } from '../../shared/ports/mailer';
import type { Queue } from '../../shared/ports/queue';
import { buildContainer, type Container } from '../../shared/runtime/container';
import type { RuntimeConfig } from '../../shared/runtime/config';
import { createLogger } from '../../shared/adapters/logger';
import type { DeadLetter, DeadLetterQueues } from '../../shared/ports/dead-letters';
import type { QueueName } from '../../shared/platform';
import { deadLetterRules, guarded, identityRules, mailerRules, objectRules, queueRules, schedulerRules, secretRules, storeRules } from './grants';
import { connectTestStore, startTestStore, type TestStore } from './store';

export interface TestContainer extends Container {
  clock: ManualClock;
  scheduler: StoreScheduler;
  logs: Array<Record<string, unknown>>;
  sent: Array<{ queue: string; body: unknown; delaySeconds?: number }>;
  /** What the DLQs hold (the DeadLetterQueues port in memory); a redrive moves a message to `sent` as its raw body. */
  dlq: Array<DeadLetter & { queue: QueueName }>;
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
  'unsubscribe-signing-key': 'test-unsubscribe-key-0123456789',
} as const;

/** A queue that records what is sent to it. */
function recordingQueue(sent: TestContainer['sent']): Queue {
  return {
    send: async (q, body, options) => void sent.push({ queue: q, body, delaySeconds: options?.delaySeconds }),
    sendBatch: async (q, bodies) => void bodies.forEach((body) => sent.push({ queue: q, body })),
  };
}

/** The DeadLetterQueues port over `dlq` in memory; a redrive moves a message to `sent` as its raw body. */
function memoryDeadLetters(dlq: TestContainer['dlq'], sent: TestContainer['sent']): DeadLetterQueues {
  return {
    peek: async (q) => {
      const held = dlq.filter((m) => m.queue === q);
      return { depth: held.length, messages: held.slice(0, 10).map(({ queue: _q, ...m }) => m) };
    },
    redrive: async (q, ids) => {
      const chosen = dlq.filter((m) => m.queue === q && (!ids || ids.includes(m.id)));
      for (const m of chosen) {
        dlq.splice(dlq.indexOf(m), 1);
        sent.push({ queue: q, body: m.body });
      }
      return chosen.map(({ queue: _q, ...m }) => m);
    },
  };
}

/** The local runtime config of a test container: its store, its object files, static secrets. */
function testConfig(testStore: TestStore, objectsRoot: string): RuntimeConfig {
  return {
    runtime: 'local',
    region: 'us-east-1',
    tableName: testStore.store.tableName,
    endpoints: { dynamodb: testStore.endpoint },
    queueUrls: {},
    queueArns: {},
    objects: { kind: 'files', root: objectsRoot, downloadKey: 'test-object-download-key' },
    scheduler: { kind: 'local' },
    secrets: { kind: 'static', values: TEST_SECRETS },
    sharedEmailSender: 'onboarding@sandbox.test',
    logLevel: 'debug',
    dnsServers: [],
    validationEnabled: true,
    emailCostMicros: 100,
    webhookAllowPrivate: false,
    publicBaseUrl: 'http://api.test',
    // The inbound routes are deployment-gated; handler tests (and the fuzz test) reach them.
    inboundEnabled: true,
  };
}

/** While a handler runs, every adapter holds it to its manifest needs (./grants.ts). */
function guardAdapters(container: TestContainer): void {
  container.mailer = guarded(container.mailer, mailerRules);
  container.store = guarded(container.store, storeRules);
  container.queue = guarded(container.queue, queueRules);
  container.deadLetters = guarded(container.deadLetters, deadLetterRules);
  container.scheduler = guarded(container.scheduler, schedulerRules);
  container.objects = guarded(container.objects, objectRules);
  container.identities = guarded(container.identities, identityRules);
  container.secrets = guarded(container.secrets, secretRules);
}

/**
 * `store`: another process's table (its dynalite endpoint and table name) instead of a store of
 * this container's own, for tests that race processes over one store; closing leaves it running.
 */
export async function createTestContainer(options: { start?: string; store?: { endpoint: string; tableName: string } } = {}): Promise<TestContainer> {
  const testStore = options.store ? connectTestStore(options.store.endpoint, options.store.tableName) : await startTestStore();
  const clock = new ManualClock(options.start ?? '2026-03-01T12:00:00.000Z');
  const logs: Array<Record<string, unknown>> = [];
  const sent: TestContainer['sent'] = [];
  const mailed: OutboundEmail[] = [];
  const dlq: TestContainer['dlq'] = [];
  const objectsRoot = mkdtempSync(join(tmpdir(), 'postbox-objects-'));
  const mailDomains = new Set<string>(['example.com', 'example.org']);
  // The same composition root as Lambda and `npm start`; only the outside world is replaced.
  const built = await buildContainer(testConfig(testStore, objectsRoot), {
    clock,
    store: testStore.store,
    queue: recordingQueue(sent),
    deadLetters: memoryDeadLetters(dlq, sent),
    logger: createLogger('debug', (line) => logs.push(JSON.parse(line) as Record<string, unknown>)),
    dns: {
      acceptsMail: async (domain) => mailDomains.has(domain),
      lookup: async (name, type) => (type === 'MX' && mailDomains.has(name) ? [`10 mx.${name}`] : []),
    },
    mailer: {
      send: async (email: OutboundEmail) => {
        if (container.mailerFailure) throw container.mailerFailure;
        mailed.push(email);
        return { providerMessageId: `ses-${mailed.length}-${email.messageId}` };
      },
    },
    identities: new LocalIdentities(),
  });
  if (!(built.scheduler instanceof StoreScheduler)) throw new Error('a local config builds the store scheduler');
  const container: TestContainer = {
    ...built,
    clock,
    scheduler: built.scheduler,
    logs,
    sent,
    dlq,
    mailed,
    mailDomains,
    // Closing the store also removes the files this container wrote.
    testStore: {
      ...testStore,
      close: async () => {
        await testStore.close();
        rmSync(objectsRoot, { recursive: true, force: true });
      },
    },
  };
  guardAdapters(container);
  return container;
}
