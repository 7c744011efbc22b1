// The one implementation of one-time secrets: email verification, password reset, test-recipient
// and form-confirmation links and OAuth states (a 40-character random token) and login codes (six
// digits). Every one is stored as its SHA-256 only, works once, expires, and only the newest of a
// (purpose, subject) works. Whatever is wrong with a token (malformed, unknown, used, expired,
// replaced) the answer is the same 400 invalid_token, built here.
import { randomInt } from 'node:crypto';
import { randomBase62, safeEqual, sha256Hex } from '../../crypto/crypto';
import type { Store } from '../../db/store';
import { ApiError } from '../../errors';
import type { Clock } from '../../ports/clock';
import { OneTimeTokenRepository, type TokenData } from './repository';

export type { TokenData } from './repository';

export interface TokenDeps {
  store: Store;
  clock: Clock;
}

const HOUR_MS = 3600_000;

/** How long each kind of link works (docs/api-decisions.md, "Accounts, sessions and one-time tokens"). */
export const tokenLifetimes = {
  email_verification: 24 * HOUR_MS,
  form_confirmation: 7 * 24 * HOUR_MS,
  password_reset: HOUR_MS,
  test_recipient: 24 * HOUR_MS,
  /** The state of one OAuth sign-in, from its start to the provider's redirect back. */
  oauth_state: 10 * 60_000,
} as const;
export type TokenPurpose = keyof typeof tokenLifetimes;

export const LOGIN_CODE_TTL_MS = 10 * 60_000;
/** The fifth wrong code uses the code up. */
export const LOGIN_CODE_ATTEMPTS = 5;
export const TOKEN_LENGTH = 40;
const CODE_PURPOSE = 'login_code';
const TOKEN_SHAPE = /^[0-9A-Za-z]{40}$/;
const CODE_SHAPE = /^[0-9]{6}$/;

/** The one answer to any token or code that does not work; `hint` says what to do instead. */
export function invalidToken(hint = 'ask for a new one'): ApiError {
  return new ApiError('invalid_token', `this token is invalid, already used or expired; ${hint}`);
}

const epochSeconds = (ms: number): number => Math.floor(ms / 1000);

/**
 * A fresh token for `subject`; the subject's earlier token of this purpose stops working. `data`
 * rides on the token (kept small, stored as is: nothing a leaked table should not show), answered
 * by `peekToken` and on redemption (`redeemTokenWithData`).
 */
export async function issueToken(deps: TokenDeps, purpose: TokenPurpose, subject: string, data?: TokenData): Promise<{ token: string; expiresAt: Date }> {
  const tokens = new OneTimeTokenRepository(deps.store);
  const token = randomBase62(TOKEN_LENGTH);
  const expiresAt = new Date(deps.clock.now().getTime() + tokenLifetimes[purpose]);
  const replaced = await tokens.create(sha256Hex(token), { purpose, subject, expiresAt: epochSeconds(expiresAt.getTime()), ...(data && { data }) });
  if (replaced) await tokens.remove(replaced);
  return { token, expiresAt };
}

/**
 * Uses a token up and answers its subject. Of two racing redemptions exactly one gets it; a token
 * of another purpose is used up too (it was presented where it does not belong) and refused.
 */
export async function redeemToken(deps: TokenDeps, purpose: TokenPurpose, token: unknown, hint?: string): Promise<string> {
  return (await redeemTokenWithData(deps, purpose, token, hint)).subject;
}

/** redeemToken, answering the data issued with the token too ({} when none was). */
export async function redeemTokenWithData(deps: TokenDeps, purpose: TokenPurpose, token: unknown, hint?: string): Promise<{ subject: string; data: TokenData }> {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw invalidToken(hint);
  const tokens = new OneTimeTokenRepository(deps.store);
  const digest = sha256Hex(token);
  const item = await tokens.take(digest);
  if (!item || item.purpose !== purpose) throw invalidToken(hint);
  const newest = await tokens.takeNewest(purpose, item.subject, digest);
  if (!newest || deps.clock.now().getTime() >= item.expires_at * 1000) throw invalidToken(hint);
  return { subject: item.subject, data: item.data ?? {} };
}

/**
 * What a token holds while it would redeem (its purpose, unused, unexpired, its subject's newest),
 * without using it up: for a link whose page must show what it will do before a button redeems it.
 */
export async function peekToken(
  deps: TokenDeps,
  purpose: TokenPurpose,
  token: unknown,
  hint?: string,
): Promise<{ subject: string; data: TokenData | undefined; expiresAt: Date }> {
  if (typeof token !== 'string' || !TOKEN_SHAPE.test(token)) throw invalidToken(hint);
  const tokens = new OneTimeTokenRepository(deps.store);
  const digest = sha256Hex(token);
  const item = await tokens.get(digest);
  if (!item || item.purpose !== purpose || deps.clock.now().getTime() >= item.expires_at * 1000) throw invalidToken(hint);
  if (!(await tokens.isNewest(purpose, item.subject, digest))) throw invalidToken(hint);
  return { subject: item.subject, data: item.data, expiresAt: new Date(item.expires_at * 1000) };
}

/** Ends the subject's outstanding token of this purpose (its entry was deleted, say). */
export async function revokeToken(deps: Pick<TokenDeps, 'store'>, purpose: TokenPurpose, subject: string): Promise<void> {
  await new OneTimeTokenRepository(deps.store).revokeSubject(purpose, subject);
}

// A code is six digits: its digest is salted with its subject, so one table of a million digests
// does not read every code at once.
const codeDigest = (subject: string, code: string): string => sha256Hex(`${subject}\n${code}`);

/** A fresh six-digit code for `subject`; its previous code stops working. */
export async function issueLoginCode(deps: TokenDeps, subject: string): Promise<{ code: string; expiresAt: Date }> {
  const code = String(randomInt(0, 1_000_000)).padStart(6, '0');
  const expiresAt = new Date(deps.clock.now().getTime() + LOGIN_CODE_TTL_MS);
  await new OneTimeTokenRepository(deps.store).putCode(CODE_PURPOSE, subject, codeDigest(subject, code), epochSeconds(expiresAt.getTime()));
  return { code, expiresAt };
}

/**
 * Uses the subject's code up when `code` is it; a wrong code counts an attempt, and the fifth wrong
 * one uses the code up. Every failure is the same invalid_token.
 */
export async function redeemLoginCode(deps: TokenDeps, subject: string, code: unknown): Promise<void> {
  const hint = 'ask for a new code';
  const tokens = new OneTimeTokenRepository(deps.store);
  const item = await tokens.getCode(CODE_PURPOSE, subject);
  if (!item || deps.clock.now().getTime() >= item.expires_at * 1000) throw invalidToken(hint);
  const presented = typeof code === 'string' && CODE_SHAPE.test(code) ? codeDigest(subject, code) : '';
  if (safeEqual(presented, item.digest)) {
    if (await tokens.takeCode(CODE_PURPOSE, subject, item.digest, LOGIN_CODE_ATTEMPTS)) return;
    throw invalidToken(hint);
  }
  if (!(await tokens.countWrongAttempt(CODE_PURPOSE, subject, item.digest, LOGIN_CODE_ATTEMPTS))) {
    await tokens.removeCode(CODE_PURPOSE, subject, item.digest);
  }
  throw invalidToken(hint);
}
