// Sessions: an opaque 32-byte random id (base64url) that only the cookie holds; the store keeps its
// SHA-256 with the user, the account and the expiry (14 days). The CSRF token is derived from the
// id, so nothing more is stored and a leaked token reveals nothing about the id.
import { createHmac, randomBytes } from 'node:crypto';
import { safeEqual, sha256Hex } from '../crypto';
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';
import { SessionRepository, type SessionItem } from './sessions-repository';
import type { UserItem } from './users-repository';

export const SESSION_TTL_MS = 14 * 24 * 3600_000;
const SESSION_ID = /^[A-Za-z0-9_-]{43}$/;
/**
 * The CSRF token's HMAC key. Not a secret: the token's strength is the session id's 256 random
 * bits, which an attacker never sees (HttpOnly), and every function that serves signed-in requests
 * can compute it without holding the data-encryption key (docs/api-decisions.md).
 */
const CSRF_KEY = 'postbox csrf token v1';

export interface SessionDeps {
  store: Store;
  clock: Clock;
}

export interface StartedSession {
  /** The cookie's value: shown to the browser only. */
  id: string;
  expiresAt: Date;
}

export async function startSession(deps: SessionDeps, user: Pick<UserItem, 'id' | 'account_id' | 'role'>): Promise<StartedSession> {
  const id = randomBytes(32).toString('base64url');
  const now = deps.clock.now();
  const expiresAt = new Date(now.getTime() + SESSION_TTL_MS);
  await new SessionRepository(deps.store).create(sha256Hex(id), {
    user_id: user.id,
    account_id: user.account_id,
    role: user.role,
    created_at: now.toISOString(),
    expires_at: Math.floor(expiresAt.getTime() / 1000),
  });
  return { id, expiresAt };
}

/** The live session with this id; undefined for a malformed, unknown, ended or expired one. */
export async function findSession(deps: SessionDeps, id: string): Promise<SessionItem | undefined> {
  if (!SESSION_ID.test(id)) return undefined;
  const session = await new SessionRepository(deps.store).get(sha256Hex(id));
  if (!session || deps.clock.now().getTime() >= session.expires_at * 1000) return undefined;
  return session;
}

export async function endSession(deps: Pick<SessionDeps, 'store'>, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await new SessionRepository(deps.store).remove(sha256Hex(id));
}

export async function endAllSessions(deps: Pick<SessionDeps, 'store'>, userId: string): Promise<void> {
  await new SessionRepository(deps.store).removeAllOf(userId);
}

export const csrfTokenOf = (sessionId: string): string => createHmac('sha256', CSRF_KEY).update(sessionId, 'utf8').digest('base64url');

/** Constant time; false for a missing token. */
export const csrfTokenMatches = (sessionId: string, presented: string | undefined): boolean =>
  presented !== undefined && safeEqual(presented, csrfTokenOf(sessionId));
