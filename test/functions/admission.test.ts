// Where the rate limiter's write runs (shared/http/admission.ts): beside a safe request's route,
// before any other; a refusal is the answer either way, and a subject refused in this process is
// admitted before its routes again until its window resets.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { keys } from '../../shared/db/keys';
import { call } from '../support/api';
import { type TestContainer } from '../support/container';
import { useContainer } from '../support/testbed';

let c: TestContainer;
const env = useContainer();
beforeAll(() => void (c = env.c));

/** What reaches DynamoDB while `act` runs, as `start Name` and `end Name` in the order they happened; the limiter's write is `Rate`. */
async function timelineOf<T>(accountId: string, act: () => Promise<T>): Promise<{ result: T; steps: string[] }> {
  const rate = keys.rateLog(keys.accountRateSubject(accountId));
  const original = c.store.doc.send.bind(c.store.doc);
  const steps: string[] = [];
  const spy = vi.spyOn(c.store.doc, 'send').mockImplementation((async (command: { constructor: { name: string }; input: { Key?: { pk: string; sk: string } } }) => {
    const name = command.input.Key?.pk === rate.pk && command.input.Key.sk === rate.sk ? 'Rate' : command.constructor.name.replace(/Command$/, '');
    steps.push(`start ${name}`);
    try {
      return await original(command as never);
    } finally {
      steps.push(`end ${name}`);
    }
  }) as never);
  try {
    return { result: await act(), steps };
  } finally {
    spy.mockRestore();
  }
}

/** A fresh account whose key is warm (verified and its use written), so a request makes only the limiter's and the route's calls. */
async function warmAccount() {
  const account = await createAccount(c, { name: 'admission' });
  await call({ method: 'GET', path: '/v1/keys', key: account.admin_key });
  return account;
}

/** Spends what is left of the account's budget this second (one request is already counted by warmAccount). */
async function spendBudget(key: string): Promise<void> {
  for (let i = 0; i < 9; i++) expect((await call({ method: 'GET', path: '/v1/account/verification', key })).status).toBe(200);
}

describe('the limiter beside a safe request', () => {
  it('starts a GET’s route read before the limiter’s write has returned, and answers with the rate headers', async () => {
    const account = await warmAccount();

    const { result, steps } = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    expect(result.status).toBe(200);
    expect(result.headers['x-ratelimit-remaining']).toBe('8');
    expect(steps.indexOf('start Query')).toBeGreaterThan(-1);
    expect(steps.indexOf('start Query')).toBeLessThan(steps.indexOf('end Rate'));
  });

  it('admits a POST before its route runs', async () => {
    const account = await warmAccount();

    const { result, steps } = await timelineOf(account.account_id, () => call({ method: 'POST', path: '/v1/keys', key: account.admin_key, body: { scope: 'read' } }));

    expect(result.status).toBe(201);
    expect(steps.slice(0, 2)).toEqual(['start Rate', 'end Rate']);
  });

  it('answers 429 to a GET past the limit, with Retry-After, whatever its route found', async () => {
    const account = await warmAccount();
    await spendBudget(account.admin_key);

    // A route that would answer 404 on its own: the refusal is the answer.
    const res = await call({ method: 'GET', path: '/v1/contacts/ct_00000000000000000000000000', key: account.admin_key });

    expect(res.status).toBe(429);
    expect(res.body).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.any(String), status: 429 } });
    expect(Number(res.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    expect(res.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('after a refusal runs no route of that account’s safe requests until its window resets, then runs them beside the limiter again', async () => {
    const account = await warmAccount();
    await spendBudget(account.admin_key);
    expect((await call({ method: 'GET', path: '/v1/keys', key: account.admin_key })).status).toBe(429);

    const refused = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));
    c.clock.advance(1000);
    const again = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    expect(refused.result.status).toBe(429);
    // The limiter's calls only (its refused write, and the read that says when capacity returns).
    expect(refused.steps.length).toBeGreaterThan(0);
    expect(refused.steps.filter((step) => !step.endsWith(' Rate'))).toEqual([]);
    expect(again.result.status).toBe(200);
    expect(again.steps.indexOf('start Query')).toBeLessThan(again.steps.indexOf('end Rate'));
  });

  it('keeps another account’s reads beside the limiter while one account is refused', async () => {
    const refused = await warmAccount();
    const other = await warmAccount();
    await spendBudget(refused.admin_key);
    expect((await call({ method: 'GET', path: '/v1/keys', key: refused.admin_key })).status).toBe(429);

    const { result, steps } = await timelineOf(other.account_id, () => call({ method: 'GET', path: '/v1/keys', key: other.admin_key }));

    expect(result.status).toBe(200);
    expect(steps.indexOf('start Query')).toBeLessThan(steps.indexOf('end Rate'));
  });
});
