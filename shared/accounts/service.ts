// Accounts: created by staff (or the local bootstrap) with one live and one test admin key.
import * as z from 'zod';
import { keys } from '../db/keys';
import type { Store } from '../db/store';
import { ApiError, ConditionFailedError, NotFoundError } from '../errors';
import { createKey, type KeyDeps } from '../api-keys/service';

export const channels = ['email', 'sms', 'push', 'voice', 'webhook'] as const;
export type Channel = (typeof channels)[number];

export interface AccountItem {
  pk: string;
  sk: string;
  entity: 'account';
  id: string;
  name: string;
  /** The account's own address: in sandbox mode mail may go here. */
  email: string | null;
  status: 'active' | 'suspended';
  enabled_channels: Channel[];
  created_at: string;
  updated_at: string;
}

export const createAccountBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
  })
  .strict();

export interface CreatedAccount {
  account_id: string;
  admin_key: string;
  test_admin_key: string;
}

export async function createAccount(deps: KeyDeps, body: z.infer<typeof createAccountBody>): Promise<CreatedAccount> {
  const id = deps.ids.next('acct');
  const now = deps.clock.now().toISOString();
  const account: AccountItem = {
    ...keys.account(id),
    entity: 'account',
    id,
    name: body.name ?? 'My account',
    email: body.email?.trim().toLowerCase() ?? null,
    status: 'active',
    enabled_channels: ['email'],
    created_at: now,
    updated_at: now,
  };
  await deps.store.create(account);
  const live = await createKey(deps, id, { scope: 'admin', test_mode: false, name: 'admin live key' }, { testMode: false });
  const test = await createKey(deps, id, { scope: 'admin', test_mode: true, name: 'admin test key' }, { testMode: false });
  return { account_id: id, admin_key: live.key, test_admin_key: test.key };
}

export async function getAccount(store: Store, accountId: string): Promise<AccountItem | undefined> {
  return store.get<AccountItem>(keys.account(accountId));
}

export async function setAccountStatus(
  deps: Pick<KeyDeps, 'store' | 'clock'>,
  accountId: string,
  status: AccountItem['status'],
): Promise<{ account_id: string; status: AccountItem['status'] }> {
  try {
    await deps.store.update(keys.account(accountId), {
      expression: 'SET #status = :status, updated_at = :now',
      condition: 'attribute_exists(pk)',
      names: { '#status': 'status' },
      values: { ':status': status, ':now': deps.clock.now().toISOString() },
    });
  } catch (error) {
    if (error instanceof ConditionFailedError) throw new NotFoundError('account');
    throw error;
  }
  return { account_id: accountId, status };
}

export type ReadinessStatus = 'verified' | 'pending' | 'sandbox' | 'registered' | 'ready' | 'not_configured';

export interface AccountVerification {
  account_id: string;
  sandbox_mode: boolean;
  shared_email_sender: string;
  channels: Array<{ channel: Channel; status: ReadinessStatus; verified: boolean }>;
}

/**
 * Per-channel readiness. Email is the only channel that sends today: `verified` once the account
 * holds a fully verified domain, `pending` while its domains await verification, `sandbox` before
 * it registers one. Channels with no provider wired in this deployment report `not_configured`.
 */
export async function getVerification(
  deps: Pick<KeyDeps, 'store'>,
  accountId: string,
  options: { sharedEmailSender: string; domains: { registered: number; verified: number } },
): Promise<AccountVerification> {
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new NotFoundError('account');
  const verified = options.domains.verified > 0;
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

export const channelBody = z.object({ enabled: z.boolean() }).strict();

export async function setChannelEnabled(
  deps: Pick<KeyDeps, 'store' | 'clock'>,
  accountId: string,
  channel: string,
  enabled: boolean,
): Promise<{ channel: Channel; enabled: boolean }> {
  if (!(channels as readonly string[]).includes(channel)) throw new NotFoundError('channel');
  if (!switchableChannels.includes(channel as Channel)) {
    throw new ApiError('channel_not_enabled', `channel ${channel} has no provider in this deployment`);
  }
  const account = await getAccount(deps.store, accountId);
  if (!account) throw new NotFoundError('account');
  const next = new Set(account.enabled_channels);
  if (enabled) next.add(channel as Channel);
  else next.delete(channel as Channel);
  await deps.store.update(keys.account(accountId), {
    expression: 'SET enabled_channels = :channels, updated_at = :now',
    condition: 'attribute_exists(pk)',
    values: { ':channels': [...next], ':now': deps.clock.now().toISOString() },
  });
  return { channel: channel as Channel, enabled };
}
