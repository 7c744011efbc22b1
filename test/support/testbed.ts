// The hooks every handler test file needs: one container per file, installed where the handlers
// find it; before each test a fresh account, a full rate-limit budget and empty recorders.
import { afterAll, beforeAll, beforeEach } from 'vitest';
import { type CreatedAccount } from '../../shared/accounts/service';
import { createAccount } from '../../shared/api-keys/new-account';
import { createKey } from '../../shared/api-keys/service';
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
 * `sandbox: true` leaves the account in sandbox mode; otherwise it owns the fully verified domain
 * acme.test, so live sends from @acme.test go to any recipient.
 */
export function useTestbed(options: { scopedKeys?: boolean; sandbox?: boolean } = {}): Testbed {
  const bed = {
    request: (input: HttpEventInput) => {
      bed.c.clock.advance(150);
      return call(input);
    },
  } as Testbed;
  beforeAll(async () => {
    bed.c = await createTestContainer();
    installContainer(bed.c);
  });
  afterAll(async () => bed.c.testStore.close());
  beforeEach(async () => {
    const c = bed.c;
    c.clock.advance(2000); // older admissions have left the one-second window
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
