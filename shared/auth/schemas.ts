import * as z from 'zod';
import { isValidAddress, normalizeAddress } from '../formats/address';

const email = z
  .string()
  .max(320)
  .transform(normalizeAddress)
  .refine(isValidAddress, { message: 'not a valid email address' })
  .meta({ description: 'The address, trimmed and lower-cased', example: 'ada@example.com' });

/** The length rule of a new password (the rest of the policy, and its list, are in passwords.ts). */
export const MIN_PASSWORD_LENGTH = 10;
export const MAX_PASSWORD_LENGTH = 256;

/** A password being chosen: the length is checked here, the rest of the policy by the service. */
const newPassword = z
  .string()
  .min(MIN_PASSWORD_LENGTH, { message: `use at least ${MIN_PASSWORD_LENGTH} characters` })
  .max(MAX_PASSWORD_LENGTH, { message: `use at most ${MAX_PASSWORD_LENGTH} characters` })
  .meta({ description: `${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters, not a common or breached password, not the address` });

const token = z.string().max(256).meta({ description: 'The token from the mailed link' });

export const signUpBody = z
  .object({
    email,
    password: newPassword,
    name: z.string().trim().min(1).max(200).optional().meta({ description: 'Your name; also names the account' }),
  })
  .strict();
export type SignUpBody = z.infer<typeof signUpBody>;

export const signedUpView = z.object({ account_id: z.string().meta({ description: 'acct_…' }) }).strict();

export const verifyEmailBody = z.object({ token }).strict();
export const verifiedEmailView = z.object({ account_id: z.string(), email_verified: z.literal(true) }).strict();

export const loginBody = z.object({ email, password: z.string().max(MAX_PASSWORD_LENGTH) }).strict();
export type LoginBody = z.infer<typeof loginBody>;

export const loginCodeBody = z
  .object({
    email,
    code: z.string().max(16).optional().meta({ description: 'The six digits mailed to the address; omit it to have a code mailed' }),
  })
  .strict();

export const passwordResetBody = z.union([
  z.object({ email }).strict().meta({ title: 'Ask for a reset link' }),
  z.object({ token, password: newPassword }).strict().meta({ title: 'Set a new password with the link\'s token' }),
]);

export const userRole = z.enum(['owner', 'staff']);

export const sessionView = z
  .object({
    user: z
      .object({
        id: z.string().meta({ description: 'usr_…' }),
        email: z.string(),
        name: z.string().nullable(),
        email_verified: z.boolean(),
        role: userRole.meta({ description: '`staff` users may also call /v1/admin with their session' }),
      })
      .strict(),
    account_id: z.string(),
    account_name: z.string(),
    sandbox: z.boolean().meta({ description: 'Mail goes only to the account address and verified test recipients: no verified domain yet, or the owner has not verified their address' }),
    csrf_token: z.string().meta({ description: 'Send it as X-CSRF-Token on every request that is not a GET or HEAD' }),
    expires_at: z.string().meta({ description: 'When the session ends (14 days after sign-in)' }),
  })
  .strict();
export type SessionView = z.infer<typeof sessionView>;

export const acceptedView = z.object({}).strict();

/** Staff set a user's role (POST /v1/admin/users/role). */
export const setUserRoleBody = z
  .object({
    email,
    role: userRole.meta({ description: '`staff` may list, look up and suspend accounts under /v1/admin from the console; `owner` runs their own account only' }),
  })
  .strict();
export type SetUserRoleBody = z.infer<typeof setUserRoleBody>;

export const userRoleView = z
  .object({
    user_id: z.string().meta({ description: 'usr_…' }),
    email: z.string(),
    role: userRole,
    account_id: z.string().meta({ description: 'The account the user signs in to' }),
  })
  .strict();
export type UserRoleView = z.infer<typeof userRoleView>;
