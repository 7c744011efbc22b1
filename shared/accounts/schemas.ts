// Wire shapes of the account and staff routes: requests and answers.
import * as z from 'zod';

export const channels = ['email', 'sms', 'push', 'voice', 'webhook'] as const;
export type Channel = (typeof channels)[number];

export const createAccountBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    email: z.email().max(254).optional(),
  })
  .strict();

export type CreateAccountBody = z.infer<typeof createAccountBody>;

export const channelBody = z.object({ enabled: z.boolean() }).strict();

export const accountStatuses = ['active', 'suspended'] as const;
export type AccountStatus = (typeof accountStatuses)[number];

export const readinessStatuses = ['verified', 'pending', 'sandbox', 'registered', 'ready', 'not_configured'] as const;
export type ReadinessStatus = (typeof readinessStatuses)[number];

/** A new account's keys, shown once: the local bootstrap and the staff route make the same. */
export const createdAccount = z
  .object({
    account_id: z.string().meta({ description: 'The account id, acct_…' }),
    admin_key: z.string().meta({ description: 'A live admin key (sk_live_…), shown once: store it now' }),
    test_admin_key: z.string().meta({ description: 'A test-mode admin key (sk_test_…), shown once: store it now' }),
  })
  .strict();
export type CreatedAccount = z.infer<typeof createdAccount>;

/** POST /v1/admin/accounts/{id}/suspend and /unsuspend. */
export const accountStatusView = z
  .object({
    account_id: z.string(),
    status: z.enum(accountStatuses).meta({ description: 'suspended: every key-authenticated request of the account gets 403 account_suspended' }),
  })
  .strict();
export type AccountStatusView = z.infer<typeof accountStatusView>;

/** GET /v1/admin/accounts: the page, and the filters (one of them at most, or both). */
export const adminAccountQuery = z
  .object({
    limit: z.string().optional().meta({ description: 'Items per page, 1 to 100 (default 50; larger values are capped, others ignored)' }),
    cursor: z.string().optional().meta({ description: 'The next_cursor of the page before; bound to the list and its filters' }),
    status: z.enum(accountStatuses).optional().meta({ description: 'Only the accounts with this status' }),
    email: z.string().trim().min(1).max(320).optional().meta({ description: 'Only the accounts with this address (trimmed, lower-cased); several accounts may share one' }),
  })
  .strict();
export type AdminAccountQuery = z.infer<typeof adminAccountQuery>;

/** An account as staff see it: GET /v1/admin/accounts and /v1/admin/accounts/{id}. */
export const adminAccountView = z
  .object({
    account_id: z.string().meta({ description: 'The account id, acct_…' }),
    name: z.string(),
    email: z.string().nullable().meta({ description: "The account's own address, if it has one" }),
    status: z.enum(accountStatuses).meta({ description: 'suspended: every key-authenticated request of the account gets 403 account_suspended' }),
    created_at: z.string().meta({ description: 'ISO 8601' }),
  })
  .strict();
export type AdminAccountView = z.infer<typeof adminAccountView>;

export const accountVerificationView = z
  .object({
    account_id: z.string(),
    sandbox_mode: z.boolean().meta({ description: 'true until the account holds a fully verified domain' }),
    shared_email_sender: z.string().meta({ description: 'The sandbox sender address' }),
    channels: z.array(
      z
        .object({
          channel: z.enum(channels),
          status: z.enum(readinessStatuses).meta({
            description:
              'email: sandbox before a domain is registered, pending while registered domains await verification, verified once one is fully verified; ' +
              'webhook: ready once turned on; not_configured when off or without a provider in this deployment (sms, push, voice)',
          }),
          verified: z.boolean(),
        })
        .strict(),
    ),
  })
  .strict();
export type AccountVerification = z.infer<typeof accountVerificationView>;

/** PUT /v1/account/channels/{channel}. */
export const channelStateView = z.object({ channel: z.enum(channels), enabled: z.boolean() }).strict();
export type ChannelStateView = z.infer<typeof channelStateView>;

