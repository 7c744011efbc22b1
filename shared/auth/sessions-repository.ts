// Sessions in the store: looked up by the SHA-256 of the cookie's id, with an entry in the user's
// partition so a password reset can end every session of the user with one Query. A lookup is one
// GetItem; nothing is stamped on the user, so signed-in requests read no user item.
import { keyQueries, keys, type ItemKey } from '../db/keys';
import type { Store } from '../db/store';
import type { UserRole } from './users-repository';
import { eachPage } from '../db/all-items';

export interface SessionItem extends ItemKey {
  entity: 'session';
  user_id: string;
  account_id: string;
  /** The user's role when the session began (a role change is to end the user's sessions). */
  role: UserRole;
  created_at: string;
  /** Epoch seconds (the table's TTL attribute); checked on every lookup, since TTL deletion lags. */
  expires_at: number;
}

export type NewSession = Omit<SessionItem, keyof ItemKey | 'entity'>;

interface UserSessionItem extends ItemKey {
  entity: 'user_session';
  expires_at: number;
}

/** The session of a digest: a function of its own, so the pipeline's bundles carry the lookup and not the writes. */
export function readSession(store: Store, digest: string): Promise<SessionItem | undefined> {
  return store.get<SessionItem>(keys.session(digest));
}

export class SessionRepository {
  constructor(private readonly store: Store) {}

  /** The user's entry first: a session is never live without the entry that lets a reset end it. */
  async create(digest: string, session: NewSession): Promise<void> {
    await this.store.put<UserSessionItem>({ ...keys.userSession(session.user_id, digest), entity: 'user_session', expires_at: session.expires_at });
    await this.store.create<SessionItem>({ ...keys.session(digest), entity: 'session', ...session });
  }

  /** Ends one session; nothing when it is gone already. */
  async remove(digest: string): Promise<void> {
    const ended = await this.store.take<SessionItem>(keys.session(digest));
    if (ended) await this.store.delete(keys.userSession(ended.user_id, digest));
  }

  /** Ends every session of a user. */
  async removeAllOf(userId: string): Promise<void> {
    for await (const entries of eachPage<UserSessionItem>(this.store, keyQueries.userSessions(userId))) {
      for (const entry of entries) {
        const digest = entry.sk.slice(keys.userSessionPrefix.length);
        await this.store.delete(keys.session(digest));
        await this.store.delete(keys.userSession(userId, digest));
      }
    }
  }
}
