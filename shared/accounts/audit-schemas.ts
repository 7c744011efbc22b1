// Wire shapes of the staff audit log (GET /v1/admin/audit). Apart from schemas.ts, which the
// send path carries through the account service: only the admin function needs these.
import * as z from 'zod';

/** What staff did, as the audit log names it. */
export const staffActions = ['account.create', 'account.suspend', 'account.unsuspend', 'user.set_role', 'account.reputation_lift', 'dead_letters.redrive'] as const;
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
        type: z.enum(['account', 'user', 'queue']),
        id: z.string().nullable().meta({ description: 'acct_…, usr_… or a queue name; null when the request did not name it and the action did not finish (a creation, a role change by address)' }),
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
