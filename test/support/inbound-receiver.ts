// The prelude of the inbound route tests: a loopback HTTP receiver answering 200, reachable as
// WEBHOOK_ALLOW_PRIVATE makes it locally, inbound email on, and the account's domain enabled for it
// before each test.
import { afterAll, beforeAll, beforeEach, expect } from 'vitest';
import { GuardedHttp } from '../../shared/adapters/guarded-http';
import { startHttpReceiver, type Receiver } from './receivers';
import type { Testbed } from './testbed';

export function useInboundReceiver(bed: Testbed, enable: () => Promise<{ status: number }>, started: (receiver: Receiver) => void): void {
  let receiver: Receiver;
  beforeAll(async () => {
    receiver = await startHttpReceiver();
    started(receiver);
  });
  afterAll(async () => receiver.close());
  beforeEach(async () => {
    bed.c.http = new GuardedHttp({ allowPrivate: true });
    bed.c.config.inboundEnabled = true;
    receiver.requests.length = 0;
    receiver.reply({ status: 200 });
    expect((await enable()).status).toBe(200);
  });
}
