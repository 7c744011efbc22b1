// Sign-up, email verification, sign-in (password or mailed code), password reset, sign-out and the
// session view. Login answers the same error after the same work for an unknown address and a
// wrong password; the mail-sending routes answer the same whether or not the address has a user.
import { randomUUID } from 'node:crypto';
import { revokeEveryKey } from '../accounts/api-keys/service';
import { removeEverySubscription } from '../webhooks/subscriptions';
import { createSignUpAccount, getAccount, markOwnerVerified, ownerUnverified, removeSignUpAccount } from '../accounts/service';
import type { Store } from '../db/store';
import { isFullyVerified } from '../domains/model';
import { DomainRepository } from '../domains/repository';
import { sharedSenderMailbox } from '../formats/shared-sender';
import { ApiError } from '../errors';
import type { Ids } from '../ports/ids';
import { invalidToken, issueLoginCode, issueToken, redeemLoginCode, redeemToken } from '../accounts/one-time-tokens/service';
import type { Clock } from '../ports/clock';
import { PermanentSendError, type Mailer } from '../ports/mailer';
import type { Logger } from '../ports/logger';
import { loginCodeMail, passwordResetMail, verificationMail, type AuthMail } from './mails';
import { assertPasswordAllowed, DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from './passwords';
import type { LoginBody, SessionView, SignUpBody } from './schemas';
import { csrfTokenOf } from './session-lookup';
import { endAllSessions, endSession, startSession, type StartedSession } from './sessions';
import type { SessionItem } from './sessions-repository';
import { assertSignInAllowed, countFailedSignIn, mayMail } from './throttle';
import { UserRepository, type UserItem } from './users-repository';

export interface AuthDeps {
  store: Store;
  clock: Clock;
  ids: Ids;
  mailer: Mailer;
  logger: Logger;
  config: { sharedEmailSender: string; publicBaseUrl?: string };
}

export interface SignedIn {
  session: StartedSession;
  user: UserItem;
}

const wrongCredentials = (): ApiError => new ApiError('unauthorized', 'the email address or the password is wrong');

function publicOrigin(config: AuthDeps['config']): string {
  if (!config.publicBaseUrl) throw new Error('PUBLIC_BASE_URL is not configured; the link cannot be built');
  return config.publicBaseUrl;
}

/**
 * Mails a user from the shared sender, at most AUTH_MAILS_PER_ADDRESS an hour per address. The
 * budget is checked before `mail` runs, so past it nothing is issued either: a fresh login code or
 * reset link would replace the one the person already holds, and anyone who knows the address
 * could keep theirs from ever working. Errors are the caller's to handle.
 */
async function mailUser(deps: AuthDeps, user: UserItem, mail: () => Promise<AuthMail>): Promise<void> {
  const from = sharedSenderMailbox(deps.config);
  if (!from) throw new ApiError('service_unavailable', 'this deployment has no usable shared sender address (SHARED_EMAIL_SENDER)');
  if (!(await mayMail(deps, user.email))) return;
  // Each mail its own id: the id marks one send, and a retried send of the same id is not mailed twice.
  await deps.mailer.send({ from, to: user.email, ...(await mail()), messageId: `auth_${user.id}_${randomUUID()}`, accountId: user.account_id });
}

/** For routes that answer 202 whatever happens: a failed mail is logged, never answered. */
async function mailQuietly(deps: AuthDeps, user: UserItem, mail: () => Promise<AuthMail>): Promise<void> {
  try {
    await mailUser(deps, user, mail);
  } catch (error) {
    deps.logger.warn('auth mail not sent', { userId: user.id, error });
  }
}

async function verificationLink(deps: AuthDeps, userId: string): Promise<AuthMail> {
  const { token } = await issueToken(deps, 'email_verification', userId);
  // The configured origin, never the request's Host.
  return verificationMail(`${publicOrigin(deps.config)}/#/verify-email/${token}`);
}

/** A new owner: who they are, their password's hash (none for OAuth), whether their address is proven. */
export interface NewOwner {
  email: string;
  name: string | null;
  passwordHash?: string;
  emailVerified: boolean;
}

/**
 * The one way a person gets a new account: the address claimed first (409 `conflict` when it has
 * a user), then the account (no keys; sandbox mode until the address is verified) and its owner,
 * then `then` (the sign-up's verification mail, the session). All or nothing: if a later step
 * fails, the earlier ones are undone, so the address can sign up again.
 */
export async function createOwner(deps: AuthDeps, owner: NewOwner, then: (user: UserItem) => Promise<StartedSession>): Promise<SignedIn> {
  const users = new UserRepository(deps.store);
  const userId = deps.ids.next('usr');
  if (!(await users.claimEmail(owner.email, userId))) {
    throw new ApiError('conflict', 'an account with this email address exists already; sign in, or reset the password');
  }
  let accountId: string | undefined;
  try {
    accountId = await createSignUpAccount(deps, { name: owner.name ?? owner.email, email: owner.email });
    const now = deps.clock.now().toISOString();
    const user = await users.create({
      id: userId,
      email: owner.email,
      name: owner.name,
      ...(owner.passwordHash ? { password_hash: owner.passwordHash } : {}),
      email_verified: owner.emailVerified,
      role: 'owner',
      account_id: accountId,
      created_at: now,
      updated_at: now,
    });
    if (owner.emailVerified) await markOwnerVerified(deps, accountId);
    return { session: await then(user), user };
  } catch (error) {
    await users.remove(userId).catch(() => undefined);
    if (accountId) await removeSignUpAccount(deps, accountId).catch(() => undefined);
    await users.releaseEmail(owner.email, userId).catch(() => undefined);
    throw error;
  }
}

/**
 * A new user with a new account, a mailed verification link, and a session: the person is signed
 * in at once. Nothing is left behind when the mail cannot be sent.
 */
export async function signUp(deps: AuthDeps, body: SignUpBody): Promise<SignedIn> {
  assertPasswordAllowed(body.password, body.email);
  const passwordHash = await hashPassword(body.password);
  try {
    return await createOwner(deps, { email: body.email, name: body.name ?? null, passwordHash, emailVerified: false }, async (user) => {
      await mailUser(deps, user, () => verificationLink(deps, user.id));
      return startSession(deps, user);
    });
  } catch (error) {
    if (error instanceof PermanentSendError) {
      throw new ApiError('service_unavailable', 'the verification mail could not be sent; nothing was created, try again later', { cause: error });
    }
    throw error;
  }
}

/** Marks the user's address and their account's owner verified (the sign-up's own link: see verifyEmail). */
export async function verifyAddress(deps: AuthDeps, user: UserItem): Promise<void> {
  if (!user.email_verified) await new UserRepository(deps.store).markEmailVerified(user.id, deps.clock.now().toISOString());
  if (user.role === 'owner') await markOwnerVerified(deps, user.account_id);
}

/**
 * The address's owner proved it some other way than the sign-up's link (a provider's verified
 * address, a mailed login code): they are the user from now on. If the address was unverified,
 * whoever chose its password and holds its sessions never proved it, and may be someone who
 * signed up with another person's address to wait for them (a pre-hijack): the password is
 * removed and every session ended, before the caller starts the owner's own session. An address
 * verified already changes nothing. Answers the user as it now is.
 */
export async function claimAddress(deps: AuthDeps, user: UserItem): Promise<UserItem> {
  if (user.email_verified) {
    await verifyAddress(deps, user);
    return user;
  }
  const claimed = await new UserRepository(deps.store).claimUnverified(user.id, deps.clock.now().toISOString());
  // Undefined: something verified it first, a racing claim (which ended the sessions) or the
  // sign-up's link, opened by this same mailbox's owner (which keeps them, by design: verifyEmail).
  if (claimed) {
    await endAllSessions(deps, user.id);
    const access = await revokeSquattersAccess(deps, user.account_id);
    deps.logger.info('unverified address claimed: its password removed, its sessions ended, its keys and webhooks removed', { userId: user.id, ...access });
  }
  const current = claimed ?? (await new UserRepository(deps.store).get(user.id)) ?? user;
  await verifyAddress(deps, { ...current, email_verified: true });
  return { ...current, email_verified: true };
}

/**
 * Whoever held the account before its address was claimed may have made API keys (test mode only:
 * an unverified owner cannot make live ones) and webhook subscriptions; a test key reads the
 * account's mail and a webhook receives its events, so neither outlives the claim. Honest newcomers
 * who claim their own address lose their test keys too: they make new ones (docs/threat-model.md).
 */
async function revokeSquattersAccess(deps: AuthDeps, accountId: string): Promise<{ keysRevoked: number; webhooksRemoved: number }> {
  const keysRevoked = await revokeEveryKey(deps, accountId);
  const webhooksRemoved = await removeEverySubscription(deps, accountId);
  return { keysRevoked, webhooksRemoved };
}

export async function verifyEmail(deps: AuthDeps, token: string): Promise<{ account_id: string; email_verified: true }> {
  const userId = await redeemToken(deps, 'email_verification', token, 'sign in and ask for a new link');
  const user = await new UserRepository(deps.store).get(userId);
  if (!user) throw invalidToken();
  await verifyAddress(deps, user);
  return { account_id: user.account_id, email_verified: true };
}

const accountSuspended = (): ApiError => new ApiError('account_suspended', 'this account is suspended; contact support');

/**
 * A suspended account's people are told so once their credentials check out (never before, so a
 * wrong password learns nothing), and get no session: every request would be 403 anyway.
 */
async function assertAccountActive(deps: AuthDeps, user: UserItem): Promise<void> {
  if ((await getAccount(deps.store, user.account_id))?.status === 'suspended') throw accountSuspended();
}

export async function logIn(deps: AuthDeps, body: LoginBody, ip: string): Promise<SignedIn> {
  await assertSignInAllowed(deps, body.email, ip);
  const user = await new UserRepository(deps.store).findByEmail(body.email);
  // An unknown address (or a user without a password) is checked against a dummy hash: the same work.
  const matches = await verifyPassword(body.password, user?.password_hash ?? DUMMY_PASSWORD_HASH);
  if (!user?.password_hash || !matches) {
    await countFailedSignIn(deps, body.email, ip);
    throw wrongCredentials();
  }
  await assertAccountActive(deps, user);
  return { session: await startUnlessReplaced(deps, user, user.password_hash), user };
}

/**
 * Starts the session of a password sign-in, then checks the password it was started with is still
 * the user's. A reset or an address claimed (claimAddress) while the password was being checked
 * ends every session it can see; this session, written after that, would outlive it. Whichever
 * comes first, the other sees it: the session exists before the re-read, the change before the
 * sessions are ended.
 */
async function startUnlessReplaced(deps: AuthDeps, user: UserItem, checked: string): Promise<StartedSession> {
  const session = await startSession(deps, user);
  const now = await new UserRepository(deps.store).get(user.id);
  if (now?.password_hash === checked) return session;
  await endSession(deps, session.id);
  throw wrongCredentials();
}

/** Mails a six-digit code if the address has a user; the answer is the same either way. */
export async function requestLoginCode(deps: AuthDeps, email: string): Promise<void> {
  const user = await new UserRepository(deps.store).findByEmail(email);
  if (!user) return;
  await mailQuietly(deps, user, async () => loginCodeMail((await issueLoginCode(deps, email)).code));
}

/** Signs in with the mailed code, which also proves the address: an unverified one is claimed (claimAddress). */
export async function logInWithCode(deps: AuthDeps, email: string, code: string, ip: string): Promise<SignedIn> {
  await assertSignInAllowed(deps, email, ip);
  const user = await new UserRepository(deps.store).findByEmail(email);
  try {
    await redeemLoginCode(deps, email, code);
  } catch (error) {
    await countFailedSignIn(deps, email, ip);
    throw error;
  }
  if (!user) throw invalidToken('ask for a new code');
  // A suspended account gets no session, and nothing of it changes.
  await assertAccountActive(deps, user);
  const owner = await claimAddress(deps, user);
  return { session: await startSession(deps, owner), user: owner };
}

export async function requestPasswordReset(deps: AuthDeps, email: string): Promise<void> {
  const user = await new UserRepository(deps.store).findByEmail(email);
  if (!user) return;
  await mailQuietly(deps, user, async () => {
    const { token } = await issueToken(deps, 'password_reset', user.id);
    return passwordResetMail(`${publicOrigin(deps.config)}/#/reset-password/${token}`);
  });
}

/** Sets the new password, verifies the address (the link was read there) and ends every session of the user. */
export async function resetPassword(deps: AuthDeps, token: string, password: string): Promise<void> {
  const hint = 'ask for a new reset link';
  if (typeof token !== 'string') throw invalidToken(hint);
  // Everything but the address rule is checked before the token is used up, so a refused password leaves the link working.
  assertPasswordAllowed(password);
  const users = new UserRepository(deps.store);
  const userId = await redeemToken(deps, 'password_reset', token, hint);
  const user = await users.get(userId);
  if (!user) throw invalidToken(hint);
  assertPasswordAllowed(password, user.email);
  const updated = await users.setPassword(userId, await hashPassword(password), deps.clock.now().toISOString());
  if (!updated) throw invalidToken(hint);
  await verifyAddress(deps, { ...updated, email_verified: true });
  await endAllSessions(deps, userId);
  // A reset that proves an unverified address is a claim like a code's: the old holder's access goes.
  if (!user.email_verified) await revokeSquattersAccess(deps, user.account_id);
}

export async function logOut(deps: AuthDeps, sessionId: string | undefined): Promise<void> {
  if (sessionId) await endSession(deps, sessionId);
}

/** Who is signed in, for the console. */
export async function sessionView(deps: AuthDeps, session: Pick<SessionItem, 'user_id' | 'account_id' | 'expires_at'>, sessionId: string): Promise<SessionView> {
  const [user, account, domains] = await Promise.all([
    new UserRepository(deps.store).get(session.user_id),
    getAccount(deps.store, session.account_id),
    new DomainRepository(deps.store).listAll(session.account_id),
  ]);
  if (!user || !account) throw new ApiError('unauthorized', 'your session has ended; sign in again');
  if (account.status === 'suspended') throw accountSuspended();
  return {
    user: { id: user.id, email: user.email, name: user.name, email_verified: user.email_verified, role: user.role },
    account_id: account.id,
    account_name: account.name,
    sandbox: ownerUnverified(account) || !domains.some(isFullyVerified),
    csrf_token: csrfTokenOf(sessionId),
    expires_at: new Date(session.expires_at * 1000).toISOString(),
  };
}
