// Where the rate limiter's write runs (shared/http/admission.ts): beside a safe request's route
// while this process knows the account has room for it, before the route otherwise and for any
// other request; a refusal is the answer either way.
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { createAccount } from '../../shared/accounts/api-keys/new-account';
import { ACCOUNT_RATE_LIMIT, admit } from '../../shared/accounts/rate-limit/service';
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

  it('admits a GET before its route once this process saw its account’s room run out, and answers 429 with Retry-After', async () => {
    const account = await warmAccount();
    await spendBudget(account.admin_key);

    const { result, steps } = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/contacts/ct_00000000000000000000000000', key: account.admin_key }));

    expect(result.status).toBe(429);
    expect(result.body).toEqual({ error: { code: 'rate_limit_exceeded', message: expect.any(String), status: 429 } });
    expect(Number(result.headers['retry-after'])).toBeGreaterThanOrEqual(1);
    // The limiter's calls only (its refused write, and the read that says when capacity returns): no route ran.
    expect(steps.length).toBeGreaterThan(0);
    expect(steps.filter((step) => !step.endsWith(' Rate'))).toEqual([]);
  });

  it('answers 429 to a GET whose room was spent elsewhere (another process), whatever its route found beside it', async () => {
    const account = await warmAccount();
    // Spent outside this process's pipeline: what it knows of the room (9 left) is stale.
    for (let i = 0; i < ACCOUNT_RATE_LIMIT - 1; i++) expect((await admit(c, keys.accountRateSubject(account.account_id), ACCOUNT_RATE_LIMIT)).allowed).toBe(true);

    const { result, steps } = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    // The route ran beside the limiter (and would have answered 200), and the refusal is the answer.
    expect(steps.indexOf('start Query')).toBeGreaterThan(-1);
    expect(steps.indexOf('start Query')).toBeLessThan(steps.indexOf('end Rate'));
    expect(result.status).toBe(429);
    expect(result.headers['x-ratelimit-remaining']).toBe('0');
  });

  it('after a refusal runs no route of that account’s reads until a decision finds room again, then runs them beside the limiter', async () => {
    const account = await warmAccount();
    await spendBudget(account.admin_key);
    expect((await call({ method: 'GET', path: '/v1/keys', key: account.admin_key })).status).toBe(429);

    const refused = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));
    c.clock.advance(1000);
    const first = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));
    const next = await timelineOf(account.account_id, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }));

    expect(refused.result.status).toBe(429);
    expect(refused.steps.length).toBeGreaterThan(0);
    expect(refused.steps.filter((step) => !step.endsWith(' Rate'))).toEqual([]);
    expect(first.result.status).toBe(200);
    expect(first.steps.indexOf('start Query')).toBeGreaterThan(first.steps.indexOf('end Rate'));
    expect(next.result.status).toBe(200);
    expect(next.steps.indexOf('start Query')).toBeLessThan(next.steps.indexOf('end Rate'));
  });

  it('runs a burst of reads beside the limiter only as far as the known room goes', async () => {
    const account = await warmAccount();
    const burst = 20;

    const { result, steps } = await timelineOf(account.account_id, () => Promise.all(Array.from({ length: burst }, () => call({ method: 'GET', path: '/v1/keys', key: account.admin_key }))));

    const ok = result.filter((r) => r.status === 200).length;
    const routesRun = steps.filter((step) => step === 'start Query').length;
    expect(ok).toBe(ACCOUNT_RATE_LIMIT - 1);
    expect(result.filter((r) => r.status === 429)).toHaveLength(burst - ok);
    // At most the room known before the burst (9) ran beside their admission; the rest ran only once admitted.
    expect(routesRun).toBeLessThanOrEqual(ACCOUNT_RATE_LIMIT - 1 + ok);
    expect(routesRun).toBeLessThan(burst);
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
