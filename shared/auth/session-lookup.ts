// What every function's pipeline needs of sessions: the lookup of a session by its cookie's id
// and the CSRF token, which is derived from the id, so nothing more is stored and a leaked token
// reveals nothing about the id. Kept apart from the session writes (sessions.ts) so the API's
// bundles stay small.
import { hmacSha256, safeEqual, sha256Hex } from '../crypto/crypto';
import type { AccountItem } from '../accounts/repository';
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';
import { readSession, type SessionItem } from './sessions-repository';

export const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/**
 * The CSRF token's HMAC key. Not a secret: the token's strength is the session id's 256 random
 * bits, which an attacker never sees (HttpOnly), and every function that serves signed-in requests
 * can compute it without holding the data-encryption key (docs/api-decisions.md).
 */
const CSRF_KEY = 'postbox csrf token v1';

/** The live session with this id; undefined for a malformed, unknown, ended or expired one. */
export async function findSession(deps: { store: Store; clock: Clock }, id: string): Promise<SessionItem | undefined> {
  if (!SESSION_ID.test(id)) return undefined;
  const session = await readSession(deps.store, sha256Hex(id));
  if (!session || deps.clock.now().getTime() >= session.expires_at * 1000) return undefined;
  return session;
}

/**
 * Whether a signed-in person acts in test mode: while the account's owner has not verified their
 * address (the account's `owner_verified`, which the pipeline reads for every session anyway, so
 * this costs no read). A sign-up account has one user, its owner, and staff must be verified, so
 * this is the user's own verified state; verifying the address flips it for every session of the
 * user on their next request (docs/threat-model.md).
 */
export const sessionActsInTestMode = (account: Pick<AccountItem, 'owner_verified'>): boolean => account.owner_verified === false;

export const csrfTokenOf = (sessionId: string): string => hmacSha256(CSRF_KEY, sessionId).toString('base64url');

/** Constant time; false for a missing token. */
export const csrfTokenMatches = (sessionId: string, presented: string | undefined): boolean =>
  presented !== undefined && safeEqual(presented, csrfTokenOf(sessionId));
