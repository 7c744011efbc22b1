// The hooks every handler test file needs: one container per file, installed where the handlers
// find it, and a full rate-limit budget before each test (useContainer); with useTestbed, also a
// fresh account and empty recorders before each test.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type CreatedAccount } from '../../shared/accounts/service';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { createKey } from '../../shared/accounts/api-keys/service';
import { installContainer } from '../../shared/runtime/container';
import { createTestContainer, type TestContainer } from './container';
import { call } from './api';
import { giveVerifiedDomain } from './domains';
import type { HttpEventInput, ParsedResult } from './events';

export interface Testbed {
  c: TestContainer;
  account: CreatedAccount;
  /** Live keys of the account with the `read` and `send` scopes (with `scopedKeys`). */
  readKey: string;
  sendKey: string;
  /**
   * Calls a route like API Gateway after moving the clock 150 ms on: timestamps differ between
   * requests and the 10-per-second budgets are never what a test measures.
   */
  request(input: HttpEventInput): Promise<ParsedResult>;
}

/**
 * One container for the file (`holder.c` from beforeAll on), installed where the handlers find it
 * and closed after the file; the clock moves 2 s on before each test, so older admissions have
 * left the one-second window and every test starts with a full rate-limit budget.
 */
export function useContainer(): { c: TestContainer } {
  const holder = {} as { c: TestContainer };
  beforeAll(async () => {
    holder.c = await createTestContainer();
    installContainer(holder.c);
  });
  afterAll(async () => holder.c.testStore.close());
  beforeEach(() => holder.c.clock.advance(2000));
  return holder;
}

/**
 * `sandbox: true` leaves the account in sandbox mode; otherwise it owns the fully verified domain
 * acme.test, so live sends from @acme.test go to any recipient.
 */
export function useTestbed(options: { scopedKeys?: boolean; sandbox?: boolean } = {}): Testbed {
  const bed = useContainer() as Testbed;
  bed.request = (input: HttpEventInput) => {
    bed.c.clock.advance(150);
    return call(input);
  };
  beforeEach(async () => {
    const c = bed.c;
    c.sent.length = 0;
    c.mailed.length = 0;
    c.mailerFailure = undefined;
    bed.account = await createAccount(c, { email: 'owner@example.com' });
    if (!options.sandbox) await giveVerifiedDomain(c, bed.account.account_id);
    if (!options.scopedKeys) return;
    bed.readKey = (await createKey(c, bed.account.account_id, { scope: 'read' }, { testMode: false })).key;
    bed.sendKey = (await createKey(c, bed.account.account_id, { scope: 'send' }, { testMode: false })).key;
  });
  return bed;
}
