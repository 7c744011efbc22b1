import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keys } from '../../shared/db/keys';
import { randomBase62, sha256Hex } from '../../shared/crypto/crypto';
import { ApiError } from '../../shared/errors';
import { issueLoginCode, issueToken, LOGIN_CODE_TTL_MS, peekToken, redeemLoginCode, redeemToken, revokeToken, tokenLifetimes } from '../../shared/accounts/one-time-tokens/service';
import { OneTimeTokenRepository } from '../../shared/accounts/one-time-tokens/repository';
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

describe('peeking at a link token', () => {
  it('answers its subject, data and expiry while it works, uses nothing up, and the token then redeems once', async () => {
    const s = subject();
    const data = { form_id: 'frm_1', email: 'ada@example.com', first_name: null, data: { company: 'Engines' } };
    const { token, expiresAt } = await issueToken(deps(), 'form_confirmation', s, data);

    const first = await peekToken(deps(), 'form_confirmation', token);
    const second = await peekToken(deps(), 'form_confirmation', token);

    expect(first).toEqual({ subject: s, data, expiresAt });
    expect(second).toEqual(first);
    expect(await redeemToken(deps(), 'form_confirmation', token)).toBe(s);
    await invalid(redeemToken(deps(), 'form_confirmation', token));
  });

  it('refuses a used token', async () => {
    const { token } = await issueToken(deps(), 'email_verification', subject());
    await redeemToken(deps(), 'email_verification', token);

    const error = await invalid(peekToken(deps(), 'email_verification', token, 'sign up again'));

    expect(error.message).toContain('sign up again');
  });

  it('refuses an expired token, from the instant it expires', async () => {
    const { token } = await issueToken(deps(), 'form_confirmation', subject(), { n: 1 });
    clock.advance(tokenLifetimes.form_confirmation - 1);
    await expect(peekToken(deps(), 'form_confirmation', token)).resolves.toMatchObject({ data: { n: 1 } });

    clock.advance(1);

    await invalid(peekToken(deps(), 'form_confirmation', token));
  });

  it('refuses unknown and malformed tokens alike', async () => {
    for (const bad of [undefined, 42, '', 'short', '!'.repeat(40), '0123456789abcdefghijABCDEFGHIJ0123456789']) {
      await invalid(peekToken(deps(), 'form_confirmation', bad));
    }
  });

  it('refuses a replaced, a revoked or another purpose\'s token, and leaves the other purpose\'s token working', async () => {
    const s = subject();
    const replaced = await issueToken(deps(), 'form_confirmation', s);
    const newest = await issueToken(deps(), 'form_confirmation', s);
    const reset = await issueToken(deps(), 'password_reset', s);

    await invalid(peekToken(deps(), 'form_confirmation', replaced.token));
    await invalid(peekToken(deps(), 'form_confirmation', reset.token));
    expect(await redeemToken(deps(), 'password_reset', reset.token)).toBe(s);
    await revokeToken(deps(), 'form_confirmation', s);
    await invalid(peekToken(deps(), 'form_confirmation', newest.token));
  });

  it('refuses a token whose subject has a newer one, even when an issue stopped before deleting the older item', async () => {
    const s = subject();
    const repo = new OneTimeTokenRepository(t.store);
    const expiresAt = Math.floor(clock.now().getTime() / 1000) + 3600;
    const [older, newer] = [randomBase62(40), randomBase62(40)];
    await repo.create(sha256Hex(older), { purpose: 'form_confirmation', subject: s, expiresAt });
    await repo.create(sha256Hex(newer), { purpose: 'form_confirmation', subject: s, expiresAt });

    await invalid(peekToken(deps(), 'form_confirmation', older));
    expect((await peekToken(deps(), 'form_confirmation', newer)).subject).toBe(s);
    await invalid(redeemToken(deps(), 'form_confirmation', older));
  });
});

describe('token data', () => {
  it('is stored on the token item with its digest, and absent when none is given', async () => {
    const withData = await issueToken(deps(), 'form_confirmation', subject(), { list_id: 'lst_1', data: { plan: 'pro' } });
    const without = await issueToken(deps(), 'password_reset', subject());

    const stored = await t.store.get(keys.oneTimeToken(sha256Hex(withData.token)));
    const plain = await t.store.get(keys.oneTimeToken(sha256Hex(without.token)));

    expect(stored).toMatchObject({ purpose: 'form_confirmation', data: { list_id: 'lst_1', data: { plan: 'pro' } } });
    expect(JSON.stringify(stored)).not.toContain(withData.token);
    expect(plain).not.toHaveProperty('data');
    expect(await peekToken(deps(), 'password_reset', without.token)).toMatchObject({ data: undefined });
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
