// Accounts: created by staff (or the local bootstrap) with one live and one test admin key
// (shared/accounts/api-keys/new-account.ts), or by a sign-up with none.
import type { Store } from '../db/store';
import { ApiError, NotFoundError } from '../errors';
import type { Ids } from '../ports/ids';
import type { Clock } from '../ports/clock';
import { accountChanged } from './changes';
import { AccountRepository, type AccountItem } from './repository';
import {
  channels,
  type AccountStatus,
  type AccountStatusView,
  type AccountVerification,
  type Channel,
  type ChannelStateView,
  type CreateAccountBody,
} from './schemas';

// The area's vocabulary, where the rest of the code base has always found it.
export { channelBody, channels, createAccountBody, type Channel } from './schemas';
export type { AccountStatus, AccountVerification, CreatedAccount, ReadinessStatus } from './schemas';
export type { AccountItem } from './repository';

export interface AccountDeps {
  store: Store;
  ids: Ids;
  clock: Clock;
}

/** Writes a new account item; `ownerVerified: false` for a sign-up account whose owner has not verified their address. */
export async function newAccount(deps: AccountDeps, body: CreateAccountBody, ownerVerified?: false): Promise<string> {
  const id = deps.ids.next('acct');
  const now = deps.clock.now().toISOString();
  const created = await new AccountRepository(deps.store).create({
    id,
    name: body.name ?? 'My account',
    email: body.email?.trim().toLowerCase() ?? null,
    status: 'active',
    enabled_channels: ['email'],
    ...(ownerVerified === false ? { owner_verified: false } : {}),
    created_at: now,
    updated_at: now,
  });
  if (!created) throw new ApiError('conflict', `account ${id} exists already`);
  return id;
}

/**
 * The account of a person who signed up: no keys at all (the console creates them), and in
 * sandbox mode until its owner verifies their address.
 */
export async function createSignUpAccount(deps: AccountDeps, body: CreateAccountBody): Promise<string> {
  return newAccount(deps, body, false);
}

/** Undoes a sign-up whose later steps failed: the account has no keys nor anything else yet. */
export async function removeSignUpAccount(deps: Pick<AccountDeps, 'store'>, accountId: string): Promise<void> {
  await new AccountRepository(deps.store).remove(accountId);
}

/** The owner proved their address: the account may leave sandbox mode (with a verified domain) and hold live keys. */
export async function markOwnerVerified(deps: Pick<AccountDeps, 'store' | 'clock'>, accountId: string): Promise<void> {
  await new AccountRepository(deps.store).markOwnerVerified(accountId, deps.clock.now().toISOString());
  accountChanged(accountId);
}

/** An account whose owner signed up and has not verified their address: sandbox mode whatever its domains, and no live keys. */
export const ownerUnverified = (account: Pick<AccountItem, 'owner_verified'>): boolean => account.owner_verified === false;

export async function getAccount(store: Store, accountId: string): Promise<AccountItem | undefined> {
  return new AccountRepository(store).get(accountId);
}

export async function setAccountStatus(
  deps: Pick<AccountDeps, 'store' | 'clock'>,
  accountId: string,
  status: AccountStatus,
): Promise<AccountStatusView> {
  const found = await new AccountRepository(deps.store).setStatus(accountId, status, deps.clock.now().toISOString());
  if (!found) throw new NotFoundError('account');
  // Keys verified in this process carry the account: drop them so the change holds at once here
  // (other processes re-read within the cache's bound, docs/api-decisions.md).
  accountChanged(accountId);
  return { account_id: accountId, status };
}

/**
 * Per-channel readiness. Email is the only channel that sends today: `verified` once the account
 * holds a fully verified domain, `pending` while its domains await verification, `sandbox` before
 * it registers one. Channels with no provider wired in this deployment report `not_configured`.
 */
export async function getVerification(
  deps: Pick<AccountDeps, 'store'>,
  accountId: string,
  options: { sharedEmailSender: string; domains: { registered: number; verified: number } },
): Promise<AccountVerification> {
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new NotFoundError('account');
  // An owner who has not verified their address keeps the account in sandbox mode whatever its domains.
  const verified = options.domains.verified > 0 && !ownerUnverified(account);
  return {
    account_id: accountId,
    sandbox_mode: !verified,
    shared_email_sender: options.sharedEmailSender,
    channels: channels.map((channel) => {
      if (!account.enabled_channels.includes(channel)) return { channel, status: 'not_configured', verified: false };
      // An outbound webhook needs nothing verified: on is ready.
      if (channel === 'webhook') return { channel, status: 'ready', verified: true };
      if (channel !== 'email') return { channel, status: 'not_configured', verified: false };
      if (verified) return { channel, status: 'verified', verified: true };
      // A domain registered but not yet verified: on its way out of the sandbox.
      return { channel, status: options.domains.registered > 0 ? 'pending' : 'sandbox', verified: false };
    }),
  };
}

/** Channels this deployment can turn on; sms, push and voice have no provider yet. */
export const switchableChannels: readonly Channel[] = ['email', 'webhook'];

export async function setChannelEnabled(
  deps: Pick<AccountDeps, 'store' | 'clock'>,
  accountId: string,
  channel: string,
  enabled: boolean,
): Promise<ChannelStateView> {
  if (!(channels as readonly string[]).includes(channel)) throw new NotFoundError('channel');
  if (!switchableChannels.includes(channel as Channel)) {
    throw new ApiError('channel_not_enabled', `channel ${channel} has no provider in this deployment`);
  }
  const accounts = new AccountRepository(deps.store);
  const account = await accounts.get(accountId);
  if (!account) throw new NotFoundError('account');
  const next = new Set(account.enabled_channels);
  if (enabled) next.add(channel as Channel);
  else next.delete(channel as Channel);
  if (!(await accounts.setEnabledChannels(accountId, [...next], deps.clock.now().toISOString()))) throw new NotFoundError('account');
  accountChanged(accountId); // sends read the channels from the account the key carries
  return { channel: channel as Channel, enabled };
}
