// Provider accounts linked to users: one item per (provider, provider user id), naming the user, so
// the next sign-in with that provider finds the same user whatever address the provider reports.
import { keys, type ItemKey } from '../../db/keys';
import { wrote, type Store } from '../../db/store';
import type { OAuthProvider } from '../../platform';

export interface OAuthIdentityItem extends ItemKey {
  entity: 'oauth_identity';
  provider: OAuthProvider;
  provider_user_id: string;
  user_id: string;
  created_at: string;
}

export class OAuthIdentityRepository {
  constructor(private readonly store: Store) {}

  get(provider: OAuthProvider, providerUserId: string): Promise<OAuthIdentityItem | undefined> {
    return this.store.get<OAuthIdentityItem>(keys.oauthIdentity(provider, providerUserId));
  }

  /**
   * Links the provider account to `userId`: false when it is linked already (a racing sign-in
   * linked it first). `replace` re-points a link whose user is gone.
   */
  link(provider: OAuthProvider, providerUserId: string, userId: string, now: string, replace = false): Promise<boolean> {
    const item: OAuthIdentityItem = { ...keys.oauthIdentity(provider, providerUserId), entity: 'oauth_identity', provider, provider_user_id: providerUserId, user_id: userId, created_at: now };
    return replace ? this.store.put(item).then(() => true) : wrote(this.store.create(item));
  }
}
