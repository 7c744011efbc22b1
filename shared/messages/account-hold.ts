// Whether anything may still leave for an account. Suspension answers every request 403 at the
// pipeline; what the account had accepted before (queued and scheduled sends, Mail app sends,
// broadcast chunks, inbound route forwards) is stopped where it would leave, with this reason
// recorded where that path records outcomes.
import type { AccountItem } from '../accounts/service';

export interface Hold {
  /** A stable code for programs (a timeline event's payload.reason). */
  reason: 'account_suspended' | 'account_gone';
  /** The words shown to people (a broadcast's failure_reason, a timeline event's payload.error). */
  detail: string;
}

/** Why nothing more leaves for the account, or undefined when it may send. */
export function accountHold(account: Pick<AccountItem, 'status'> | undefined): Hold | undefined {
  if (!account) return { reason: 'account_gone', detail: 'the account is gone' };
  if (account.status === 'suspended') return { reason: 'account_suspended', detail: 'the account is suspended' };
  return undefined;
}
