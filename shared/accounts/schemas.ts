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

/** What staff did, as the audit log names it. */
export const staffActions = ['account.create', 'account.suspend', 'account.unsuspend', 'user.set_role'] as const;
export type StaffAction = (typeof staffActions)[number];

/** GET /v1/admin/audit: the page only. */
export const adminAuditQuery = z
  .object({
    limit: z.string().optional().meta({ description: 'Items per page, 1 to 100 (default 50; larger values are capped, others ignored)' }),
    cursor: z.string().optional().meta({ description: 'The next_cursor of the page before' }),
  })
  .strict();

/** One staff action in the audit log (GET /v1/admin/audit). */
export const staffAuditEntryView = z
  .object({
    request_id: z.string().meta({ description: 'The request that did it (the X-Request-Id it was answered with); one entry per request' }),
    created_at: z.string().meta({ description: 'ISO 8601, when the request arrived' }),
    actor: z
      .object({
        type: z.enum(['staff_token', 'staff_session']).meta({ description: "staff_token: the deployment's staff token; staff_session: a staff user's console session" }),
        user_id: z.string().nullable().meta({ description: 'The staff user (usr_…) for a session; null for the token' }),
      })
      .strict(),
    action: z.enum(staffActions),
    target: z
      .object({
        type: z.enum(['account', 'user']),
        id: z.string().nullable().meta({ description: 'acct_… or usr_…; null when the request did not name it and the action did not finish (a creation, a role change by address)' }),
      })
      .strict(),
    detail: z.record(z.string(), z.string()).meta({ description: 'What the request asked for, e.g. {role: "staff"} or the new account\'s {name, email}' }),
    outcome: z.enum(['pending', 'succeeded', 'failed']).meta({
      description: 'Written before the action runs (pending) and updated after it; pending means the outcome was never recorded (the process stopped, or the update failed and was logged)',
    }),
    error_code: z.string().nullable().meta({ description: 'The error code the action answered with when it failed' }),
    source_ip: z.string().meta({ description: 'The client IP as API Gateway saw it' }),
  })
  .strict();
export type StaffAuditEntryView = z.infer<typeof staffAuditEntryView>;
