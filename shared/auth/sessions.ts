// Sessions: an opaque 32-byte random id (base64url) that only the cookie holds; the store keeps its
// SHA-256 with the user, the account and the expiry (14 days). Looking a session up and its CSRF
// token are in session-lookup.ts, which the pipeline imports.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../crypto/crypto';
import { SESSION_ID } from './session-lookup';
import type { Store } from '../db/store';
import type { Clock } from '../ports/clock';
import { SessionRepository } from './sessions-repository';
import type { UserItem } from './users-repository';

export const SESSION_TTL_MS = 14 * 24 * 3600_000;

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

export async function endSession(deps: Pick<SessionDeps, 'store'>, id: string): Promise<void> {
  if (SESSION_ID.test(id)) await new SessionRepository(deps.store).remove(sha256Hex(id));
}

export async function endAllSessions(deps: Pick<SessionDeps, 'store'>, userId: string): Promise<void> {
  await new SessionRepository(deps.store).removeAllOf(userId);
}

