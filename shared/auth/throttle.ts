// Budgets of the sign-in routes beyond the 10-per-second limiter every public route has: failed
// sign-ins (a wrong password or a wrong code) per address and per client IP, and the mails the
// auth routes send per address. Each is a store rate log (shared/accounts/rate-limit): a failure is
// counted by one conditional write per subject; a success resets nothing.
import type { Store } from '../db/store';
import { keys } from '../db/keys';
import { ApiError } from '../errors';
import type { Clock } from '../ports/clock';
import { clientNetworkOf } from '../accounts/rate-limit/client-network';
import { admit, exhausted } from '../accounts/rate-limit/service';

export const FAILED_SIGN_INS_PER_ADDRESS = 5;
export const FAILED_SIGN_INS_PER_IP = 30;
export const FAILED_SIGN_IN_WINDOW_MS = 15 * 60_000;
export const AUTH_MAILS_PER_ADDRESS = 5;
export const AUTH_MAIL_WINDOW_MS = 3600_000;

interface ThrottleDeps {
  store: Store;
  clock: Clock;
}

const tooMany = (retryAfterSeconds: number): ApiError =>
  new ApiError('rate_limit_exceeded', 'too many failed sign-ins; retry after the number of seconds in Retry-After', {
    headers: { 'retry-after': String(retryAfterSeconds) },
  });

/** The failed-sign-in budgets an attempt from `ip` for `email` counts against (the IP by its network). */
export const signInBudgets = (email: string, ip: string) => [
  { subject: keys.authBudget('fail-email', email), limit: FAILED_SIGN_INS_PER_ADDRESS },
  { subject: keys.authBudget('fail-ip', clientNetworkOf(ip)), limit: FAILED_SIGN_INS_PER_IP },
];

/** 429 before any password or code is checked, when the address or the IP has failed too often. */
export async function assertSignInAllowed(deps: ThrottleDeps, email: string, ip: string): Promise<void> {
  const full = await Promise.all(signInBudgets(email, ip).map((b) => exhausted(deps, b.subject, FAILED_SIGN_IN_WINDOW_MS)));
  const waits = full.flatMap((f) => (f ? [f.retryAfterSeconds] : []));
  if (waits.length) throw tooMany(Math.max(...waits));
}

/** Counts a failed sign-in; 429 when attempts that raced past the check overflowed a budget. */
export async function countFailedSignIn(deps: ThrottleDeps, email: string, ip: string): Promise<void> {
  const decisions = await Promise.all(signInBudgets(email, ip).map((b) => admit(deps, b.subject, b.limit, FAILED_SIGN_IN_WINDOW_MS)));
  const refused = decisions.filter((d) => !d.allowed);
  if (refused.length) throw tooMany(Math.max(...refused.map((d) => d.retryAfterSeconds ?? 1)));
}

/** Whether another auth mail may go to this address now (counted when it may); past the budget the mail is silently not sent. */
export async function mayMail(deps: ThrottleDeps, email: string): Promise<boolean> {
  return (await admit(deps, keys.authBudget('mail', email), AUTH_MAILS_PER_ADDRESS, AUTH_MAIL_WINDOW_MS)).allowed;
}
