// The prelude of the webhook delivery tests: an HTTP receiver on loopback for the file, and before
// each test outbound requests allowed to reach it (the SSRF guard lets loopback through only here),
// a short timeout and a receiver that answers 200 and has seen nothing; after each, the guard back on.
import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { startHttpReceiver, type Receiver } from './receivers';
import type { Testbed } from './testbed';

export interface LoopbackHooks {
  /** The file's receiver (started in beforeAll). */
  readonly receiver: Receiver;
  /**
   * Lets outbound requests reach loopback, or not. The webhook channel of shared/messages reads the
   * config flag; webhook subscriptions and deliveries go through the container's HttpClient.
   */
  allowPrivate(allowed: boolean): void;
}

export function useLoopbackReceiver(bed: Testbed): LoopbackHooks {
  let receiver: Receiver | undefined;
  const hooks: LoopbackHooks = {
    get receiver() {
      if (!receiver) throw new Error('the receiver starts in beforeAll');
      return receiver;
    },
    allowPrivate(allowed) {
      bed.c.config.webhookAllowPrivate = allowed;
      bed.c.http = new GuardedHttp({ allowPrivate: allowed });
    },
  };
  beforeAll(async () => {
    receiver = await startHttpReceiver();
  });
  afterAll(async () => receiver?.close());
  beforeEach(() => {
    hooks.allowPrivate(true);
    bed.c.config.webhookTimeoutMs = 500;
    hooks.receiver.requests.length = 0;
    hooks.receiver.reply({ status: 200 });
  });
  afterEach(() => hooks.allowPrivate(false));
  return hooks;
}
