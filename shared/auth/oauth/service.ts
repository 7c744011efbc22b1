// Signing in with GitHub or Google: the authorization code flow with PKCE. The start issues the
// state, a one-time token (10 minutes) holding the provider and the PKCE verifier; the callback
// redeems it once, exchanges the code, reads the person's verified address and finds their user
// (a linked provider account first, then the address) or makes one as sign-up does, then starts
// a session. What the browser is told (a redirect, or 400 invalid_token) is the function's.
import { createHash, randomBytes } from 'node:crypto';
import { getAccount } from '../../accounts/service';
import { safeEqual } from '../../crypto/crypto';
import { isValidAddress, normalizeAddress } from '../../formats/address';
import { ApiError } from '../../errors';
import { invalidToken, issueToken, redeemTokenWithData } from '../../accounts/one-time-tokens/service';
import type { HttpExchange } from '../../ports/http-client';
import { claimAddress, createOwner, type AuthDeps, type SignedIn } from '../service';
import { startSession } from '../sessions';
import { UserRepository, type UserItem } from '../users-repository';
import { OAuthIdentityRepository } from './identities-repository';
import { authorizeUrl, fetchProfile, ProviderFailure, type OAuthClient, type ProviderProfile } from './providers';

export interface OAuthDeps extends AuthDeps {
  http: HttpExchange;
}

/** Why a callback sends the person back to the sign-in view instead of signing them in. */
export type OAuthRefusal = 'oauth_denied' | 'oauth_failed' | 'oauth_email_unverified' | 'account_suspended';

export type OAuthOutcome = ({ kind: 'signed_in' } & SignedIn) | { kind: 'refused'; reason: OAuthRefusal };

export interface OAuthCallback {
  code?: string;
  state?: string;
  /** The provider's refusal (`access_denied` when the person said no). */
  error?: string;
  /** The state the browser's cookie holds. */
  cookieState?: string;
  redirectUri: string;
  timeoutMs: number;
}

const STATE_HINT = 'start the sign-in again';
const base64url = (bytes: Buffer): string => bytes.toString('base64url');

/** RFC 7636: a 43-character verifier (32 random bytes) and its S256 challenge. */
export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = base64url(randomBytes(32));
  return { verifier, challenge: base64url(createHash('sha256').update(verifier).digest()) };
}

/** The provider's authorize URL for a fresh state, and the state (the browser keeps it in a cookie). */
export async function startOAuth(deps: OAuthDeps, client: OAuthClient, redirectUri: string): Promise<{ location: string; state: string }> {
  const { verifier, challenge } = pkcePair();
  // Each start is its own subject (its challenge, fresh each time): starts in two tabs do not replace each other's state.
  const { token: state } = await issueToken(deps, 'oauth_state', challenge, { provider: client.provider, verifier });
  return { location: authorizeUrl(client, { redirectUri, state, codeChallenge: challenge }), state };
}

/**
 * Checks the state (equal to the cookie's, in constant time, then redeemed once: 400
 * invalid_token otherwise), then signs the person in or says why not.
 */
export async function finishOAuth(deps: OAuthDeps, client: OAuthClient, callback: OAuthCallback): Promise<OAuthOutcome> {
  const { state, cookieState } = callback;
  if (!state || !cookieState || !safeEqual(state, cookieState)) throw invalidToken(STATE_HINT);
  const { data } = await redeemTokenWithData(deps, 'oauth_state', state, STATE_HINT);
  const verifier = data.verifier;
  if (data.provider !== client.provider || typeof verifier !== 'string') throw invalidToken(STATE_HINT);
  if (callback.error !== undefined) return refused(callback.error === 'access_denied' ? 'oauth_denied' : 'oauth_failed');
  if (!callback.code) return refused('oauth_failed');

  let profile: ProviderProfile;
  try {
    profile = await fetchProfile(deps.http, client, { code: callback.code, codeVerifier: verifier, redirectUri: callback.redirectUri, timeoutMs: callback.timeoutMs });
  } catch (error) {
    if (!(error instanceof ProviderFailure)) throw error;
    deps.logger.warn('oauth sign-in failed at the provider', { provider: client.provider, error: error.message });
    return refused('oauth_failed');
  }
  if (!profile.verifiedEmail) return refused('oauth_email_unverified');

  const email = normalizeAddress(profile.verifiedEmail);
  if (!isValidAddress(email)) return refused('oauth_email_unverified');
  const known = await knownUser(deps, client.provider, profile.id, email);
  if (known) return signIn(deps, known);
  try {
    // Made as sign-up makes an owner, verified and without a password; linked before the session starts.
    const created = await createOwner(deps, { email, name: profile.name?.trim().slice(0, 200) || null, emailVerified: true }, async (user) => {
      await new OAuthIdentityRepository(deps.store).link(client.provider, profile.id, user.id, deps.clock.now().toISOString(), true);
      return startSession(deps, user);
    });
    return { kind: 'signed_in', ...created };
  } catch (error) {
    // A sign-up of the same address won the race: that user is the person's.
    const raced = error instanceof ApiError && error.code === 'conflict' ? await knownUser(deps, client.provider, profile.id, email) : undefined;
    if (raced) return signIn(deps, raced);
    throw error;
  }
}

const refused = (reason: OAuthRefusal): OAuthOutcome => ({ kind: 'refused', reason });

/**
 * A session for an existing user, unless their account is suspended. The provider proved the
 * address: an unverified one is claimed first (claimAddress: the password and the sessions someone
 * set up before it was proven end), so the session started here is the only one.
 */
async function signIn(deps: OAuthDeps, user: UserItem): Promise<OAuthOutcome> {
  const account = await getAccount(deps.store, user.account_id);
  if (!account || account.status === 'suspended') return refused('account_suspended');
  const owner = user.email_verified ? user : await claimAddress(deps, user);
  return { kind: 'signed_in', user: owner, session: await startSession(deps, owner) };
}

/**
 * The person's existing user: the one the provider account is linked to; else the one with the
 * verified address (the provider proved it), which is then linked. signIn claims it.
 */
async function knownUser(deps: OAuthDeps, provider: OAuthClient['provider'], providerUserId: string, email: string): Promise<UserItem | undefined> {
  const users = new UserRepository(deps.store);
  const identities = new OAuthIdentityRepository(deps.store);
  const linked = await identities.get(provider, providerUserId);
  const linkedUser = linked && (await users.get(linked.user_id));
  if (linkedUser) return linkedUser;
  const user = await users.findByEmail(email);
  if (!user) return undefined;
  // A link whose user is gone is pointed here; a racing callback that linked first wins.
  if (!(await identities.link(provider, providerUserId, user.id, deps.clock.now().toISOString(), linked !== undefined))) {
    const winner = await identities.get(provider, providerUserId);
    const winnerUser = winner && (await users.get(winner.user_id));
    if (winnerUser) return winnerUser;
  }
  return user;
}
