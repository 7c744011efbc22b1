import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { sha256Hex } from '../../shared/crypto';
import { ApiError } from '../../shared/errors';
import { issueLoginCode, issueToken, LOGIN_CODE_TTL_MS, redeemLoginCode, redeemToken, revokeToken, tokenLifetimes } from '../../shared/one-time-tokens/service';
import { ManualClock } from '../../shared/ports/clock';
import { startTestStore, type TestStore } from '../support/store';

let t: TestStore;
let clock: ManualClock;
const deps = () => ({ store: t.store, clock });
beforeAll(async () => {
  t = await startTestStore();
  clock = new ManualClock('2026-03-01T12:00:00.000Z');
});
afterAll(async () => t.close());

let n = 0;
const subject = () => `subject-${++n}`;

async function invalid(promise: Promise<unknown>): Promise<ApiError> {
  const error = await promise.then(() => undefined, (e: unknown) => e);
  expect(error).toBeInstanceOf(ApiError);
  expect((error as ApiError).code).toBe('invalid_token');
  expect((error as ApiError).status).toBe(400);
  return error as ApiError;
}

describe('link tokens', () => {
  it('are stored as their SHA-256 only and redeem once, for their subject', async () => {
    const s = subject();
    const { token } = await issueToken(deps(), 'email_verification', s);

    expect(await t.store.get(keys.oneTimeToken(token))).toBeUndefined();
    expect(await t.store.get(keys.oneTimeToken(sha256Hex(token)))).toMatchObject({ purpose: 'email_verification', subject: s });
    expect(await redeemToken(deps(), 'email_verification', token)).toBe(s);
    await invalid(redeemToken(deps(), 'email_verification', token));
  });

  it('let exactly one of two racing redemptions win', async () => {
    const { token } = await issueToken(deps(), 'password_reset', subject());

    const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => redeemToken(deps(), 'password_reset', token)));

    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });

  it.each(Object.entries(tokenLifetimes))('expire: %s after %i ms', async (purpose, ttl) => {
    const a = await issueToken(deps(), purpose as keyof typeof tokenLifetimes, subject());
    const b = await issueToken(deps(), purpose as keyof typeof tokenLifetimes, subject());
    clock.advance(ttl - 1);
    await expect(redeemToken(deps(), purpose as keyof typeof tokenLifetimes, a.token)).resolves.toBeDefined();
    clock.advance(1);
    await invalid(redeemToken(deps(), purpose as keyof typeof tokenLifetimes, b.token));
  });

  it('work only as the newest of their subject, and not for another purpose', async () => {
    const s = subject();
    const first = await issueToken(deps(), 'email_verification', s);
    const second = await issueToken(deps(), 'email_verification', s);
    const reset = await issueToken(deps(), 'password_reset', s);

    await invalid(redeemToken(deps(), 'email_verification', first.token));
    await invalid(redeemToken(deps(), 'email_verification', reset.token));
    expect(await redeemToken(deps(), 'email_verification', second.token)).toBe(s);
  });

  it('refuse malformed and unknown tokens alike, and stop when revoked', async () => {
    for (const bad of [undefined, 42, '', 'short', 'x'.repeat(40), '!'.repeat(40), '0123456789abcdefghijABCDEFGHIJ0123456789']) {
      await invalid(redeemToken(deps(), 'test_recipient', bad));
    }
    const s = subject();
    const { token } = await issueToken(deps(), 'test_recipient', s);
    await revokeToken(deps(), 'test_recipient', s);
    const error = await invalid(redeemToken(deps(), 'test_recipient', token, 'register again'));
    expect(error.message).toContain('register again');
  });
});

describe('login codes', () => {
  it('are six digits, work once, and a new one replaces the old', async () => {
    const s = subject();
    const old = await issueLoginCode(deps(), s);
    const { code } = await issueLoginCode(deps(), s);

    expect(code).toMatch(/^\d{6}$/);
    if (old.code !== code) await invalid(redeemLoginCode(deps(), s, old.code));
    await redeemLoginCode(deps(), s, code);
    await invalid(redeemLoginCode(deps(), s, code));
  });

  it('survive four wrong attempts; the fifth uses the code up', async () => {
    const s = subject();
    const { code } = await issueLoginCode(deps(), s);
    const wrong = code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 4; i++) await invalid(redeemLoginCode(deps(), s, wrong));
    await redeemLoginCode(deps(), s, code);

    const again = await issueLoginCode(deps(), s);
    const wrongAgain = again.code === '000000' ? '000001' : '000000';
    for (let i = 0; i < 5; i++) await invalid(redeemLoginCode(deps(), s, wrongAgain));
    await invalid(redeemLoginCode(deps(), s, again.code));
  });

  it('expire after 10 minutes and refuse malformed codes', async () => {
    const s = subject();
    const { code } = await issueLoginCode(deps(), s);
    await invalid(redeemLoginCode(deps(), s, 'abcdef'));
    await invalid(redeemLoginCode(deps(), s, undefined));
    clock.advance(LOGIN_CODE_TTL_MS);
    await invalid(redeemLoginCode(deps(), s, code));
  });

  it('let one of two racing correct redemptions win', async () => {
    const s = subject();
    const { code } = await issueLoginCode(deps(), s);
    const outcomes = await Promise.allSettled([redeemLoginCode(deps(), s, code), redeemLoginCode(deps(), s, code), redeemLoginCode(deps(), s, code)]);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(1);
  });
});
